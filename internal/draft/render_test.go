package draft

import (
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/purpose"
)

// The parts of Render that the three golden drafts (internal/cli) do not
// reach, each pinned by the lines it writes.
func TestRenderCases(t *testing.T) {
	cases := []struct {
		name string
		desc Description
		want []string // lines the draft must hold, in this order
	}{
		{
			name: "a class with a shim: its callbacks, not callins",
			desc: Description{Java: "17", Class: Class{Name: "android.os.CountDownTimer", Kind: "abstract",
				Shim:         []Callback{{"onTick", "void onTick(long)", nil}, {"onFinish", "void onFinish()", nil}},
				Constructors: []Method{{Params: []string{"long", "long"}, Signature: "new android.os.CountDownTimer(long, long)"}},
				Methods:      []Method{{Name: "start", Signature: "android.os.CountDownTimer start()"}}}},
			want: []string{
				"# (read by reflection on Java 17, against android.jar, API 23). It passes `droidstar check` as it is.",
				"  new: [{long: 0}, {long: 0}]           # new android.os.CountDownTimer(long, long) (the harness's shim reports onTick, onFinish)",
				"  - symbol: start                       # android.os.CountDownTimer start()",
				"  - symbol: onTick                      # CountDownTimer (shim): void onTick(long)",
				"  - symbol: onFinish                    # CountDownTimer (shim): void onFinish()",
				"  adb: {}                               # the phone or emulator adb sees",
			},
		},
		{
			name: "no constructor: a factory is chosen",
			desc: Description{Java: "17", Class: Class{Name: "org.example.Pool", Kind: "class",
				Factories: []Method{{Name: "create", Params: []string{"int"}, Signature: "static org.example.Pool create(int)"},
					{Name: "of", Params: []string{"org.example.Pool"}, Signature: "static org.example.Pool of(org.example.Pool)"}},
				Methods: []Method{{Name: "take", Signature: "void take()"}}}},
			want: []string{
				"  factory: {class: org.example.Pool, method: create, args: [{int: 0}]}  # static org.example.Pool create(int)",
				"  # factory: {class: org.example.Pool, method: of, args: [{target: true}]}  # static org.example.Pool of(org.example.Pool)",
				"callbacks: []                           # no listener found: callbacks come from target.listeners",
				"  jvm: {}                               # the harness on this machine's JVM",
			},
		},
		{
			name: "nothing makes an instance: nothing is registered at the reset",
			desc: Description{Java: "17", Class: Class{Name: "org.example.Service", Kind: "interface",
				Methods: []Method{{Name: "start", Signature: "void start()"}},
				Listeners: []Listener{{Type: "org.example.Service$Listener", Register: "setOnEventListener",
					Callbacks: []Callback{{"onEvent", "void onEvent()", nil}}}}}},
			want: []string{
				"  # no public constructor or static factory: a callin with result: target must make the instance",
				"    - type: org.example.Service$Listener  # a proxy: callbacks onEvent",
				"      # register: setOnEventListener    # void setOnEventListener(org.example.Service.Listener)",
			},
		},
		{
			name: "symbols: reserved names, overloads, and a callback named like a callin",
			desc: Description{Java: "17", Class: Class{Name: "org.example.Job", Kind: "class",
				Constructors: []Method{{Signature: "new org.example.Job()"}},
				Methods: []Method{
					{Name: "done", Signature: "boolean done()"},
					{Name: "wait", Params: []string{"char"}, Signature: "void wait(char)"},
					{Name: "put", Params: []string{"byte[]"}, Signature: "void put(byte[])"},
					{Name: "put", Params: []string{"java.lang.String", "java.lang.Object"}, Signature: "void put(String, Object)"},
				},
				Listeners: []Listener{
					{Type: "org.example.Job$A", Register: "addAListener", Callbacks: []Callback{{"done", "void done()", nil}, {"failed", "void failed(int)", nil}}},
					{Type: "org.example.Job$B", Register: "addBListener", Callbacks: []Callback{{"failed", "void failed(String)", nil}}},
				}}},
			want: []string{
				"  - symbol: done                        # boolean done()",
				"  - symbol: wait_2                      # void wait(char)",
				"    call: wait",
				`    args: ["a"]`,
				"  # - symbol: put_byteArray             # void put(byte[])",
				"  #   args: [null]                      # no literal makes byte[]",
				"  - symbol: put_String_Object           # void put(String, Object)",
				`    args: ["text", "text"]`,
				"  - symbol: cb_done                     # A: void done()",
				"    from: [done]",
				"  - symbol: failed                      # A: void failed(int); B: void failed(String)",
			},
		},
	}
	cases = append(cases, struct {
		name string
		desc Description
		want []string
	}{
		name: "an interface no registration names: saying which listener to declare",
		desc: Description{Java: "17", Class: Class{Name: "org.example.Future", Kind: "class",
			Constructors: []Method{{Signature: "new org.example.Future()"}},
			Methods: []Method{{Name: "whenDone", Params: []string{"org.example.Future$Action", "java.util.Date"},
				Signature: "void whenDone(org.example.Future.Action, java.util.Date)"}},
			Interfaces: []Listener{{Type: "org.example.Future$Action", Callbacks: []Callback{{"run", "void run()", nil}}}}}},
		want: []string{
			// the only callin: kept in, saying what it needs
			"  - symbol: whenDone                    # void whenDone(org.example.Future.Action, java.util.Date)",
			"    args: [{listener: org.example.Future$Action}, null]  # declare the listener org.example.Future.Action (callbacks run); no literal makes java.util.Date",
			"callbacks: []                           # no listener found: callbacks come from target.listeners",
		},
	})
	type kase = struct {
		name string
		desc Description
		want []string
	}
	cases = append(cases, kase{
		name: "every literal kind where it fits the parameter, queries commented out, restrictions advised",
		desc: Description{Java: "17", Class: Class{Name: "org.example.Queue", Kind: "class",
			Constructors: []Method{{Signature: "new org.example.Queue()"}},
			Methods: []Method{
				{Name: "fail", Params: []string{"java.lang.Throwable"}, Returns: "void", Signature: "void fail(Throwable)"},
				{Name: "fail", Params: []string{"org.example.Oops"}, Returns: "void", Signature: "void fail(org.example.Oops)"},
				{Name: "getSize", Returns: "int", Signature: "int getSize()"},
				{Name: "getAndClear", Returns: "int", Signature: "int getAndClear()"},
				{Name: "load", Params: []string{"java.io.File", "java.nio.file.Path"}, Returns: "void", Signature: "void load(java.io.File, java.nio.file.Path)"},
				{Name: "offer", Params: []string{"org.example.Item", "long", "java.util.concurrent.TimeUnit"}, Returns: "boolean",
					Signature: "boolean offer(org.example.Item, long, java.util.concurrent.TimeUnit)"},
				{Name: "post", Params: []string{"org.example.Task"}, Returns: "void", Signature: "void post(org.example.Task)"},
				{Name: "use", Params: []string{"java.nio.ByteBuffer", "org.example.Mode"}, Returns: "void", Signature: "void use(java.nio.ByteBuffer, org.example.Mode)"},
			},
			Interfaces: []Listener{{Type: "org.example.Task", Kind: "interface", Callbacks: []Callback{{"run", "void run()", nil}}}},
			Types: map[string]Type{
				"java.util.concurrent.TimeUnit": {Kind: "enum", Constants: []string{"NANOSECONDS", "MICROSECONDS", "MILLISECONDS", "SECONDS", "MINUTES"}},
				"org.example.Mode":              {Kind: "enum", Constants: []string{"FAST", "SLOW"}},
				"org.example.Oops": {Kind: "class", Throwable: true, Constructors: []struct {
					Params []string `json:"params"`
				}{{[]string{"java.lang.String"}}}},
				"org.example.Item": {Kind: "class", Constructors: []struct {
					Params []string `json:"params"`
				}{
					{[]string{"org.example.Item"}}, {[]string{"java.lang.String", "org.example.Mode"}}}},
				"java.nio.ByteBuffer": {Kind: "abstract", Factories: []Method{
					{Name: "wrap", Params: []string{"byte[]"}}, {Name: "allocate", Params: []string{"int"}}}},
			}}},
		want: []string{
			"    - type: org.example.Task            # a proxy: callbacks run",
			"  - symbol: fail_Throwable              # void fail(Throwable)",
			"    args: [{new: [java.lang.IllegalStateException, boom]}]  # any java.lang.Throwable will do",
			"  - symbol: fail_Oops                   # void fail(org.example.Oops)",
			"    args: [{new: [org.example.Oops, boom]}]",
			"  # - symbol: getSize                   # int getSize(): a query, no side effect",
			"  - symbol: getAndClear                 # int getAndClear()",
			"    args: [{file: data.txt}, {path: data.txt}]  # a file of the files directory (files:, or a do: touch)",
			`    args: [{new: [org.example.Item, "text", {constant: org.example.Mode.FAST}]}, {long: 0}, {constant: java.util.concurrent.TimeUnit.MILLISECONDS}]  # FAST: the first (or SLOW); MILLISECONDS: droidstar's timeouts are in ms too (or NANOSECONDS, MICROSECONDS, SECONDS, ...)`,
			"  - symbol: post                        # void post(org.example.Task)",
			"    args: [{listener: org.example.Task}]",
			"    args: [{call: [java.nio.ByteBuffer, allocate, {int: 0}]}, {constant: org.example.Mode.FAST}]  # FAST: the first (or SLOW)",
			"callbacks:",
			"  - symbol: run                         # Task: void run()",
			"# restrictions:                         # offer, post may be called without end: at_most keeps the model finite",
			"#   - {at_most: 2, of: [offer, post]}",
		},
	}, kase{
		name: "an abstract callback class passed to open*: a generated shim, and the object its callback hands out",
		desc: Description{Java: "17", Class: Class{Name: "android.example.Manager", Kind: "class",
			Constructors: []Method{{Signature: "new android.example.Manager()"}},
			Methods: []Method{{Name: "openDevice", Params: []string{"java.lang.String", "android.example.Device$Callback", "android.os.Handler"}, Returns: "void",
				Signature: "void openDevice(String, android.example.Device.Callback, android.os.Handler)"},
				{Name: "setExtras", Params: []string{"java.util.Map"}, Returns: "void", Signature: "void setExtras(java.util.Map)"}},
			Listeners: []Listener{{Type: "android.example.Device$Callback", Kind: "abstract", Callbacks: []Callback{
				{"onClosed", "void onClosed(android.example.Device)", []string{"android.example.Device"}},
				{"onOpened", "void onOpened(android.example.Device)", []string{"android.example.Device"}}}}},
			Types: map[string]Type{"android.example.Device": {Kind: "abstract", Methods: []string{"capture", "close"}},
				// the host JDK's Map.of, which API 23 lacks
				"java.util.Map": {Kind: "interface", Factories: []Method{{Name: "of"}}}}}},
		want: []string{
			"    - type: android.example.Device$Callback  # a generated shim, a subclass: callbacks onClosed, onOpened",
			"  - symbol: openDevice                  # void openDevice(String, android.example.Device.Callback, android.os.Handler)",
			`    args: ["text", {listener: android.example.Device$Callback}, null]  # null: callbacks on the calling thread's Looper`,
			"  # - symbol: setExtras                 # void setExtras(java.util.Map)",
			"  #   args: [null]                      # no literal makes java.util.Map",
			"# onClosed, onOpened hand out android.example.Device (capture, close): a callin on it",
			"#   takes on: {callback: [onOpened, 0]} and call: METHOD (err no-callback until a wait delivered onOpened)",
		},
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := string(Render(&c.desc, nil))
			// The draft is a purpose as it is: nothing for the user to
			// fix before the first check.
			if _, err := purpose.Parse("draft.yaml", []byte(got)); err != nil {
				t.Errorf("the draft does not parse: %v", err)
			}
			rest := got
			for _, w := range c.want {
				i := strings.Index(rest, w+"\n")
				if i < 0 {
					t.Fatalf("no line (or out of order) %q in\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// TestDraftersCoverSchema: init drafts from the purpose schema's <literal>
// rows, so each row is either a kind it drafts or one it says it never
// drafts, and it names no kind the table lacks. A new literal kind fails
// here until init knows what to do with it.
func TestDraftersCoverSchema(t *testing.T) {
	rows := map[string]bool{}
	for _, k := range purpose.Schema() {
		if k.In != "<literal>" {
			continue
		}
		rows[k.Name] = true
		_, drafted := drafters[k.Name]
		_, skipped := notDrafted[k.Name]
		if drafted == skipped {
			t.Errorf("<literal> row %q: drafted %v, not drafted %v: want exactly one", k.Name, drafted, skipped)
		}
	}
	for name := range drafters {
		if !rows[name] {
			t.Errorf("init drafts %q, which is no <literal> row of the schema", name)
		}
	}
	for name := range notDrafted {
		if !rows[name] {
			t.Errorf("init names %q as not drafted, which is no <literal> row of the schema", name)
		}
	}
}
