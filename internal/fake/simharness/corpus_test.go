package simharness

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/harness"
)

// corpusDir holds the protocol corpus that the Java harness's JUnit tests
// (CorpusTest) run too: the same sessions, the same replies.
var corpusDir = filepath.Join("..", "..", "..", "harness-apk", "testdata", "protocol")

// exchange is one request of a session and the reply it must get; an
// unanswered one comes after the harness ended the session.
type exchange struct {
	request, reply string
	answered       bool
}

type session struct {
	name         string
	exchanges    []exchange
	only         string
	unterminated bool
	// mainThreadTimeout is the session's @main-thread-timeout, or 0.
	mainThreadTimeout time.Duration
}

// readSession reads a session file (testdata/protocol/README.md).
func readSession(path string) (*session, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := &session{name: filepath.Base(path)}
	ended := false
	for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		at := fmt.Sprintf("%s:%d: ", s.name, i+1)
		switch {
		case strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#"):
		case strings.HasPrefix(l, "@only "):
			s.only, _, _ = strings.Cut(strings.TrimPrefix(l, "@only "), ":")
			s.only = strings.TrimSpace(s.only)
		case l == "@unterminated":
			s.unterminated = true
		case strings.HasPrefix(l, "@main-thread-timeout "):
			ms, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(l, "@main-thread-timeout ")))
			if err != nil {
				return nil, fmt.Errorf("%s@main-thread-timeout: %v", at, err)
			}
			s.mainThreadTimeout = time.Duration(ms) * time.Millisecond
		case l == ">" || strings.HasPrefix(l, "> "):
			// A request after one with no reply: the harness ended there.
			ended = ended || len(s.exchanges) > 0 && !s.exchanges[len(s.exchanges)-1].answered
			s.exchanges = append(s.exchanges, exchange{request: strings.TrimPrefix(strings.TrimPrefix(l, ">"), " ")})
		case l == "<" || strings.HasPrefix(l, "< "):
			if len(s.exchanges) == 0 || s.exchanges[len(s.exchanges)-1].answered {
				return nil, fmt.Errorf("%sa reply line must follow a request line", at)
			}
			if ended {
				return nil, fmt.Errorf("%sa reply after a request the harness did not answer", at)
			}
			last := &s.exchanges[len(s.exchanges)-1]
			last.reply, last.answered = strings.TrimPrefix(strings.TrimPrefix(l, "<"), " "), true
		default:
			return nil, fmt.Errorf("%sa line is a comment (#), a directive (@), a request (>) or a reply (<)", at)
		}
	}
	if len(s.exchanges) == 0 {
		return nil, fmt.Errorf("%s: no requests", s.name)
	}
	return s, nil
}

