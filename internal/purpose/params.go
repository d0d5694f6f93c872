package purpose

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// Param is a value a purpose leaves to its user: the address of the
// paired device it connects to, a URL, an account. The purpose declares
// it under parameters and uses it as the literal {param: NAME}; a run
// gives it with --set NAME=VALUE (or DROIDSTAR_SET_NAME), and Bind puts
// the values in before anything is sent to a harness, so that a value
// that differs from machine to machine never ships as a literal that
// looks right and answers err everywhere.
type Param struct {
	Name string
	Doc  string
	// Default is the value when none is given; nil: a run must give one.
	Default *string
	// Kind is what the value is, when droidstar can check it: "" (text)
	// or ParamBluetoothAddress.
	Kind string
	// Pos is where the parameter is declared, where a missing value is
	// reported.
	Pos Pos
}

// ParamBluetoothAddress is the kind of a parameter that is the address
// of a Bluetooth device paired with the phone: Bind refuses a value that
// is no address, and doctor asks the harness whether the phone is paired
// with it, since an unpaired address makes every connect answer err and
// the typestate silently lose its connected states.
const ParamBluetoothAddress = "bluetooth_address"

// ParamEnvPrefix starts the environment variable that gives a parameter
// its value when the command line does not: DROIDSTAR_SET_ADDRESS for
// address, for CI jobs that keep the value in their settings.
const ParamEnvPrefix = "DROIDSTAR_SET_"

// ParamEnv is the environment variable of parameter name.
func ParamEnv(name string) string { return ParamEnvPrefix + strings.ToUpper(name) }

// checkParamName says what is wrong with a parameter's name, or "". Upper
// case is left out so that each name has its own variable (ParamEnv).
func checkParamName(s string) string {
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
		case (r >= '0' && r <= '9' || r == '_') && i > 0:
		default:
			return "use lower-case letters, digits and '_', starting with a letter"
		}
	}
	if s == "" {
		return "must not be empty"
	}
	return ""
}

// checkParamValue says what is wrong with a value for a parameter of
// kind, or "".
func checkParamValue(kind, v string) string {
	if kind == ParamBluetoothAddress && !IsBluetoothAddress(v) {
		return fmt.Sprintf("%s is no Bluetooth address as Android takes one: want six pairs of upper-case hex digits separated by colons, such as 00:11:22:AA:BB:CC", quoteShort(v))
	}
	return ""
}

