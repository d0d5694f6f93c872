// Package bench measures droidstar against its peers: the six typestates the
// original DroidStar learned on a real device (executed queries and device
// time beside DroidStar's own), the public Mealy benchmarks beside AALpy's
// L* with a perfect teacher, and the bundled examples. The reference data
// lives in ../shared beside the checkout and is read from there, never
// copied into the project.
package bench

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/learn"
	"github.com/droidstar/droidstar/internal/learn/equivalence"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/refdata"
	"github.com/droidstar/droidstar/internal/run"
)

// DroidStarCase is one of DroidStar's October 2016 experiments: the settings
// of its learning purpose (ICSE 2018 §6, and the README beside the models).
type DroidStarCase struct {
	Class        string // file stem in models/droidstar-2016
	Callins      []string
	Quiescence   time.Duration
	Bound        int
	Restrictions []purpose.Restriction
	// Example is the bundled example of the same class, whose documented
	// latencies (backend.sim.latency, assumptions as its README says) the
	// calibrated-timeout suite gives this case's callbacks: the names are
	// DroidStar's.
	Example string
}

// DroidStarCases are the six experiments with published diagrams.
var DroidStarCases = []DroidStarCase{
	{Class: "AsyncTask-NoGet", Callins: []string{"exec", "cancel"}, Quiescence: 500 * time.Millisecond, Bound: 2, Example: "asynctask"},
	{Class: "CountDownTimer", Callins: []string{"start", "cancel"}, Quiescence: 2000 * time.Millisecond, Bound: 2,
		Restrictions: []purpose.Restriction{{Kind: purpose.AtMost, Count: 1, Symbols: []string{"start"}}}, Example: "countdowntimer"},
	{Class: "FileObserver", Callins: []string{"stop", "modify", "delete"}, Quiescence: 500 * time.Millisecond, Bound: 2,
		Restrictions: []purpose.Restriction{{Kind: purpose.FollowedByWait, Symbols: []string{"modify", "delete"}}}, Example: "fileobserver"},
	{Class: "SQLiteOpenHelper", Callins: []string{"openNew", "openLV", "openSV", "openHV", "close"}, Quiescence: 500 * time.Millisecond, Bound: 2,
		Restrictions: []purpose.Restriction{
			{Kind: purpose.First, Symbols: []string{"openNew", "openLV", "openSV", "openHV"}},
			{Kind: purpose.AtMost, Count: 1, Symbols: []string{"openNew", "openLV", "openSV", "openHV"}},
		}, Example: "sqliteopenhelper"},
	{Class: "SpeechRecognizer", Callins: []string{"start", "stop", "cancel"}, Quiescence: 8000 * time.Millisecond, Bound: 2, Example: "speechrecognizer"},
	{Class: "SpellCheckerSession", Callins: []string{"suggest", "cancel", "close"}, Quiescence: 500 * time.Millisecond, Bound: 2,
		Restrictions: []purpose.Restriction{{Kind: purpose.AtMost, Count: 1, Symbols: []string{"suggest"}}}, Example: "spellcheckersession"},
}

// DroidStarStats are DroidStar's own statistics for one class.
type DroidStarStats struct {
	Class      string `yaml:"class"`
	TimeMillis int    `yaml:"time"`
	Asked      int    `yaml:"mqueries"`
	Executed   int    `yaml:"rmqueries"`
	EQs        int    `yaml:"equeries"`
}

// DroidStarRow is the outcome of learning one DroidStar model.
type DroidStarRow struct {
	Case       DroidStarCase
	Theirs     DroidStarStats
	States     int
	Asked      int
	Executed   int
	Excluded   int
	Padded     int // symbols the padding stage appended
	EQs        int
	DeviceSecs float64
	// EstimatedWallSecs is the run's makespan on its lanes (see
	// model.Stats.EstimatedWallSecs).
	EstimatedWallSecs float64
	WallSecs          float64
	LearnedNeeds      int
	Equal             bool // learned model equivalent to the target
	// Timeout is what a calibrated run's timeout settled at (nil: fixed).
	Timeout *model.AutoTimeout
	// Transitions are the learned model's, to compare runs.
	Transitions []model.Transition
}

// Reset is the device time charged per query in the benchmarks (the
// default settle and post-reset timeouts).
const Reset = purpose.DefaultSettle + purpose.DefaultPostReset

// SharedDir is dir when given, else refdata.Dir().
func SharedDir(dir string) string {
	if dir != "" {
		return dir
	}
	return refdata.Dir()
}

