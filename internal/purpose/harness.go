package purpose

// The harness part of a purpose: what the generic Java query runner makes,
// calls and listens to. The sim backend ignores it (but it is still
// checked); the jvm and adb backends send it to the harness, which resolves
// it by reflection (harness-apk/PROTOCOL.md).

// The Go types below marshal to JSON under the purpose file's own field
// names, in the long form of each field: that JSON is the purpose object of
// the harness's configure request (harness-apk/PROTOCOL.md), so that every
// path the harness names in an error is the path of a purpose field.

// Target says how the harness makes, wires and disposes of a fresh instance
// for every query (the reset).
type Target struct {
	// New holds constructor arguments; nil with Factory nil means the
	// no-argument constructor (or the shim's).
	New     []Arg    `json:"new,omitempty"`
	Factory *Factory `json:"factory,omitempty"`
	// Shim holds options for the built-in shims (sleep_ms, ...).
	Shim      map[string]string `json:"shim,omitempty"`
	Listeners []Listener        `json:"listeners,omitempty"`
	Init      []Call            `json:"init,omitempty"`
	Dispose   *Call             `json:"dispose,omitempty"`
}

// Listener is a callback object made fresh for every query: an interface
// implemented by a proxy, or a class with a shim. Register, when set, is
// the instance method that takes it.
type Listener struct {
	Type     string `json:"type"`
	Register string `json:"register,omitempty"`
	// Name tells the listener from others of its type: {listener: NAME}
	// refers to it, and its calls are reported as NAME.METHOD.
	Name string `json:"name,omitempty"`
}

// Factory is a static method that makes the instance. Class defaults to
// the purpose's class (the harness fills it in).
type Factory struct {
	Class  string `json:"class,omitempty"`
	Method string `json:"method"`
	Args   []Arg  `json:"args,omitempty"`
}

// Call is a method call on the instance with literal arguments (init,
// dispose); a bare method name in the file is its short form.
type Call struct {
	Method string `json:"call"`
	Args   []Arg  `json:"args,omitempty"`
}

// Arg is an argument literal in its wire form (PROTOCOL.md): a string,
// int64, float64, bool, nil, or a one-key map such as {"file": "a.txt"}.
type Arg = any

// Action is an environment action of the harness (PROTOCOL.md), shaped as
// in the file: exactly one field is set.
type Action struct {
	Write  *WriteAction  `json:"write,omitempty"`
	Append *WriteAction  `json:"append,omitempty"`
	Delete string        `json:"delete,omitempty"`
	Touch  string        `json:"touch,omitempty"`
	SQLite *SQLiteAction `json:"sqlite,omitempty"`
	// Sleep is in milliseconds, the harness's unit (the file writes a
	// duration).
	Sleep *int64 `json:"sleep,omitempty"`
}

// WriteAction is the argument of write and append.
type WriteAction struct {
	File    string `json:"file"`
	Content string `json:"content"`
}

// SQLiteAction is the argument of sqlite: an empty database whose
// user_version is Version.
type SQLiteAction struct {
	File    string `json:"file"`
	Version int    `json:"version"`
}

// File is a host file pushed to the harness's files directory once per
// session, under Name.
type File struct {
	Name string `json:"name"`
	// From is the path as written; Path is resolved against the purpose.
	From string `json:"from"`
	Path string `json:"-"`
	Pos  Pos    `json:"-"`
}

// where remembers the position of a harness field, so that an error the
// harness reports about it (by path) points at the purpose's line.
func (d *decoder) where(p *Purpose, v value) {
	if p.Where == nil {
		p.Where = map[string]Pos{}
	}
	p.Where[v.path] = v.pos
}