// IsBluetoothAddress says whether BluetoothAdapter.checkBluetoothAddress
// accepts s: upper-case hex digits only (frameworks/base commit 55e66f1,
// "Reject lowercase characters in checkBluetoothAddress()"), since
// getRemoteDevice throws IllegalArgumentException for any other.
func IsBluetoothAddress(s string) bool {
	if len(s) != 17 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i%3 == 2 {
			if c != ':' {
				return false
			}
			continue
		}
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// paramDecl is a parameter while the file is read: whether a literal used
// it.
type paramDecl struct {
	Param
	used bool
}

// parameters reads the parameters map: NAME: DOC, or NAME: {doc, default}.
func (d *decoder) parameters(p *Purpose, v value) {
	m := d.mapping(v, nil)
	if m == nil {
		return
	}
	for _, f := range m.order {
		if msg := checkParamName(f.key); msg != "" {
			d.errAt(f.keyPos, f.path, "invalid parameter name %s: %s", quoteShort(f.key), msg)
			continue
		}
		decl := &paramDecl{Param: Param{Name: f.key, Pos: f.keyPos}}
		s, isStr := stringValue(f.node)
		_, isMap := f.node.(*ast.MappingNode)
		switch {
		case !f.ok:
		case isStr:
			if strings.TrimSpace(s) == "" {
				d.errAt(f.pos, f.path, "want a description of the value, not an empty string")
			}
			decl.Doc = s
		case isMap || f.null():
			pm := d.mapping(f.value, paramKeys)
			if df := d.req(pm, "doc", "say what the value is, for the message that asks for it"); df != nil {
				decl.Doc, _ = d.str(df.value)
			}
			if kf := pm.opt("kind"); kf != nil {
				switch s, _ := stringValue(kf.value.node); {
				case !kf.value.ok:
				case s == ParamBluetoothAddress:
					decl.Kind = s
				case s != "text":
					d.errAt(kf.pos, kf.path, "want text or %s, got %s", ParamBluetoothAddress, kindOf(kf.value.node))
				}
			}
			if df := pm.opt("default"); df != nil {
				if s, ok := d.str(df.value); ok {
					decl.Default = &s
					if msg := checkParamValue(decl.Kind, s); msg != "" {
						d.errAt(df.pos, df.path, "%s", msg)
					}
				}
			}
		default:
			d.errAt(f.pos, f.path, "want a description of the value, or {doc, default}, got %s", kindOf(f.node))
		}
		d.params[f.key] = decl
		p.Params = append(p.Params, decl.Param)
	}
}

// param reads the NAME of a {param: NAME} literal, which must be declared.
func (d *decoder) param(f *field) string {
	s, ok := d.str(f.value)
	if !ok {
		return ""
	}
	decl := d.params[s]
	switch {
	case decl != nil:
		decl.used = true
	case len(d.params) == 0:
		d.errAt(f.pos, f.path, "no parameter %s is declared: declare it under parameters, with what its value is", quoteShort(s))
	default:
		d.errAt(f.pos, f.path, "no parameter %s is declared (parameters: %s)", quoteShort(s), strings.Join(slices.Sorted(maps.Keys(d.params)), ", "))
	}
	return s
}

// unusedParams reports the parameters no literal uses: a value asked for
// and then dropped would make a user look for a device that changes
// nothing.
func (d *decoder) unusedParams(p *Purpose) {
	for _, prm := range p.Params {
		if decl := d.params[prm.Name]; decl != nil && !decl.used {
			d.errAt(prm.Pos, join("parameters", prm.Name), "parameter %s is declared but no literal uses it: write {param: %s} where its value goes", prm.Name, prm.Name)
		}
	}
}

// ParamNames lists the declared parameters' names in the file's order.
func (p *Purpose) ParamNames() []string {
	names := make([]string, len(p.Params))
	for i, prm := range p.Params {
		names[i] = prm.Name
	}
	return names
}

// Undeclared lists, sorted, the names among given that the purpose
// declares no parameter of: a caller that was told them refuses them.
func (p *Purpose) Undeclared(given map[string]string) []string {
	var out []string
	for name := range given {
		if !slices.Contains(p.ParamNames(), name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// ParamValues gathers the values of the declared parameters: set's (the
// command line's), else the environment's ParamEnv variable when it is
// set and not empty. Names set has that the purpose does not declare are
// left out; defaults are Bind's.
func (p *Purpose) ParamValues(set map[string]string, getenv func(string) string) map[string]string {
	out := map[string]string{}
	for _, prm := range p.Params {
		if v, ok := set[prm.Name]; ok {
			out[prm.Name] = v
		} else if getenv != nil {
			if v := getenv(ParamEnv(prm.Name)); v != "" {
				out[prm.Name] = v
			}
		}
	}
	return out
}

// Unbound says whether the purpose declares parameters whose values Bind
// has not put in yet: such a purpose cannot be sent to a harness.
func (p *Purpose) Unbound() bool { return len(p.Params) > 0 && p.Values == nil }

// Bind returns a copy of the purpose with every {param: NAME} literal
// replaced by the value of NAME: values[NAME], else its default. Every
// parameter left without a value is an error at its declaration, all of
// them at once. The copy's Values records what each parameter got, and
// since the values are in its literals, its Fingerprint (and so the query
// store's key) differs from value to value: two devices' answers are
// never mixed. Names of values the purpose does not declare are ignored
// here (see Undeclared). A purpose without parameters is returned as it
// is.
func (p *Purpose) Bind(values map[string]string) (*Purpose, error) {
	if len(p.Params) == 0 {
		return p, nil
	}
	bound := map[string]string{}
	var errs ErrorList
	for _, prm := range p.Params {
		v, ok := values[prm.Name]
		if !ok && prm.Default != nil {
			v, ok = *prm.Default, true
		}
		if !ok {
			errs = append(errs, &Error{File: p.File, Line: prm.Pos.Line, Col: prm.Pos.Col, Field: join("parameters", prm.Name),
				Msg: fmt.Sprintf("needs a value (%s): give it with --set %s=VALUE, or in the environment as %s", strings.TrimSpace(prm.Doc), prm.Name, ParamEnv(prm.Name))})
			continue
		}
		if msg := checkParamValue(prm.Kind, v); msg != "" {
			errs = append(errs, &Error{File: p.File, Line: prm.Pos.Line, Col: prm.Pos.Col, Field: join("parameters", prm.Name), Msg: msg})
			continue
		}
		bound[prm.Name] = v
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	q := *p
	q.Values = bound
	q.template = p
	sub := func(a Arg) Arg { return substitute(a, bound) }
	subAll := func(args []Arg) []Arg {
		if args == nil {
			return nil
		}
		out := make([]Arg, len(args))
		for i, a := range args {
			out[i] = sub(a)
		}
		return out
	}
	q.Callins = slices.Clone(p.Callins)
	for i := range q.Callins {
		c := &q.Callins[i]
		c.On, c.Args = sub(c.On), subAll(c.Args)
	}
	q.Callbacks = slices.Clone(p.Callbacks)
	for i := range q.Callbacks {
		c := &q.Callbacks[i]
		c.Returns, c.Throws = sub(c.Returns), sub(c.Throws)
	}
	if p.Target != nil {
		t := *p.Target
		t.New = subAll(t.New)
		if t.Factory != nil {
			f := *t.Factory
			f.Args = subAll(f.Args)
			t.Factory = &f
		}
		t.Init = slices.Clone(t.Init)
		for i := range t.Init {
			t.Init[i].Args = subAll(t.Init[i].Args)
		}
		if t.Dispose != nil {
			c := *t.Dispose
			c.Args = subAll(c.Args)
			t.Dispose = &c
		}
		q.Target = &t
	}
	return &q, nil
}

// Unbind is the purpose with its {param: NAME} literals back in place of
// the values Bind put in, and everything else as it is now (a backend
// chosen since): what the query store keys a purpose's content on, with
// the values as a part of their own, so that a run with another value
// says that the parameters differ, not the purpose. A purpose Bind did
// not make is returned as it is.
func (p *Purpose) Unbind() *Purpose {
	if p.template == nil {
		return p
	}
	q := *p
	q.Callins, q.Callbacks, q.Target = p.template.Callins, p.template.Callbacks, p.template.Target
	q.Values, q.template = nil, nil
	return &q
}

// substitute rebuilds a literal with its {param: NAME} literals replaced,
// at any depth ({new: [C, {param: url}]}); the original is left as it is,
// for a matrix's other targets to bind their own values.
func substitute(a Arg, values map[string]string) Arg {
	switch v := a.(type) {
	case map[string]any:
		if name, ok := v["param"].(string); ok && len(v) == 1 {
			return values[name]
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = substitute(x, values)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = substitute(x, values)
		}
		return out
	}
	return a
}
