package harness

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/purpose"
)

// replyConn is a harness stream that swallows the request and answers with
// a fixed reply.
type replyConn struct{ io.Reader }

func (replyConn) Write(p []byte) (int, error) { return len(p), nil }
func (replyConn) Close() error                { return nil }

// FuzzReply feeds one reply line to each request the client makes (op
// picks which) and checks what the pipeline relies on: an error or a
// reply, never a panic; a run answers every query, or stops at a wedged
// one with the results before it, each no longer than its query; and a
// configure refusal comes back at a line of the purpose.
func FuzzReply(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"ok":true,"protocol":2,"harness":"0.2.0","platform":"jvm","sdk":0,"release":"17.0.15","model":"OpenJDK","manufacturer":"Debian"}`,
		`{"id":1,"ok":true,"callins":["schedule"],"callbacks":["run"],"shims":[]}`,
		`{"id":1,"ok":true,"results":[{"outputs":["ok","run"],"ms":[0.1,100],"device_ms":250.5,"stragglers":0,"ignored":0,"violations":[]},` +
			`{"outputs":["ok","err"],"ms":[0.1,0.2],"device_ms":150,"stragglers":1,"ignored":0,"violations":[{"kind":"between-callins","at":1,"callback":"run"}],"err":{"at":1,"kind":"thrown","exception":"java.lang.IllegalStateException","message":"Task already scheduled or cancelled"}}]}`,
		`{"id":1,"ok":true,"results":[{"outputs":["ok"],"err":{"at":0,"kind":"timeout","message":"schedule did not return"}}],"wedged":"schedule"}`,
		`{"id":1,"ok":true,"results":[{"outputs":["ok","x"],"err":{"at":1,"kind":"error-callback","callback":"onError"},"violations":[{"kind":"late","at":5,"callback":"run"}]},{"outputs":[],"err":{"kind":"reset","exception":"E","message":"m"}}]}`,
		`{"id":1,"ok":false,"error":{"code":"wedged","message":"stuck"}}`,
		`{"id":1,"ok":false,"error":{"code":"unknown-method","where":"callins[0].call","message":"no such method"}}`,
		`{"id":1,"ok":false,"error":{"code":"bad-type","where":"callins[9].args[2]","message":"m"}}`,
		`{"id":1,"ok":true,"microphone":{"present":true},"files":null,"urls":[]}`,
		`{"id":2,"ok":true}`,
		`{"id":1,"ok":false}`,
	} {
		for op := range 4 {
			f.Add(uint8(op), []byte(s+"\n"))
		}
	}
	p, err := purpose.Load("../../testdata/purposes/harness/timer.yaml")
	if err != nil {
		f.Fatal(err)
	}
	cfg := Configure(p)
	queries := [][]string{{"schedule", "wait"}, {"schedule", "schedule", "wait"}, {}}
	f.Fuzz(func(t *testing.T, op uint8, reply []byte) {
		ctx := context.Background()
		c := NewClient(replyConn{bytes.NewReader(reply)}, "fuzz")
		switch op % 4 {
		case 0:
			if h, err := c.Hello(ctx, "fuzz"); err == nil && h.Protocol != ProtocolVersion {
				t.Fatalf("hello accepted protocol %d", h.Protocol)
			}
		case 1:
			_, err := c.Configure(ctx, cfg)
			var list purpose.ErrorList
			if errors.As(err, &list) {
				for _, e := range list {
					if e.File != p.File || e.Line < 1 || e.Col < 1 {
						t.Fatalf("configure refusal not at a purpose line: %#v", e)
					}
				}
			}
		case 2:
			results, err := c.Run(ctx, queries)
			var w *WedgedError
			switch {
			case errors.As(err, &w):
				if w.Query < -1 || w.Query >= len(queries) || len(results) > w.Query+1 {
					t.Fatalf("wedged at query %d with %d results", w.Query, len(results))
				}
			case err != nil:
				if results != nil {
					t.Fatalf("results and an error: %v", err)
				}
				return
			case len(results) != len(queries):
				t.Fatalf("%d results for %d queries", len(results), len(queries))
			}
			for i, r := range results {
				res, err := ToResult(queries[i], r)
				if err == nil && len(res.Outputs) > len(queries[i]) {
					t.Fatalf("query %d: %d outputs for %d symbols", i, len(res.Outputs), len(queries[i]))
				}
				for _, w := range append(res.Warnings, res.TimingWarnings(queries[i], "")...) {
					if strings.TrimSpace(w) == "" {
						t.Fatal("empty warning")
					}
				}
			}
		case 3:
			c.Probe(ctx, ProbeRequest{Samples: 1})
		}
	})
}

// FuzzPurposeError maps a harness's `where` path, whatever it is, to a
// line of the purpose: the field's own line when the purpose wrote it,
// else the line of the closest field it wrote that encloses it, else the
// top of the file; the path and the message are kept.
func FuzzPurposeError(f *testing.F) {
	p, err := purpose.Load("../../testdata/purposes/harness/timer.yaml")
	if err != nil {
		f.Fatal(err)
	}
	for path := range p.Where {
		f.Add(path, "boom")
		f.Add(path+".args[3]", "m")
	}
	for _, s := range []string{"", ".", "[", "]", "callins[", "callins[0", "callins[0].", "a..b", "[0]", "callins[99].call"} {
		f.Add(s, "m")
	}
	cfg := Configure(p)
	f.Fuzz(func(t *testing.T, where, msg string) {
		err := cfg.PurposeError(&RemoteError{Code: "unknown-method", Where: where, Message: msg})
		var list purpose.ErrorList
		if !errors.As(err, &list) || len(list) != 1 {
			t.Fatalf("not one purpose error: %#v", err)
		}
		e := list[0]
		if e.File != p.File || e.Field != where || e.Msg != msg || e.Line < 1 || e.Col < 1 {
			t.Fatalf("error %#v for where %q", e, where)
		}
		if pos, ok := p.Where[where]; ok && (pos.Line != e.Line || pos.Col != e.Col) {
			t.Fatalf("where %q is at %d:%d, error at %d:%d", where, pos.Line, pos.Col, e.Line, e.Col)
		}
	})
}
