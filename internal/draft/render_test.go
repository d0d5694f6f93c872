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
				Shim:         []Callback{{"onTick", "void onTick(long)"}, {"onFinish", "void onFinish()"}},
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
					Callbacks: []Callback{{"onEvent", "void onEvent()"}}}}}},
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
					{Type: "org.example.Job$A", Register: "addAListener", Callbacks: []Callback{{"done", "void done()"}, {"failed", "void failed(int)"}}},
					{Type: "org.example.Job$B", Register: "addBListener", Callbacks: []Callback{{"failed", "void failed(String)"}}},
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
			Interfaces: []Listener{{Type: "org.example.Future$Action", Callbacks: []Callback{{"run", "void run()"}}}}}},
		want: []string{
			// the only callin: kept in, saying what it needs
			"  - symbol: whenDone                    # void whenDone(org.example.Future.Action, java.util.Date)",
			"    args: [{listener: org.example.Future$Action}, null]  # declare the listener org.example.Future.Action (callbacks run); no literal makes java.util.Date",
			"callbacks: []                           # no listener found: callbacks come from target.listeners",
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