// LoadDroidStarStats reads droidstar-stats.yaml.
func LoadDroidStarStats(shared string) (map[string]DroidStarStats, error) {
	file := filepath.Join(shared, "models", "droidstar-2016", "droidstar-stats.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var list []DroidStarStats
	if err := yaml.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	out := make(map[string]DroidStarStats, len(list))
	for _, s := range list {
		out[s.Class] = s
	}
	return out, nil
}

// RunDroidStarCase learns one DroidStar diagram on the simulated device with
// the distinguisher-bound oracle and compares the result with the diagram.
func RunDroidStarCase(ctx context.Context, shared string, c DroidStarCase, lanes int) (*DroidStarRow, error) {
	return RunDroidStarCaseWith(ctx, shared, c, DroidStarRun{Lanes: lanes})
}

// DroidStarRun is how RunDroidStarCaseWith learns, in the words of the
// learning options (run.Spec): with the learner called Learner (empty:
// the default), on Lanes simulated devices, padding queries by Pad (zero:
// none), with the Conformance test after the bound check (empty: none),
// the Timeout (empty: the case's fixed one; "auto:START" calibrates it)
// and the bound counting every symbol, as DroidStar did, with
// BoundCountsEvery.
type DroidStarRun struct {
	Learner     string
	Lanes       int
	Pad         run.Pad
	Conformance string
	// Latencies gives the callbacks the latencies of the case's Example
	// instead of a fixed 50ms.
	Latencies        bool
	Timeout          string
	BoundCountsEvery bool
}

// Spec is what every benchmark run starts from: one lane, the checks,
// padding and final check off, no store, no device kept awake, and no
// grace (nothing stops a benchmark, so each batch goes to a lane whole),
// so that each table sets what it measures.
func Spec() run.Spec {
	s := run.Defaults()
	s.Conformance, s.Pad, s.Vote.Final, s.Store.Path, s.ADB.KeepAwake, s.Grace = run.ConformanceOff, run.Pad{}, run.FinalOff, run.StoreOff, false, 0
	return s
}

// droidStarSpec describes learning one of DroidStar's diagrams with its own
// alphabet, timeouts, restrictions and bound.
func droidStarSpec(shared string, c DroidStarCase, r DroidStarRun) (run.Spec, error) {
	settle := purpose.DefaultSettle
	m := &run.ModelFile{
		Path: filepath.Join(shared, "models", "droidstar-2016", c.Class+"-diagram.gv"), Format: "droidstar-dot",
		Quiescence: c.Quiescence, Reset: Reset, Settle: &settle, Latency: purpose.DefaultLatency,
		Callins: c.Callins, Restrictions: c.Restrictions,
	}
	if r.Latencies {
		p, err := examples.Purpose(c.Example)
		if err != nil {
			return run.Spec{}, fmt.Errorf("%s: the latencies of example %q: %w", c.Class, c.Example, err)
		}
		m.Latencies = p.Backend.Sim
	}
	s := Spec()
	s.Model, s.Bound, s.Lanes, s.Learner, s.Pad, s.Timeout = m, strconv.Itoa(c.Bound), max(r.Lanes, 1), cmp.Or(r.Learner, s.Learner), r.Pad, r.Timeout
	if r.Conformance != "" {
		s.Conformance = r.Conformance
	}
	if r.BoundCountsEvery {
		s.BoundCounts = run.BoundCountsEvery
	}
	return s, nil
}

// learnSpec learns what spec describes, for a benchmark: the outcome, and
// the run to compare it with its target (the caller closes it).
func learnSpec(ctx context.Context, spec run.Spec) (*run.Run, *run.Outcome, error) {
	sess, err := run.Open(spec, run.Env{})
	if err != nil {
		return nil, nil, err
	}
	defer sess.Close()
	r, err := sess.Start(ctx, spec, "")
	if err != nil {
		return nil, nil, err
	}
	out, err := r.Learn(ctx, nil)
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	return r, out, nil
}

// RunDroidStarCaseWith is RunDroidStarCase with the run's settings.
func RunDroidStarCaseWith(ctx context.Context, shared string, c DroidStarCase, dr DroidStarRun) (*DroidStarRow, error) {
	spec, err := droidStarSpec(shared, c, dr)
	if err != nil {
		return nil, err
	}
	r, out, err := learnSpec(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Class, err)
	}
	defer r.Close()
	equal, err := out.Machine.Equivalent(r.Model().Machine)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Class, err)
	}
	doc := out.Document
	st := doc.Stats
	total := st.Total()
	return &DroidStarRow{
		Case: c, States: st.States, Asked: total.Asked, Executed: total.Executed, Excluded: total.Excluded, Padded: total.Padded,
		EQs: st.EQs, DeviceSecs: st.DeviceSecs, EstimatedWallSecs: st.EstimatedWallSecs, WallSecs: st.WallSecs,
		LearnedNeeds: doc.Bound.LearnedNeeds, Equal: equal,
		Timeout: st.Timeout, Transitions: doc.Transitions,
	}, nil
}

