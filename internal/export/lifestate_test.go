package export

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
)

// rulesText writes a derivation compactly, one "TRIGGER RULE TARGET" per
// line, then "TRIGGER depends TARGET", "TRIGGER unknown TARGET" and
// "never MESSAGE".
func rulesText(spec *Lifestate) string {
	var lines []string
	for _, r := range spec.Rules {
		lines = append(lines, r.After.String()+" "+r.Rule+" "+r.Target.String())
	}
	for _, p := range spec.Depends {
		lines = append(lines, p.After.String()+" depends "+p.Target.String())
	}
	for _, p := range spec.Unknown {
		lines = append(lines, p.After.String()+" unknown "+p.Target.String())
	}
	for _, m := range spec.Never {
		lines = append(lines, "never "+m.String())
	}
	return strings.Join(lines, "\n")
}

func checkRules(t *testing.T, d *model.Document, want string) {
	t.Helper()
	spec, err := DeriveLifestate(d)
	if err != nil {
		t.Fatal(err)
	}
	want = strings.TrimSpace(strings.ReplaceAll(want, "\t", ""))
	if got := rulesText(spec); got != want {
		t.Errorf("rules:\n%s\nwant:\n%s", got, want)
	}
}

// The rules of the AsyncTask-like fixture, derived by hand from its
// machine. In state (exec / cancel / postexec / cancelled):
//
//	created     allowed allowed  -       -
//	running     thrown  allowed  next    -
//	cancelling  EXCLUDED allowed -       next
//	done        thrown  allowed  -       -
//
// cancel leads to cancelling (from created, running, cancelling) or done
// (from done): exec there is excluded or thrown, so unknown; cancelled is
// next in one and not the other, so it depends on the history.
func TestLifestateAsyncTaskFixture(t *testing.T) {
	checkRules(t, asyncTask(t), `
		init allow ci exec
		init allow ci cancel
		init disable cb postexec
		init disable cb cancelled
		ci exec disallow ci exec
		ci exec allow ci cancel
		ci exec enable cb postexec
		ci exec disable cb cancelled
		ci cancel allow ci cancel
		ci cancel disable cb postexec
		cb postexec disallow ci exec
		cb postexec allow ci cancel
		cb postexec disable cb postexec
		cb postexec disable cb cancelled
		cb cancelled disallow ci exec
		cb cancelled allow ci cancel
		cb cancelled disable cb postexec
		cb cancelled disable cb cancelled
		ci cancel depends cb cancelled
		ci cancel unknown ci exec`)
}

// The SpeechRecognizer-like fixture has a quiet timeout stopping -> idle:
// right after stop or cancel the recognizer is in stopping or, once the
// timeout passed, in idle, with no message in between, so a rule must hold
// in both. In state (start / stop / cancel / ready / finished):
//
//	idle       allowed  thrown   allowed  -     -
//	starting   thrown   allowed  allowed  next  -
//	listening  thrown   allowed  allowed  -     next
//	stopping   EXCLUDED allowed  allowed  -     -
func TestLifestateQuietTimeout(t *testing.T) {
	checkRules(t, recognizer(t), `
		init allow ci start
		init disallow ci stop
		init allow ci cancel
		init disable cb ready
		init disable cb finished
		ci start disallow ci start
		ci start allow ci stop
		ci start allow ci cancel
		ci start enable cb ready
		ci start disable cb finished
		ci stop allow ci cancel
		ci stop disable cb ready
		ci stop disable cb finished
		ci cancel allow ci cancel
		ci cancel disable cb ready
		ci cancel disable cb finished
		cb ready disallow ci start
		cb ready allow ci stop
		cb ready allow ci cancel
		cb ready disable cb ready
		cb ready enable cb finished
		cb finished allow ci start
		cb finished disallow ci stop
		cb finished allow ci cancel
		cb finished disable cb ready
		cb finished disable cb finished
		ci stop depends ci stop
		ci cancel depends ci stop
		ci stop unknown ci start
		ci cancel unknown ci start`)
}

