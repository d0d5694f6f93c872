package compose

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/query"
)

// timedLog runs queries on the simulator and logs each with the timeout
// its last wait ran under.
type timedLog struct {
	*sim.Executor
	mu  sync.Mutex
	ran []string
}

func (l *timedLog) Execute(ctx context.Context, inputs []string) (query.Result, error) {
	res, err := l.Executor.Execute(ctx, inputs)
	timeout := res.Quiescence
	if n := len(inputs) - 1; n < len(res.Waits) && res.Waits[n] > 0 {
		timeout = res.Waits[n]
	}
	l.mu.Lock()
	l.ran = append(l.ran, strings.Join(inputs, " ")+" @"+timeout.String())
	l.mu.Unlock()
	return res, err
}

// Two states' confirmations can name the same word (the state after
// start, then cancel; and the state start cancel reaches, then a wait):
// it runs under the ceiling once.
func TestConfirmationsRunEachWordOnce(t *testing.T) {
	file := filepath.Join("..", "..", "examples", "countdowntimer", "model.dot")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	base, err := fromModel(ModelSource{File: file, Data: data, Bound: 2, Quiescence: 2 * time.Second, Reset: 50 * time.Millisecond, Latency: 50 * time.Millisecond}, BackendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	log := &timedLog{Executor: base.Executors[0].(*sim.Executor)}
	plan, err := NewPlan(base.Job.Target, nil, nil, []backend.Executor{log})
	if err != nil {
		t.Fatal(err)
	}
	plan.quiescence = base.quiescence
	if err := plan.autoTimeout(100 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	in := plan.Job.Target.Inputs
	word := in.MustWord("start", "cancel", mealy.Wait)
	ctx := context.Background()
	if _, err := plan.Job.MQ.Ask(oracle.WithPhase(ctx, oracle.PhaseLearning), []mealy.Word{word}); err != nil {
		t.Fatal(err)
	}
	access := []mealy.Word{{}, in.MustWord("start"), in.MustWord("start", "cancel")}
	if _, err := plan.confirmQuiets(oracle.WithPhase(ctx, oracle.PhaseVerification), access); err != nil {
		t.Fatal(err)
	}
	want := []string{"start cancel wait @100ms", "start cancel wait @2s"}
	if !reflect.DeepEqual(log.ran, want) {
		t.Errorf("ran %q, want %q", log.ran, want)
	}
}