// DroidStarFloor is the floor of a case's executed queries under the
// bound check: the queries its last round must run when the hypothesis is
// the true model, from an empty cache in one batch, that is the maximal
// words of the round once the closure's forced answers (waits after a
// quiet, anything after an err) are left out, with the access words of a
// breadth-first spanning tree, plus the transitions into the error sink
// the check skips and no check word covers. countsEvery counts the bound
// in every symbol, as DroidStar did, else in free ones. A run whose own
// access words differ checks other words, so this is the yardstick the
// issue set, not a proven lower bound of every run.
func DroidStarFloor(ctx context.Context, shared string, c DroidStarCase, countsEvery bool) (int, error) {
	spec, err := droidStarSpec(shared, c, DroidStarRun{Lanes: 1, BoundCountsEvery: countsEvery})
	if err != nil {
		return 0, err
	}
	sess, err := run.Open(spec, run.Env{})
	if err != nil {
		return 0, err
	}
	defer sess.Close()
	r, err := sess.Start(ctx, spec, "")
	if err != nil {
		return 0, err
	}
	defer r.Close()
	m := r.Model().Machine.Minimize()
	tree := m.AccessTree()
	access := make([]mealy.Word, m.NumStates())
	for q := range access {
		access[q] = tree.Word(q)
	}
	t := r.Target()
	sem, err := t.Sem()
	if err != nil {
		return 0, err
	}
	mq, rec := r.Pipeline()
	check := &equivalence.Bound{MQ: &oracle.Counter{Next: mq, Phase: oracle.PhaseEquivalence, Recorder: rec},
		Bound: c.Bound, Sem: sem, Forcing: t.BoundForcing(), PerBatch: equivalence.WholeRound}
	cex, err := check.FindCounterexample(ctx, &learn.Hypothesis{Machine: m, Access: access})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", c.Class, err)
	}
	if cex != nil {
		return 0, fmt.Errorf("%s: the bound check of the true model found a counterexample, %v", c.Class, cex.Word)
	}
	// The check skips the transitions into the error sink that answer
	// err (on the true model, all of them), which a run must have
	// learned: those no check word covers cost a query each.
	// These are the initial state's, since every other transition's word
	// is a check word of the tree edge into its state.
	if sink, ok := m.Sink(sem.Err); ok {
		var words []mealy.Word
		for q := range m.NumStates() {
			for in := range m.Inputs.Size() {
				if q != sink && m.Next[q][in] == sink {
					words = append(words, access[q].Concat(in))
				}
			}
		}
		if _, err := check.MQ.Ask(ctx, words); err != nil {
			return 0, fmt.Errorf("%s: %w", c.Class, err)
		}
	}
	return rec.Phase(oracle.PhaseEquivalence).Executed, nil
}

// AALpyCounts are what one AALpy algorithm needed on one model.
type AALpyCounts struct {
	Executed int
	Symbols  int
	EQs      int
}

// AALpyRow is one model of aalpy-perfect-teacher.tsv with the counts of
// AALpy's three algorithms: L* and KV (both with Rivest-Schapire) and L#.
type AALpyRow struct {
	Model  string
	States int
	Inputs int
	LStar  AALpyCounts
	KV     AALpyCounts
	LSharp AALpyCounts
}

// aalpyAlgorithms are the algorithm names the table uses, each with where
// its counts go.
var aalpyAlgorithms = map[string]func(*AALpyRow) *AALpyCounts{
	"lstar":  func(r *AALpyRow) *AALpyCounts { return &r.LStar },
	"kv":     func(r *AALpyRow) *AALpyCounts { return &r.KV },
	"lsharp": func(r *AALpyRow) *AALpyCounts { return &r.LSharp },
}

// LoadAALpy reads AALpy's numbers, one row per model in the order the
// models first appear; every model must have all three algorithms.
func LoadAALpy(shared string) ([]AALpyRow, error) {
	file := filepath.Join(shared, "benchmarks", "mealy", "aalpy-perfect-teacher.tsv")
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []*AALpyRow
	byModel := map[string]*AALpyRow{}
	seen := map[[2]string]bool{}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.HasPrefix(text, "#") || strings.HasPrefix(text, "model\t") || strings.TrimSpace(text) == "" {
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) < 7 {
			return nil, fmt.Errorf("%s:%d: want 8 tab-separated columns, got %d", file, line, len(cols))
		}
		slot, ok := aalpyAlgorithms[cols[3]]
		if !ok {
			return nil, fmt.Errorf("%s:%d: unknown algorithm %q (want lstar, kv or lsharp)", file, line, cols[3])
		}
		if seen[[2]string{cols[0], cols[3]}] {
			return nil, fmt.Errorf("%s:%d: a second %s row for %s", file, line, cols[3], cols[0])
		}
		seen[[2]string{cols[0], cols[3]}] = true
		nums := make([]int, 0, 5)
		for _, k := range []int{1, 2, 4, 5, 6} {
			n, err := strconv.Atoi(cols[k])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: column %d: %w", file, line, k+1, err)
			}
			nums = append(nums, n)
		}
		r := byModel[cols[0]]
		if r == nil {
			r = &AALpyRow{Model: cols[0], States: nums[0], Inputs: nums[1]}
			byModel[cols[0]] = r
			rows = append(rows, r)
		} else if r.States != nums[0] || r.Inputs != nums[1] {
			return nil, fmt.Errorf("%s:%d: %s has %d states and %d inputs here, %d and %d on an earlier line", file, line, cols[0], nums[0], nums[1], r.States, r.Inputs)
		}
		*slot(r) = AALpyCounts{Executed: nums[2], Symbols: nums[3], EQs: nums[4]}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	out := make([]AALpyRow, len(rows))
	for k, r := range rows {
		for _, alg := range []string{"lstar", "kv", "lsharp"} {
			if !seen[[2]string{r.Model, alg}] {
				return nil, fmt.Errorf("%s: no %s row for %s", file, alg, r.Model)
			}
		}
		out[k] = *r
	}
	return out, nil
}