// A callback the typestate never delivers triggers nothing, and an error
// callback disables the others.
func TestLifestateNeverAndErrorCallback(t *testing.T) {
	in, out, err := mealy.ClosureAlphabets([]string{"open"}, []string{"opened", "failed"})
	if err != nil {
		t.Fatal(err)
	}
	const open, wait = 0, 1
	const ok, quiet, errO, opened = 0, 1, 2, 3
	m := mealy.NewMachine(in, out, 4)
	m.SetTransition(0, open, ok, 1)
	m.SetTransition(0, wait, quiet, 0)
	m.SetTransition(1, open, errO, 3)
	m.SetTransition(1, wait, opened, 2)
	m.SetTransition(2, open, errO, 3)
	m.SetTransition(2, wait, errO, 3) // an error callback fires
	for i := 0; i < 2; i++ {
		m.SetTransition(3, i, errO, 3)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	d := model.FromMachine("Opener", model.SemanticsClosure, m, func(q, i int) *model.ErrInfo {
		if i == wait {
			return &model.ErrInfo{Kind: model.ErrErrorCallback, Detail: "onError"}
		}
		return &model.ErrInfo{Kind: model.ErrThrown}
	})
	checkRules(t, d, `
		init allow ci open
		init disable cb opened
		init disable cb failed
		ci open disallow ci open
		ci open enable cb opened
		ci open disable cb failed
		cb opened disallow ci open
		cb opened disable cb opened
		cb opened disable cb failed
		never cb failed`)
	text, err := LifestateText(d)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "\n# never happen in the typestate: cb failed\n") {
		t.Errorf("text:\n%s", text)
	}
}

func TestLifestateGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		doc  func(*testing.T) *model.Document
	}{{"asynctask", asyncTask}, {"recognizer", recognizer}} {
		t.Run(c.name, func(t *testing.T) {
			d := c.doc(t)
			text, err := LifestateText(d)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, c.name+".lifestate.txt", text)
			data, err := LifestateJSON(d)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, c.name+".lifestate.json", data)
			var back Lifestate
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			spec, _ := DeriveLifestate(d)
			if rulesText(&back) != rulesText(spec) || back.Format != LifestateFormat || back.Version != 1 {
				t.Errorf("JSON does not round-trip")
			}
			// Every rule line of the text is one rule.
			n := 0
			for _, l := range strings.Split(string(text), "\n") {
				if l != "" && !strings.HasPrefix(l, "#") {
					n++
					if f := strings.Fields(l); len(f) != 5 && (len(f) != 4 || f[0] != "init") {
						t.Errorf("rule line %q", l)
					}
				}
			}
			if n != len(spec.Rules) {
				t.Errorf("%d rule lines, %d rules", n, len(spec.Rules))
			}
		})
	}
	if _, err := LifestateText(plainMealy(t)); err == nil || !strings.Contains(err.Error(), "callback typestates") {
		t.Errorf("plain Mealy model: %v", err)
	}
}

// The learned AsyncTask example, checked by hand against its typestate
// (s0 -exec-> s1 -postexec-> s5, s0 -cancel-> s2, s1 -cancel-> s4,
// s2 -exec-> s4, s2/s4 -cancelled-> s5; exec throws in s1, s4, s5): exec
// disallows itself (the paper's example), cancel disables postexec, and
// whether postexec follows exec depends on whether cancel came first.
func TestLifestateAsyncTaskExample(t *testing.T) {
	docs, err := exampleDocs()
	if err != nil {
		t.Fatal(err)
	}
	checkRules(t, docs["asynctask"], `
		init allow ci exec
		init allow ci cancel
		init disable cb postexec
		init disable cb cancelled
		ci exec disallow ci exec
		ci exec allow ci cancel
		ci cancel allow ci cancel
		ci cancel disable cb postexec
		cb postexec disallow ci exec
		cb postexec allow ci cancel
		cb postexec disable cb postexec
		cb postexec disable cb cancelled
		cb cancelled disallow ci exec
		cb cancelled allow ci cancel
		cb cancelled disable cb postexec
		cb cancelled disable cb cancelled
		ci exec depends cb postexec
		ci exec depends cb cancelled
		ci cancel depends ci exec
		ci cancel depends cb cancelled`)
}
