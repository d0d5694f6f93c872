// Package mealy holds deterministic Mealy machines over named alphabets:
// running words, minimisation, equivalence with shortest counterexamples,
// shortest distinguishing words, and the typestate view of a machine learned
// over DroidStar's synchronous closure.
package mealy

import (
	"fmt"
	"strings"
)

// Alphabet is an ordered set of symbol names. Symbols are referred to by
// their index, so machines and words stay compact; the order is the order in
// which the alphabet was declared and is kept in every export.
type Alphabet struct {
	names []string
	index map[string]int
}

// NewAlphabet builds an alphabet; names must be non-empty and distinct.
func NewAlphabet(names ...string) (*Alphabet, error) {
	a := &Alphabet{names: make([]string, 0, len(names)), index: make(map[string]int, len(names))}
	for _, n := range names {
		if _, err := a.Add(n); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// MustAlphabet is NewAlphabet for literals in code and tests.
func MustAlphabet(names ...string) *Alphabet {
	a, err := NewAlphabet(names...)
	if err != nil {
		panic(err)
	}
	return a
}

// Add appends a new symbol and returns its index.
func (a *Alphabet) Add(name string) (int, error) {
	if name == "" {
		return 0, fmt.Errorf("empty symbol name")
	}
	if _, dup := a.index[name]; dup {
		return 0, fmt.Errorf("duplicate symbol %q", name)
	}
	a.index[name] = len(a.names)
	a.names = append(a.names, name)
	return len(a.names) - 1, nil
}

// Size is the number of symbols.
func (a *Alphabet) Size() int { return len(a.names) }

// Name returns the name of symbol i.
func (a *Alphabet) Name(i int) string { return a.names[i] }

// Index returns the index of a named symbol.
func (a *Alphabet) Index(name string) (int, bool) {
	i, ok := a.index[name]
	return i, ok
}

// Names returns a copy of the symbol names in order.
func (a *Alphabet) Names() []string { return append([]string(nil), a.names...) }

// Word converts names to a word, failing on the first unknown name.
func (a *Alphabet) Word(names ...string) (Word, error) {
	w := make(Word, len(names))
	for k, n := range names {
		i, ok := a.index[n]
		if !ok {
			return nil, fmt.Errorf("unknown symbol %q (alphabet: %s)", n, strings.Join(a.names, ", "))
		}
		w[k] = i
	}
	return w, nil
}

// MustWord is Word for literals in code and tests.
func (a *Alphabet) MustWord(names ...string) Word {
	w, err := a.Word(names...)
	if err != nil {
		panic(err)
	}
	return w
}

// Strings converts a word to symbol names.
func (a *Alphabet) Strings(w Word) []string {
	s := make([]string, len(w))
	for k, i := range w {
		s[k] = a.names[i]
	}
	return s
}

// Format renders a word as space-separated names, or "ε" when empty.
func (a *Alphabet) Format(w Word) string {
	if len(w) == 0 {
		return "ε"
	}
	return strings.Join(a.Strings(w), " ")
}

// Equal reports whether two alphabets have the same names in the same order.
func (a *Alphabet) Equal(b *Alphabet) bool {
	if a.Size() != b.Size() {
		return false
	}
	for i, n := range a.names {
		if b.names[i] != n {
			return false
		}
	}
	return true
}

// Word is a sequence of symbol indices over some alphabet.
type Word []int

// Concat returns a fresh word w·v (never aliasing w's backing array).
func (w Word) Concat(v ...int) Word {
	out := make(Word, 0, len(w)+len(v))
	return append(append(out, w...), v...)
}

// Equal reports element-wise equality.
func (w Word) Equal(v Word) bool {
	if len(w) != len(v) {
		return false
	}
	for i := range w {
		if w[i] != v[i] {
			return false
		}
	}
	return true
}

// HasPrefix reports whether p is a prefix of w.
func (w Word) HasPrefix(p Word) bool {
	return len(p) <= len(w) && w[:len(p)].Equal(p)
}

// Key is a compact map key for the word.
func (w Word) Key() string {
	b := make([]byte, 0, 2*len(w))
	for _, s := range w {
		// Symbols beyond 0x7fff do not occur in practice; two bytes keep keys short.
		b = append(b, byte(s>>8), byte(s))
	}
	return string(b)
}
