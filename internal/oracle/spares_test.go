package oracle_test

import (
	"context"
	"strings"
	"testing"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/cache"
	"github.com/droidstar/droidstar/internal/oracle/dispatch"
	"github.com/droidstar/droidstar/internal/oracle/mapper"
)

// spareTaker stands where the scheduler would run a batch's spares: it
// notes what reached it (the spares, and what the cache says it knows of
// each) and runs every spare before the batch.
type spareTaker struct {
	next   oracle.Oracle
	in     *mealy.Alphabet
	out    *mealy.Alphabet
	spares []string
	known  []string
}

func (s *spareTaker) Ask(ctx context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	if sp, ok := oracle.SparesOf(ctx); ok && sp.Answered != nil {
		known, _ := oracle.KnownOf(ctx)
		for _, w := range sp.Words {
			s.spares = append(s.spares, s.in.Format(w))
			s.known = append(s.known, s.out.Format(known(w)))
		}
		got, err := s.next.Ask(oracle.WithoutSpares(ctx), sp.Words)
		if err != nil {
			return nil, err
		}
		for k, a := range got {
			sp.Answered(k, a)
		}
	}
	return s.next.Ask(ctx, qs)
}

// The cache passes down the spares it cannot answer and that no word of
// the batch or later spare covers, in the asker's order, tells the stages
// below what it knows of each word's outputs, and keeps the answers of
// the spares that ran: a later batch asking them runs nothing.
func TestCachePassesOnSparesAndKeepsTheirAnswers(t *testing.T) {
	in, out, err := mealy.ClosureAlphabets([]string{"start", "cancel"}, []string{"fired"})
	if err != nil {
		t.Fatal(err)
	}
	sem := mealy.ClosureSemantics(in, out)
	exec := &timerExec{serial: "fake-0"}
	mapping := func(name string) (string, mapper.Kind, bool) {
		if name == "onFire" {
			return "fired", mapper.Output, true
		}
		return "", mapper.Output, false
	}
	rec := &oracle.Recorder{}
	sched := &dispatch.Scheduler{Executors: []backend.Executor{&mapper.Executor{Next: exec, Map: mapping}},
		Inputs: in, Outputs: out, Sem: sem, Recorder: rec}
	taker := &spareTaker{next: sched, in: in, out: out}
	cache := cache.New(taker, in, out, sem, rec)
	word := func(s string) mealy.Word { return in.MustWord(strings.Fields(s)...) }

	if _, err := cache.Ask(context.Background(), []mealy.Word{word("start wait")}); err != nil {
		t.Fatal(err)
	}
	spares := []mealy.Word{
		word("start"),                    // the cache knows it
		word("start wait cancel"),        // a prefix of a later spare
		word("cancel"),                   // the batch's own word
		word("cancel cancel"),            // runs
		word("start wait cancel cancel"), // runs
		word("cancel cancel"),            // the same again
	}
	ctx := oracle.WithSpares(context.Background(), oracle.Spares{Words: spares})
	got, err := cache.Ask(ctx, []mealy.Word{word("cancel")})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || out.Format(got[0].Outputs) != "ok" {
		t.Fatalf("answers %+v, want cancel's ok", got)
	}
	if want := "cancel cancel|start wait cancel cancel"; strings.Join(taker.spares, "|") != want {
		t.Errorf("the spares passed down: %s, want %s", strings.Join(taker.spares, "|"), want)
	}
	if want := "ε|ok fired"; strings.Join(taker.known, "|") != want {
		t.Errorf("what the cache knew of them: %q, want %q", strings.Join(taker.known, "|"), want)
	}
	exec.ran = nil
	taker.spares = nil
	got, err = cache.Ask(context.Background(), []mealy.Word{word("start wait cancel cancel"), word("cancel cancel")})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := out.Format(got[0].Outputs), out.Format(got[1].Outputs); a != "ok fired ok ok" || b != "ok ok" {
		t.Errorf("answers %s and %s, want ok fired ok ok and ok ok", a, b)
	}
	if len(exec.ran) != 0 {
		t.Errorf("asking the spares that ran ran %q again", exec.ran)
	}
}