// MealyRow is the outcome of learning one Mealy benchmark.
type MealyRow struct {
	AALpy    AALpyRow
	States   int
	Executed int
	Symbols  int
	EQs      int
	WallSecs float64
	Equal    bool
}

// RunMealy learns one benchmark model with the learner called learner (see
// learn.ByName; empty: the default) and a perfect teacher, so only the
// learner's queries count, as in AALpy's table.
func RunMealy(ctx context.Context, shared string, a AALpyRow, learner string) (*MealyRow, error) {
	spec := Spec()
	spec.Model = run.DefaultModelFile(filepath.Join(shared, "benchmarks", "mealy", a.Model+".dot"))
	spec.Model.Format = "mealy-dot"
	spec.Bound, spec.Oracle, spec.Conformance, spec.Learner = "1", run.OraclePerfect, "", cmp.Or(learner, spec.Learner)
	r, out, err := learnSpec(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Model, err)
	}
	defer r.Close()
	equal, err := out.Machine.Equivalent(r.Model().Machine)
	if err != nil {
		return nil, err
	}
	st := out.Document.Stats
	total := st.Total()
	return &MealyRow{AALpy: a, States: out.Machine.NumStates(), Executed: total.Executed, Symbols: total.Symbols,
		EQs: st.EQs, WallSecs: st.WallSecs, Equal: equal}, nil
}

// ExampleRow is the outcome of learning one bundled example.
type ExampleRow struct {
	Name         string
	States       int
	Executed     int
	EQs          int
	DeviceSecs   float64
	LearnedNeeds int
	Equal        bool // learned typestate equivalent to the example's model
	// Timeout is what a calibrated run's timeout settled at (nil: fixed).
	Timeout *model.AutoTimeout
	// Transitions are the learned model's, to compare runs.
	Transitions []model.Transition
}

// ExampleRun is how RunExampleRun learns, in the words of the learning
// options: padding queries by Pad (zero: none), and with the Timeout
// (empty: the purpose's fixed one; "auto:START" calibrates it).
type ExampleRun struct {
	Pad     run.Pad
	Timeout string
}

// RunExample learns an embedded example and compares it with its model.
func RunExample(ctx context.Context, name string) (*ExampleRow, error) {
	return RunExampleRun(ctx, name, ExampleRun{})
}

// exampleSpec describes learning an embedded example on its sim backend.
func exampleSpec(name string) run.Spec {
	s := Spec()
	s.Example = name
	return s
}

// RunExampleRun is RunExample with the run's settings.
func RunExampleRun(ctx context.Context, name string, er ExampleRun) (*ExampleRow, error) {
	spec := exampleSpec(name)
	spec.Pad, spec.Timeout = er.Pad, er.Timeout
	r, out, err := learnSpec(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer r.Close()
	// Compare with the model as the purpose sees it (restrictions, merged
	// and error callbacks).
	_, differ, err := r.Disagreement(out.Machine)
	if err != nil {
		return nil, err
	}
	doc := out.Document
	st := doc.Stats
	return &ExampleRow{Name: name, States: st.States, Executed: st.Total().Executed, EQs: st.EQs,
		DeviceSecs: st.DeviceSecs, LearnedNeeds: doc.Bound.LearnedNeeds, Equal: !differ,
		Timeout: st.Timeout, Transitions: doc.Transitions}, nil
}

// GeoMean is the geometric mean of xs, 0 when xs is empty or holds a
// value that is not positive.
func GeoMean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sum := 0.0
	for _, x := range xs {
		if !(x > 0) {
			return 0
		}
		sum += math.Log(x)
	}
	return math.Exp(sum / float64(len(xs)))
}

// Ratio is a/b, or 0 when b is 0.
func Ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