func loadCorpus(t *testing.T) []*session {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.session"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sessions in %s: %v", corpusDir, err)
	}
	sort.Strings(files)
	var out []*session
	for _, f := range files {
		s, err := readSession(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// The wildcards of expected replies: any value, and a duration in
// milliseconds written with a fraction, as Json.millis writes one.
const (
	wildAny    = "*"
	wildMillis = "*ms"
)

// mismatch says why actual does not match expected, or "" when it does.
// Without wildcards the lines must be equal byte for byte; with them,
// equal as JSON values, objects with their keys in the same order.
func mismatch(expected, actual string) (string, error) {
	e, err := parseJSON(expected)
	if err != nil {
		return "", fmt.Errorf("expected reply %s: %w", expected, err)
	}
	if !hasWildcard(e) {
		if expected != actual {
			return "the lines differ", nil
		}
		return "", nil
	}
	a, err := parseJSON(actual)
	if err != nil {
		return "the reply is not JSON: " + err.Error(), nil
	}
	return valueMismatch("the reply", e, a), nil
}

func hasWildcard(v any) bool {
	switch x := v.(type) {
	case string:
		return x == wildAny || x == wildMillis
	case *object:
		return slices.ContainsFunc(x.keys, func(k string) bool { return hasWildcard(x.vals[k]) })
	case []any:
		return slices.ContainsFunc(x, hasWildcard)
	}
	return false
}

func valueMismatch(path string, e, a any) string {
	switch x := e.(type) {
	case string:
		switch x {
		case wildAny:
			return ""
		case wildMillis:
			if f, ok := a.(float64); ok && f >= 0 {
				return ""
			}
			return fmt.Sprintf("%s: want a duration in milliseconds written with a fraction, got %s", path, show(a))
		}
	case *object:
		ao, ok := a.(*object)
		if !ok {
			return fmt.Sprintf("%s: want an object, got %s", path, show(a))
		}
		if !slices.Equal(x.keys, ao.keys) {
			return fmt.Sprintf("%s: want the keys %v, got %v", path, x.keys, ao.keys)
		}
		for _, k := range x.keys {
			if m := valueMismatch(path+"."+k, x.vals[k], ao.vals[k]); m != "" {
				return m
			}
		}
		return ""
	case []any:
		al, ok := a.([]any)
		if !ok || len(al) != len(x) {
			return fmt.Sprintf("%s: want %s, got %s", path, show(e), show(a))
		}
		for i := range x {
			if m := valueMismatch(fmt.Sprintf("%s[%d]", path, i), x[i], al[i]); m != "" {
				return m
			}
		}
		return ""
	}
	// Scalars: the same type and value (an integer is no double).
	if !reflect.DeepEqual(e, a) {
		return fmt.Sprintf("%s: want %s, got %s", path, show(e), show(a))
	}
	return ""
}

func show(v any) string {
	if o, ok := v.(*object); ok {
		return fmt.Sprintf("object with keys %v", o.keys)
	}
	return fmt.Sprintf("%#v", v)
}

// rw is the simulated harness's stream: the requests to read, the replies
// written.
type rw struct {
	in  io.Reader
	out bytes.Buffer
}

func (c *rw) Read(p []byte) (int, error)  { return c.in.Read(p) }
func (c *rw) Write(p []byte) (int, error) { return c.out.Write(p) }
func (*rw) Close() error                  { return nil }

// corpusOptions is what the simulated harness is told: the model of the
// corpus's class, that class and its listener, and the identity of the
// Java suite's test platform (TestPlatform), so that hello answers alike.
func corpusOptions(t *testing.T) Options {
	t.Helper()
	m, err := sim.LoadModel(filepath.Join(corpusDir, "gate.dot"), "")
	if err != nil {
		t.Fatal(err)
	}
	return Options{
		Model:  m,
		Timing: sim.Timing{Quiescence: 20 * time.Millisecond, DefaultLatency: time.Millisecond},
		Hello:  harness.Hello{Platform: "test", SDK: 42, Release: "1.2", Model: "bench", Manufacturer: "droidstar"},
		Class:  "org.droidstar.harness.corpus.Gate",
		Listeners: map[string][]string{
			"org.droidstar.harness.corpus.Gate$Listener": {"onOpened", "onClosed", "onBroken"},
		},
		// The Java suite's purposes that declare jam call
		// TimeUnit.DAYS.sleep(1) on the main thread.
		Wedge: [][]string{{"jam"}},
	}
}

// TestCorpus runs every session of the protocol corpus on a fresh
// simulated harness and checks each reply.
func TestCorpus(t *testing.T) {
	o := corpusOptions(t)
	for _, s := range loadCorpus(t) {
		if s.only != "" && s.only != "sim" {
			continue
		}
		t.Run(strings.TrimSuffix(s.name, ".session"), func(t *testing.T) {
			var in strings.Builder
			var want []string
			for i, e := range s.exchanges {
				in.WriteString(e.request)
				if i < len(s.exchanges)-1 || !s.unterminated {
					in.WriteByte('\n')
				}
				if e.answered {
					want = append(want, e.reply)
				}
			}
			conn := &rw{in: strings.NewReader(in.String())}
			o := o
			o.MainThreadTimeout = s.mainThreadTimeout
			bye, err := Serve(context.Background(), conn, o)
			if err != nil {
				t.Fatalf("Serve: %v", err)
			}
			out := conn.out.String()
			if out != "" && !strings.HasSuffix(out, "\n") {
				t.Errorf("the output does not end with a line break: %q", out)
			}
			got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if out == "" {
				got = nil
			}
			for i := range min(len(got), len(want)) {
				m, err := mismatch(want[i], got[i])
				if err != nil {
					t.Fatal(err)
				}
				if m != "" {
					t.Errorf("reply %d: %s\n got  %s\n want %s", i+1, m, got[i], want[i])
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d replies, want %d:\n%s", len(got), len(want), out)
			}
			// A session whose last request got no reply ended at a bye.
			if ended := !s.exchanges[len(s.exchanges)-1].answered; bye != ended {
				t.Errorf("Serve returned bye=%v, want %v", bye, ended)
			}
		})
	}
}

// noInternal says why no corpus session this suite runs expects the
// internal error code: the Java harness answers internal for failures that
// are neither the purpose's nor the class's (a broken adapter's shim, an
// interrupted harness), and the simulated harness has no such failure that
// a request can cause. It runs no adapter code, its model answers every
// input in every state (configure refuses symbols the model lacks), and
// the simulator's only run-time errors are a closed executor, which a
// query never sees, and the end of ctx, on which no reply is written. The
// corpus's internal session runs in the Java suite only.
const noInternal = "internal"

// TestCorpusCoverage: the sessions this suite runs hold a request of
// every op and a reply with every error code of PROTOCOL.md, but internal
// (noInternal).
func TestCorpusCoverage(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(corpusDir, "..", "..", "PROTOCOL.md"))
	if err != nil {
		t.Fatal(err)
	}
	var wantOps, wantCodes []string
	for _, m := range regexp.MustCompile("(?m)^### `([a-z]+)`(?: and `([a-z]+)`)?").FindAllStringSubmatch(string(doc), -1) {
		wantOps = append(wantOps, m[1])
		if m[2] != "" {
			wantOps = append(wantOps, m[2])
		}
	}
	// The table of codes is the one headed "| code | meaning |".
	_, table, _ := strings.Cut(string(doc), "\n| code | meaning |\n")
	table, _, _ = strings.Cut(table, "\n\n")
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|").FindAllStringSubmatch(table, -1) {
		wantCodes = append(wantCodes, m[1])
	}
	if got := strings.Join(wantOps, " "); got != "hello configure run probe ping bye" {
		t.Fatalf("PROTOCOL.md's ops: %s", got)
	}
	if len(wantCodes) != 13 {
		t.Fatalf("PROTOCOL.md's error codes: %v", wantCodes)
	}

	ops, codes := map[string]int{}, map[string]int{}
	javaOnly := map[string]int{}
	for _, s := range loadCorpus(t) {
		for _, e := range s.exchanges {
			if !e.answered {
				continue
			}
			rep, err := parseJSON(e.reply)
			if err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			code := ""
			if errObj, ok := rep.(*object).get("error").(*object); ok {
				code, _ = errObj.get("code").(string)
			}
			if s.only != "" && s.only != "sim" {
				if code != "" {
					javaOnly[code]++
				}
				continue
			}
			if req, err := parseJSON(e.request); err == nil {
				if o, ok := req.(*object); ok {
					if op, ok := o.get("op").(string); ok && slices.Contains(wantOps, op) {
						ops[op]++
					}
				}
			}
			if code != "" {
				codes[code]++
			}
		}
	}
	for _, op := range wantOps {
		if ops[op] == 0 {
			t.Errorf("no corpus request of op %s (%v)", op, ops)
		}
	}
	for _, code := range wantCodes {
		if code == noInternal {
			if codes[code] > 0 {
				t.Errorf("a session this suite runs expects %s: drop noInternal", code)
			}
			if javaOnly[code] == 0 {
				t.Errorf("no Java-only session expects %s", code)
			}
			continue
		}
		if codes[code] == 0 {
			t.Errorf("no corpus reply with error %s (%v)", code, codes)
		}
	}
	for code := range codes {
		if !slices.Contains(wantCodes, code) {
			t.Errorf("code %s is not in PROTOCOL.md", code)
		}
	}
	t.Logf("corpus (sim): requests per op %v, replies per error code %v", ops, codes)
}

// The comparison is strict where the corpus does not say otherwise: the
// keys' order, an integer against a double, a duration without fraction.
func TestMismatch(t *testing.T) {
	cases := []struct {
		expected, actual string
		ok               bool
	}{
		{`{"id":1,"ok":true}`, `{"id":1,"ok":true}`, true},
		{`{"id":1,"ok":true}`, `{"id":1, "ok":true}`, false},
		{`{"id":1,"ok":true,"x":"*"}`, `{"ok":true,"id":1,"x":2}`, false},
		{`{"id":1,"x":"*"}`, `{"id":1,"x":[1,{"a":null}]}`, true},
		{`{"id":1,"x":"*"}`, `{"id":1}`, false},
		{`{"ms":["*ms",0.0]}`, `{"ms":[1.5,0.0]}`, true},
		{`{"ms":["*ms",0.0]}`, `{"ms":[1,0.0]}`, false},
		{`{"ms":["*ms",0.0]}`, `{"ms":[1.5,0]}`, false},
		{`{"ms":["*ms"]}`, `{"ms":[-1.5]}`, false},
		{`{"ms":["*ms"]}`, `{"ms":[1.5,2.5]}`, false},
		{`{"a":"*","b":"x"}`, `{"a":1,"b":"y"}`, false},
	}
	for _, c := range cases {
		m, err := mismatch(c.expected, c.actual)
		if err != nil {
			t.Fatal(err)
		}
		if (m == "") != c.ok {
			t.Errorf("mismatch(%s, %s) = %q, want a match: %v", c.expected, c.actual, m, c.ok)
		}
	}
}
