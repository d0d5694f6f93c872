package engine_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/droidstar/droidstar/internal/engine"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/oracle/dispatch"
)

// ran is a pipeline stage that records, for each query, an execution on
// the device whose turn it is (devices in rotation), each query taking
// one second of device time per symbol.
type ran struct {
	rec     *oracle.Recorder
	devices []string
	next    int
}

func (r *ran) Ask(ctx context.Context, qs []mealy.Word) ([]oracle.Answer, error) {
	for _, q := range qs {
		r.rec.Executed(ctx, r.devices[r.next%len(r.devices)], len(q), time.Duration(len(q))*time.Second)
		r.next++
	}
	return make([]oracle.Answer, len(qs)), nil
}

// Unfinished describes a run stopped before its first hypothesis: the
// target's alphabets and the devices, what each device ran and the
// statistics per phase as the recorder has them, the stop's reason as a
// warning after the executors' own, and no states.
func TestUnfinished(t *testing.T) {
	in, out, err := mealy.ClosureAlphabets([]string{"start", "cancel"}, []string{"fired"})
	if err != nil {
		t.Fatal(err)
	}
	user := 0
	closure := engine.Target{
		Name: "Timer", Class: "java.util.Timer", Inputs: in, Outputs: out, Semantics: model.SemanticsClosure,
		Callins: []string{"start", "cancel"}, Callbacks: []string{"fired"}, Bound: 2,
		Purpose: &model.PurposeInfo{File: "timer.yaml"},
		Backend: model.BackendInfo{Kind: "adb", Options: map[string]string{"lanes": "1"}},
	}
	devices := []model.DeviceInfo{
		{Serial: "emulator-5554", Platform: "android", Release: "14", SDK: 34, User: &user},
		{Serial: "emulator-5556", Platform: "android", Release: "9", SDK: 28, User: &user},
	}
	stamp := time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	utc := stamp.UTC()
	word := func(s ...string) mealy.Word { return in.MustWord(s...) }

	cases := []struct {
		name    string
		target  engine.Target
		devices []model.DeviceInfo
		// learning and equivalence are the batches each phase asked.
		learning, equivalence [][]mealy.Word
		warnings              []string
		opts                  engine.Options
		stop                  error
		want                  model.Document
	}{
		{
			name: "nothing ran", target: closure, devices: devices, stop: dispatch.ErrStopped,
			opts: engine.Options{ToolVersion: "1.2.3", Now: func() time.Time { return stamp }},
			want: model.Document{
				Format: model.Format, Version: model.Version, Name: "Timer", Semantics: model.SemanticsClosure,
				Inputs: in.Names(), Outputs: out.Names(), Callins: []string{"start", "cancel"}, Callbacks: []string{"fired"},
				States: []model.State{}, Transitions: []model.Transition{}, Purpose: &model.PurposeInfo{File: "timer.yaml"},
				Backend:  &model.BackendInfo{Kind: "adb", Options: map[string]string{"lanes": "1"}, Devices: devices},
				Stats:    &model.Stats{},
				Warnings: []string{"no hypothesis yet: learning stopped: dispatching stopped"},
				Tool:     &model.ToolInfo{Name: "droidstar", Version: "1.2.3"}, Learned: &utc,
			},
		},
		{
			name: "both phases ran, on a virtual clock", target: closure, devices: devices, stop: dispatch.ErrStopped,
			learning:    [][]mealy.Word{{word("start"), word("start", "wait")}, {word("cancel", "wait", "start")}},
			equivalence: [][]mealy.Word{{word("start", "cancel")}},
			warnings:    []string{"fired between two callins", "fired between two callins", "late fired"},
			opts:        engine.Options{ToolVersion: "1.2.3", VirtualClock: true},
			want: model.Document{
				Format: model.Format, Version: model.Version, Name: "Timer", Semantics: model.SemanticsClosure,
				Inputs: in.Names(), Outputs: out.Names(), Callins: []string{"start", "cancel"}, Callbacks: []string{"fired"},
				States: []model.State{}, Transitions: []model.Transition{}, Purpose: &model.PurposeInfo{File: "timer.yaml"},
				Backend: &model.BackendInfo{Kind: "adb", Options: map[string]string{"lanes": "1"}, Devices: []model.DeviceInfo{
					{Serial: "emulator-5554", Platform: "android", Release: "14", SDK: 34, User: &user, Queries: 2},
					{Serial: "emulator-5556", Platform: "android", Release: "9", SDK: 28, User: &user, Queries: 2},
				}},
				Stats: &model.Stats{
					Learning:    model.PhaseStats{Asked: 3, Executed: 3, Symbols: 6, DeviceSecs: 6},
					Equivalence: model.PhaseStats{Asked: 1, Executed: 1, Symbols: 2, DeviceSecs: 2},
					WallSecs:    90, DeviceSecs: 8, VirtualClock: true,
				},
				Warnings: []string{"fired between two callins", "late fired", "no hypothesis yet: learning stopped: dispatching stopped"},
				Tool:     &model.ToolInfo{Name: "droidstar", Version: "1.2.3"},
			},
		},
		{
			// A target without alphabets (a job that failed to build) and
			// without devices still gives a document to write.
			name: "no alphabets, no devices", target: engine.Target{Name: "Empty", Semantics: model.SemanticsMealy},
			stop: context.DeadlineExceeded,
			want: model.Document{
				Format: model.Format, Version: model.Version, Name: "Empty", Semantics: model.SemanticsMealy,
				States: []model.State{}, Transitions: []model.Transition{},
				Backend: &model.BackendInfo{}, Stats: &model.Stats{WallSecs: 90},
				Warnings: []string{"no hypothesis yet: learning stopped: context deadline exceeded"},
				Tool:     &model.ToolInfo{Name: "droidstar"},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := &oracle.Recorder{}
			var serials []string
			for _, d := range c.devices {
				serials = append(serials, d.Serial)
			}
			stage := &ran{rec: rec, devices: serials}
			for _, phase := range []struct {
				p       oracle.Phase
				batches [][]mealy.Word
			}{{oracle.PhaseLearning, c.learning}, {oracle.PhaseEquivalence, c.equivalence}} {
				counter := &oracle.Counter{Next: stage, Phase: phase.p, Recorder: rec}
				for _, b := range phase.batches {
					if _, err := counter.Ask(context.Background(), b); err != nil {
						t.Fatal(err)
					}
				}
			}
			rec.Warn(c.warnings...)
			job := engine.Job{Target: c.target, Recorder: rec, Devices: c.devices}
			got := engine.Unfinished(job, c.opts, 90*time.Second, c.stop)
			if c.want.Stats.WallSecs == 0 {
				c.want.Stats.WallSecs = 90
			}
			if !reflect.DeepEqual(*got, c.want) {
				g, _ := json.MarshalIndent(got, "", "  ")
				w, _ := json.MarshalIndent(c.want, "", "  ")
				t.Errorf("got\n%s\nwant\n%s", g, w)
			}
			// The devices the job describes are not changed by the counts.
			for _, d := range c.devices {
				if d.Queries != 0 {
					t.Errorf("the job's device %s was given %d queries", d.Serial, d.Queries)
				}
			}
		})
	}
}
