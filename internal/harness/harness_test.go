package harness

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/query"
)

func loadTimer(t *testing.T) *purpose.Purpose {
	t.Helper()
	p, err := purpose.Load(filepath.Join("..", "..", "testdata", "purposes", "harness", "timer.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConfigure pins the configure request a purpose becomes: it is the
// contract with the Java harness (PROTOCOL.md), so every byte matters. The
// fields are the purpose file's, in their long forms (the bare callin
// cancel calls cancel, the bare init purge is {call: purge}).
func TestConfigure(t *testing.T) {
	p := loadTimer(t)
	data, err := json.Marshal(Configure(p).Request)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"Timer","class":"java.util.Timer",` +
		`"target":{"new":[true],"shim":{"fail":"false","sleep_ms":"200"},"listeners":[{"type":"java.util.TimerTask"}],` +
		`"init":[{"call":"purge"}],"dispose":{"call":"cancel"}},` +
		`"setup":[{"delete":"watched.txt"},{"sqlite":{"file":"db/app.db","version":2}}],` +
		`"callins":[` +
		`{"symbol":"schedule","call":"schedule","args":[{"listener":"java.util.TimerTask"},100]},` +
		`{"symbol":"cancel","call":"cancel"},` +
		`{"symbol":"taskcancel","call":"cancel","on":{"listener":"java.util.TimerTask"}},` +
		`{"symbol":"touch","do":[{"write":{"file":"watched.txt","content":"hello"}},{"sleep":10}]},` +
		`{"symbol":"flags","call":"schedule","args":[{"constant":["a.B.C","a.B.D"]},{"long":5},{"double":1},2.5,null,"s",{"file":"other.bin"},{"target":true}]},` +
		`{"symbol":"purged","call":"purge","error_if":-1},` +
		`{"symbol":"renewed","call":"next","on":{"constant":"a.B.TIMERS"},"result":"target","error_if":null}],` +
		`"callbacks":[{"symbol":"ran","from":["run"]},{"symbol":"failed","from":["onError/IO","onError/TIMEOUT"],"error":true},` +
		`{"symbol":"broke","from":["onError/ENV/1"],"error":"environment"}],` +
		`"details":{"onError":[{"arg":0,"extra":"kind"},{"arg":1,"call":"getMessage"}]},` +
		`"timeouts":{"quiescence":300,"settle":100,"post_reset":50},` +
		`"jars":["jars/extra.jar"],"adapters":["org.example.Adapter"]}`
	if string(data) != want {
		t.Errorf("configure request:\n got %s\nwant %s", data, want)
	}
}

// A purpose's timeouts are rounded up to whole milliseconds in configure,
// as a run's own are: a wait calibrated up to the purpose's timeout then
// asks for no more than configure allowed (the harness refuses more).
func TestConfigureRoundsTimeoutsUp(t *testing.T) {
	p := loadTimer(t)
	p.Timeouts.Quiescence = 299500 * time.Microsecond
	p.Timeouts.Settle = 100*time.Millisecond + 1
	p.Timeouts.PostReset = 0
	got := Configure(p).Request.Timeouts
	if want := (Timeouts{Quiescence: 300, Settle: 101, PostReset: 0}); got != want {
		t.Errorf("timeouts %+v, want %+v", got, want)
	}
	rt, err := Quiet{Quiescence: -1, Waits: func([]string) []time.Duration {
		return []time.Duration{p.Timeouts.Quiescence}
	}}.For([][]string{{"wait"}})
	if err != nil {
		t.Fatal(err)
	}
	if w := rt.waits[0][0]; w.Milliseconds() != got.Quiescence {
		t.Errorf("the ceiling's wait asks %v, configure said %d ms", w, got.Quiescence)
	}
}

// TestPurposeError checks that a complaint about a field of the configure
// request lands on the purpose line that wrote the field, under the same
// path: the request's paths are the purpose's.
func TestPurposeError(t *testing.T) {
	p := loadTimer(t)
	c := Configure(p)
	file := p.File
	cases := []struct{ where, want string }{
		{"class", file + ":3:8: class: boom"},
		{"target.new[0]", file + ":5:9: target.new[0]: boom"},
		{"target.new", file + ":5:8: target.new: boom"},
		{"target.shim.sleep_ms", file + ":6:20: target.shim.sleep_ms: boom"},
		{"target.listeners[0].type", file + ":8:13: target.listeners[0].type: boom"},
		// The file wrote the short form purge: the item is the call.
		{"target.init[0].call", file + ":10:7: target.init[0].call: boom"},
		{"target.dispose.call", file + ":11:19: target.dispose.call: boom"},
		{"setup[0].delete", file + ":13:13: setup[0].delete: boom"},
		{"setup[1].sqlite.version", file + ":14:40: setup[1].sqlite.version: boom"},
		{"setup[1]", file + ":14:5: setup[1]: boom"},
		{"callins[0].call", file + ":23:11: callins[0].call: boom"},
		{"callins[0].args[1]", file + ":24:45: callins[0].args[1]: boom"},
		// A bare callin's call is filled in by the host: its item.
		{"callins[1].call", file + ":25:5: callins[1].call: boom"},
		{"callins[2].on", file + ":28:9: callins[2].on: boom"},
		{"callins[3].do[0].write.content", file + ":31:45: callins[3].do[0].write.content: boom"},
		{"callins[3].do[1].sleep", file + ":32:16: callins[3].do[1].sleep: boom"},
		{"callins[4].args[0].constant[1]", file + ":35:31: callins[4].args[0].constant[1]: boom"},
		{"callins[5].error_if", file + ":38:15: callins[5].error_if: boom"},
		{"callins[6].result", file + ":42:13: callins[6].result: boom"},
		// A null has no text of its own: its key.
		{"callins[6].error_if", file + ":43:5: callins[6].error_if: boom"},
		{"callbacks[0].from[0]", file + ":46:12: callbacks[0].from[0]: boom"},
		{"callbacks[1].from[1]", file + ":48:24: callbacks[1].from[1]: boom"},
		{"callbacks[1].error", file + ":49:12: callbacks[1].error: boom"},
		{"callbacks[2].error", file + ":52:12: callbacks[2].error: boom"},
		// The harness names a detail method by its path, and a part by its
		// index also when the file wrote a single part.
		{"details.onError", file + ":54:3: details.onError: boom"},
		{"details.onError[0].extra", file + ":54:21: details.onError[0].extra: boom"},
		{"details.onError[1].arg", file + ":54:34: details.onError[1].arg: boom"},
		{"details.onError[1].call", file + ":54:43: details.onError[1].call: boom"},
		// A part's arg the file left out: the part.
		{"details.onError[0].arg", file + ":54:13: details.onError[0].arg: boom"},
		{"timeouts.quiescence", file + ":56:15: timeouts.quiescence: boom"},
		// Defaults the file did not write: the enclosing field.
		{"timeouts.settle", file + ":56:3: timeouts.settle: boom"},
		{"jars[0]", file + ":19:8: jars[0]: boom"},
		{"adapters[0]", file + ":20:12: adapters[0]: boom"},
		{"", file + ":1:1: boom"},
	}
	for _, tc := range cases {
		err := c.PurposeError(&RemoteError{Code: "unknown-method", Where: tc.where, Message: "boom"})
		if err.Error() != tc.want {
			t.Errorf("where %q:\n got %s\nwant %s", tc.where, err, tc.want)
		}
	}
}

// Every field of the request is a purpose field the file wrote, or sits
// inside one: a complaint about any of them lands on a line of the file,
// under the request's own path.
func TestEveryRequestPathIsAPurposeLine(t *testing.T) {
	p := loadTimer(t)
	c := Configure(p)
	data, err := json.Marshal(c.Request)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	var paths []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		if path != "" {
			paths = append(paths, path)
		}
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if path == "" {
					walk(k, e)
				} else {
					walk(path+"."+k, e)
				}
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		}
	}
	walk("", v)
	if len(paths) < 60 {
		t.Fatalf("walked only %d paths", len(paths))
	}
	for _, path := range paths {
		err := c.PurposeError(&RemoteError{Where: path, Message: "m"})
		var list purpose.ErrorList
		if !errors.As(err, &list) || len(list) != 1 || list[0].Field != path {
			t.Errorf("%s: %v", path, err)
			continue
		}
		// name is required and always written; 1:1 is the fallback.
		if e := list[0]; e.Line == 1 && e.Col == 1 {
			t.Errorf("%s: no line of the purpose: %v", path, err)
		}
	}
}

// fakeHarness answers requests from script, one reply line per request,
// and records the requests.
type fakeHarness struct {
	conn     net.Conn
	requests []map[string]any
}

func startFake(t *testing.T, replies ...func(req map[string]any) string) (*Client, *fakeHarness) {
	t.Helper()
	host, dev := net.Pipe()
	f := &fakeHarness{conn: dev}
	go func() {
		defer dev.Close()
		rd := bufio.NewReader(dev)
		for _, reply := range replies {
			line, err := rd.ReadBytes('\n')
			if err != nil {
				return
			}
			var req map[string]any
			if err := json.Unmarshal(line, &req); err != nil {
				return
			}
			f.requests = append(f.requests, req)
			out := reply(req)
			if out == "" {
				return // hang up
			}
			if _, err := io.WriteString(dev, out+"\n"); err != nil {
				return
			}
		}
	}()
	c := NewClient(host, "harness test")
	t.Cleanup(func() { c.Close() })
	return c, f
}

func reply(format string) func(map[string]any) string {
	return func(req map[string]any) string {
		return fmt.Sprintf(format, int64(req["id"].(float64)))
	}
}

func TestClientConversation(t *testing.T) {
	ctx := context.Background()
	c, f := startFake(t,
		reply(`{"id":%d,"ok":true,"protocol":2,"harness":"0.2.0","platform":"jvm","sdk":0,"release":"17.0.15","model":"OpenJDK 64-Bit Server VM","manufacturer":"Debian"}`),
		reply(`{"id":%d,"ok":true,"callins":["schedule"],"callbacks":["run"],"shims":[]}`),
		reply(`{"id":%d,"ok":true,"results":[{"outputs":["ok","run"],"ms":[0.1,100],"device_ms":250.5,"stragglers":0,"ignored":0,"violations":[]},`+
			`{"outputs":["ok","err"],"ms":[0.1,0.2],"device_ms":150,"stragglers":1,"ignored":0,"violations":[{"kind":"between-callins","at":1,"callback":"run"}],"err":{"at":1,"kind":"thrown","exception":"java.lang.IllegalStateException","message":"Task already scheduled or cancelled"}}]}`),
		reply(`{"id":%d,"ok":true}`),
	)
	h, err := c.Hello(ctx, "droidstar test")
	if err != nil {
		t.Fatal(err)
	}
	if h.Platform != "jvm" || h.Release != "17.0.15" || h.Protocol != 2 {
		t.Errorf("hello = %+v", h)
	}
	if _, err := c.Configure(ctx, Configure(loadTimer(t))); err != nil {
		t.Fatal(err)
	}
	queries := [][]string{{"schedule", "wait"}, {"schedule", "schedule", "wait"}}
	rs, err := c.Run(ctx, queries)
	if err != nil {
		t.Fatal(err)
	}
	r0, err := ToResult(queries[0], rs[0])
	if err != nil || strings.Join(r0.Outputs, " ") != "ok run" || r0.Device.Milliseconds() != 250 || r0.Err != nil || len(r0.Warnings) != 0 {
		t.Errorf("result 0 = %+v, %v", r0, err)
	}
	r1, err := ToResult(queries[1], rs[1])
	if err != nil {
		t.Fatal(err)
	}
	wantTiming := []query.Timing{{Kind: "between-callins", At: 1, Callback: "run"}}
	if strings.Join(r1.Outputs, " ") != "ok err" || r1.Err == nil || r1.Err.Kind != "thrown" ||
		r1.Err.Detail != "java.lang.IllegalStateException: Task already scheduled or cancelled" ||
		!reflect.DeepEqual(r1.Timing, wantTiming) || r1.Stragglers != 1 || len(r1.Warnings) != 0 {
		t.Errorf("result 1 = %+v (err %+v)", r1, r1.Err)
	}
	if err := c.Bye(ctx); err != nil {
		t.Fatal(err)
	}
	ops := []string{}
	for _, r := range f.requests {
		ops = append(ops, fmt.Sprintf("%v %v", r["id"], r["op"]))
	}
	if got := strings.Join(ops, ","); got != "1 hello,2 configure,3 run,4 bye" {
		t.Errorf("requests = %s", got)
	}
	if q := f.requests[2]["queries"]; fmt.Sprint(q) != "[[schedule wait] [schedule schedule wait]]" {
		t.Errorf("run queries = %v", q)
	}
}

func TestClientErrors(t *testing.T) {
	ctx := context.Background()
	t.Run("configure error at the purpose line", func(t *testing.T) {
		c, _ := startFake(t, reply(`{"id":%d,"ok":false,"error":{"code":"unknown-method","where":"callins[0].call","message":"class java.util.Timer has no method schedule(TimerTask, int, int)"}}`))
		p := loadTimer(t)
		_, err := c.Configure(ctx, Configure(p))
		want := p.File + ":23:11: callins[0].call: class java.util.Timer has no method schedule(TimerTask, int, int)"
		var list purpose.ErrorList
		if !errors.As(err, &list) || err.Error() != want {
			t.Errorf("got %v\nwant %s", err, want)
		}
	})
	t.Run("run error names the op", func(t *testing.T) {
		c, _ := startFake(t, reply(`{"id":%d,"ok":false,"error":{"code":"unknown-symbol","message":"no callin \"x\""}}`))
		_, err := c.Run(ctx, [][]string{{"x"}})
		if err == nil || err.Error() != `harness refused run: no callin "x" (unknown-symbol)` {
			t.Errorf("got %v", err)
		}
	})
	t.Run("harness hangs up", func(t *testing.T) {
		c, _ := startFake(t, func(map[string]any) string { return "" })
		_, err := c.Run(ctx, [][]string{{"x"}})
		if !errors.Is(err, ErrClosed) || err.Error() != "harness test: run: the harness closed the connection" {
			t.Errorf("got %v", err)
		}
	})
	t.Run("reply with another id", func(t *testing.T) {
		c, _ := startFake(t, func(map[string]any) string { return `{"id":99,"ok":true}` })
		err := c.Bye(ctx)
		if err == nil || err.Error() != `harness test: bye: reply has id 99, want 1: {"id":99,"ok":true}` {
			t.Errorf("got %v", err)
		}
	})
	t.Run("not JSON", func(t *testing.T) {
		c, _ := startFake(t, func(map[string]any) string { return `Exception in thread "main"` })
		err := c.Bye(ctx)
		if err == nil || !strings.HasPrefix(err.Error(), "harness test: bye: reply is not protocol JSON: ") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("wrong protocol", func(t *testing.T) {
		c, _ := startFake(t, reply(`{"id":%d,"ok":true,"protocol":1,"harness":"0.1.0"}`))
		_, err := c.Hello(ctx, "t")
		if err == nil || err.Error() != "harness test: the harness speaks protocol 1, this droidstar speaks 2: install the harness that comes with it" {
			t.Errorf("got %v", err)
		}
	})
	t.Run("too few outputs", func(t *testing.T) {
		c, _ := startFake(t, reply(`{"id":%d,"ok":true,"results":[{"outputs":[]}]}`))
		_, err := c.Run(ctx, [][]string{{"a", "b"}})
		if err == nil || err.Error() != "harness test: run: 0 outputs for query of 2 symbols" {
			t.Errorf("got %v", err)
		}
	})
	t.Run("cancelled while waiting", func(t *testing.T) {
		block := make(chan struct{})
		c, _ := startFake(t, func(map[string]any) string { <-block; return "" })
		defer close(block)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := c.Run(cctx, [][]string{{"a"}})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("reset failure stops learning", func(t *testing.T) {
		_, err := ToResult([]string{"a"}, QueryResult{Outputs: []string{"err"}, Err: &QueryErr{At: 0, Kind: "reset", Exception: "java.lang.InstantiationException", Message: "abstract"}})
		var re *ResetError
		if !errors.As(err, &re) || err.Error() != "the reset failed (making or wiring a fresh instance): java.lang.InstantiationException: abstract" {
			t.Errorf("got %v", err)
		}
	})
	t.Run("error callback keeps its name", func(t *testing.T) {
		r, err := ToResult([]string{"a", "wait"}, QueryResult{Outputs: []string{"ok", "err"}, Err: &QueryErr{At: 1, Kind: "error-callback", Callback: "onError/IO"}})
		if err != nil || strings.Join(r.Outputs, " ") != "ok onError/IO" || r.Err != nil {
			t.Errorf("got %+v, %v", r, err)
		}
	})
	// An environment callback is handed on by name too: the mapper knows
	// it for what it is, whatever backend reported it.
	t.Run("environment callback keeps its name", func(t *testing.T) {
		var q QueryResult
		line := `{"outputs":["ok","err"],"ms":[1.0,2.0],"device_ms":3.0,"stragglers":0,"ignored":0,"violations":[],"err":{"at":1,"kind":"environment","callback":"onError/9"}}`
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			t.Fatal(err)
		}
		r, err := ToResult([]string{"start", "wait"}, q)
		if err != nil || strings.Join(r.Outputs, " ") != "ok onError/9" || r.Err != nil {
			t.Errorf("got %+v, %v", r, err)
		}
	})
	// A result that error_if counts as err is explained by the value.
	t.Run("returned value", func(t *testing.T) {
		for _, c := range []struct{ value, detail string }{
			{"false", "returned false"}, {"-1", "returned -1"}, {"null", "returned null"}, {`"none"`, `returned "none"`},
		} {
			var q QueryResult
			line := `{"outputs":["ok","err"],"ms":[1.0,2.0],"device_ms":3.0,"stragglers":0,"ignored":0,"violations":[],"err":{"at":1,"kind":"returned","value":` + c.value + `}}`
			if err := json.Unmarshal([]byte(line), &q); err != nil {
				t.Fatal(err)
			}
			r, err := ToResult([]string{"disable", "enable"}, q)
			if err != nil || strings.Join(r.Outputs, " ") != "ok err" || r.Err == nil || r.Err.Kind != model.ErrReturned || r.Err.Detail != c.detail {
				t.Errorf("value %s: got %+v (err %+v), %v", c.value, r, r.Err, err)
			}
		}
	})
	// A callin that needs a callback no wait delivered is err of its own
	// kind, explained by the harness's message, never a thrown exception.
	t.Run("no callback", func(t *testing.T) {
		var q QueryResult
		line := `{"outputs":["err"],"ms":[1.0],"device_ms":3.0,"stragglers":0,"ignored":0,"violations":[],"err":{"at":0,"kind":"no-callback","callback":"onSubscribe","message":"needs argument 0 of onSubscribe, which no wait of this query has delivered"}}`
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			t.Fatal(err)
		}
		r, err := ToResult([]string{"request"}, q)
		want := model.ErrInfo{Kind: model.ErrNoCallback, Detail: "needs argument 0 of onSubscribe, which no wait of this query has delivered"}
		if err != nil || strings.Join(r.Outputs, " ") != "err" || r.Err == nil || *r.Err != want {
			t.Errorf("got %+v (err %+v), %v", r, r.Err, err)
		}
	})
}

// PROTOCOL.md's configure example is the request of examples/jvm/timer.yaml,
// byte for byte, so that the document shows what the host sends.
func TestProtocolDocExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "harness-apk", "PROTOCOL.md"))
	if err != nil {
		t.Fatal(err)
	}
	var example string
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, `{"id":2,"op":"configure",`) {
			example = line
		}
	}
	p, err := purpose.Load(filepath.Join("..", "..", "examples", "jvm", "timer.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(map[string]any{"id": 2, "op": "configure", "purpose": Configure(p).Request})
	if err != nil {
		t.Fatal(err)
	}
	if example != string(data) {
		t.Errorf("PROTOCOL.md's configure example:\n%s\nthe request of %s:\n%s", example, p.File, data)
	}
}

// TestClientWedged: a run the harness stopped because a call on its main
// thread timed out returns the results before the wedged query and a
// *WedgedError saying which query and why; a dispose that timed out keeps
// its query's result; a run refused by a wedged harness says so too.
func TestClientWedged(t *testing.T) {
	ctx := context.Background()
	const why = "callin jam did not return within 10000 ms on the main thread, which is still blocked: this harness runs no more queries (restart it)"
	ok := `{"outputs":["ok","run"],"ms":[0.1,1],"device_ms":2,"stragglers":0,"ignored":0,"violations":[]}`
	timedOut := `{"outputs":["ok","err"],"ms":[0.1,10000],"device_ms":10001,"stragglers":0,"ignored":0,"violations":[],"err":{"at":1,"kind":"timeout","message":"callin jam did not return within 10000 ms on the main thread"}}`
	queries := [][]string{{"schedule", "wait"}, {"schedule", "jam"}, {"schedule"}}
	cases := []struct {
		name, reply string
		results     int
		want        WedgedError
		msg         string
	}{
		{"a callin timed out", `{"id":%d,"ok":true,"results":[` + ok + `,` + timedOut + `],"wedged":"` + why + `"}`, 1,
			WedgedError{Query: 1, Timeout: &QueryErr{At: 1, Kind: "timeout", Message: "callin jam did not return within 10000 ms on the main thread"}, Reason: why},
			"the harness timed out: callin jam did not return within 10000 ms on the main thread"},
		{"dispose timed out", `{"id":%d,"ok":true,"results":[` + ok + `],"wedged":"dispose x did not return"}`, 1,
			WedgedError{Query: 0, Reason: "dispose x did not return"}, "the harness is wedged: dispose x did not return"},
		{"wedged before", `{"id":%d,"ok":false,"error":{"code":"wedged","message":"` + why + `"}}`, 0,
			WedgedError{Query: -1, Reason: why}, "the harness is wedged: " + why},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client, _ := startFake(t, reply(c.reply))
			rs, err := client.Run(ctx, queries)
			var w *WedgedError
			if !errors.As(err, &w) || !reflect.DeepEqual(*w, c.want) || err.Error() != c.msg || len(rs) != c.results {
				t.Errorf("got %d results, %v (%+v), want %d, %+v: %s", len(rs), err, w, c.results, c.want, c.msg)
			}
		})
	}
	t.Run("a timeout err without wedged breaks the protocol", func(t *testing.T) {
		_, err := ToResult([]string{"jam"}, QueryResult{Outputs: []string{"err"}, Err: &QueryErr{At: 0, Kind: "timeout", Message: "callin jam did not return"}})
		if err == nil || err.Error() != "the harness timed out: callin jam did not return" {
			t.Errorf("got %v", err)
		}
	})
}

func TestMainThreadTimeout(t *testing.T) {
	for q, want := range map[time.Duration]time.Duration{0: 10 * time.Second, 20 * time.Millisecond: 10 * time.Second,
		time.Second: 10 * time.Second, 1001 * time.Millisecond: 10010 * time.Millisecond, 8 * time.Second: 80 * time.Second} {
		if got := MainThreadTimeout(q); got != want {
			t.Errorf("MainThreadTimeout(%s) = %s, want %s (QueryRunner.mainThreadTimeoutMs)", q, got, want)
		}
	}
}

// The configure request carries the SHA-256 of each jar the host stages,
// index for index, so the harness loads no jar changed since; a jar that
// cannot be read sends none (staging it fails first, at its line).
func TestConfigureSendsJarDigests(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jar"), filepath.Join(dir, "b.jar")
	if err := os.WriteFile(a, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p := &purpose.Purpose{Name: "X", Class: "x.X", Jars: []purpose.File{{Name: "a.jar", Path: a}, {Name: "b.jar", Path: b}}}
	r := Configure(p).Request
	want := []string{
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	}
	if !slices.Equal(r.Jars, []string{"jars/a.jar", "jars/b.jar"}) || !slices.Equal(r.JarSHA256, want) {
		t.Errorf("jars %q, digests %q", r.Jars, r.JarSHA256)
	}
	p.Jars[1].Path = filepath.Join(dir, "missing.jar")
	if r := Configure(p).Request; r.JarSHA256 != nil {
		t.Errorf("digests with a jar missing: %q", r.JarSHA256)
	}
}

// Violations become data, a late one with which wait answered quiet too
// soon and which callback came; the protocol does not say when (After 0).
// The warnings are the scheduler's, from this data.
func TestToResultLateViolations(t *testing.T) {
	r := QueryResult{Outputs: []string{"ok", "quiet"}, Ms: []float64{0, 500}, DeviceMs: 650,
		Violations: []Violation{{Kind: "between-callins", At: 1, Callback: "run"}, {Kind: "late", At: 1, Callback: "run"}}}
	res, err := ToResult([]string{"schedule", "wait"}, r)
	if err != nil {
		t.Fatal(err)
	}
	want := []query.Timing{{Kind: "between-callins", At: 1, Callback: "run"}, {Kind: "late", At: 1, Callback: "run"}}
	if !slices.Equal(res.Timing, want) || len(res.Warnings) != 0 {
		t.Errorf("timing %v, warnings %q; want timing %v and no warnings", res.Timing, res.Warnings, want)
	}
}

// A run under timeouts of its own carries them in whole milliseconds,
// rounded up: the run's "quiescence", and with per-wait timeouts a
// "waits" array per query, a wait without one of its own taking the
// run's; the results say what each wait ran under.
func TestRunUnderOwnTimeouts(t *testing.T) {
	const ms = time.Millisecond
	ctx := context.Background()
	ok := reply(`{"id":%d,"ok":true,"results":[{"outputs":["ok","quiet","quiet"],"ms":[0.1,40,0],"device_ms":50,"stragglers":0,"ignored":0,"violations":[]},` +
		`{"outputs":["quiet"],"ms":[300],"device_ms":310,"stragglers":0,"ignored":0,"violations":[]}]}`)
	c, f := startFake(t, ok, ok)
	queries := [][]string{{"schedule", "wait", "wait"}, {"wait"}}
	own := func(q []string) []time.Duration {
		if len(q) == 3 {
			return []time.Duration{0, 39500 * time.Microsecond} // the last wait has none of its own
		}
		return []time.Duration{0}
	}
	for _, c2 := range []struct {
		quiet      Quiet
		request    string
		quiescence time.Duration
		waits      [][]time.Duration
	}{
		{Quiet{Quiescence: 299500 * time.Microsecond, Waits: own}, "map[queries:[[schedule wait wait] [wait]] quiescence:300 waits:[[40 300] [300]]]",
			0, [][]time.Duration{{0, 40 * ms, 300 * ms}, {300 * ms}}},
		{Quiet{Quiescence: 250 * ms}, "map[queries:[[schedule wait wait] [wait]] quiescence:250]", 250 * ms, nil},
	} {
		rt, err := c2.quiet.For(queries)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := c.RunUnder(ctx, queries, rt)
		if err != nil {
			t.Fatal(err)
		}
		req := f.requests[len(f.requests)-1]
		delete(req, "id")
		delete(req, "op")
		if got := fmt.Sprint(req); got != c2.request {
			t.Errorf("request %s, want %s", got, c2.request)
		}
		out, err := ToResults(queries, rs)
		if err != nil {
			t.Fatal(err)
		}
		rt.Mark(out)
		for k, r := range out {
			var want []time.Duration
			if c2.waits != nil {
				want = c2.waits[k]
			}
			if r.Quiescence != c2.quiescence || !slices.Equal(r.Waits, want) {
				t.Errorf("result %d ran under %v, waits %v; want %v, %v", k, r.Quiescence, r.Waits, c2.quiescence, want)
			}
		}
	}
	if _, err := (Quiet{Quiescence: PurposeQuiescence, Waits: own}).For(queries); err == nil ||
		err.Error() != `the wait at 2 of query "schedule wait wait" has no timeout of its own and the run none` {
		t.Errorf("a wait with no timeout at all: %v", err)
	}
}
