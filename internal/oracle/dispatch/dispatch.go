// Package dispatch is the pipeline's last stage: the Scheduler runs a
// batch of queries on executors (devices, harness JVMs, simulators) in
// parallel across executors, and turns the output names they report into
// symbols of the output alphabet.
//
// When the asker says what it expects (oracle.Expectation: an equivalence
// oracle's hypothesis), the Scheduler predicts each query's device time
// from the predicted outputs and the step times it has measured, starts
// the longest first (executors that take batches get shares balanced on
// it), and, if asked to, starts no more of the batch once an answer
// differs from the prediction. It estimates each batch's wall
// time (its makespan on the lanes) for the statistics.
//
// On several lanes it also runs the asker's spares (oracle.Spares) where
// a lane would otherwise wait for the batch's last query: each one whose
// predicted device time fits in that wait.
package dispatch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/mealy"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/oracle"
	"github.com/droidstar/droidstar/internal/query"
)

// Scheduler spreads batches over its executors. When every executor takes
// batches (backend.BatchExecutor), each gets its share of a batch in one
// call (or a few, see RequestTime), so that a device costs one round trip
// per batch rather than one per query; otherwise the
// queries go one at a time to whichever executor is free. It records, per
// executor, what ran and the assumption violations the executors report.
// Executors must answer in the output alphabet's names (a mapper in front
// of a backend translates the backend's own callback names).
type Scheduler struct {
	Executors []backend.Executor
	Inputs    *mealy.Alphabet
	Outputs   *mealy.Alphabet
	Sem       mealy.Semantics
	Recorder  *oracle.Recorder
	// Stop, when closed, ends dispatching: no query or share starts after
	// it, the ones already running finish (their context is not
	// cancelled), and Ask fails with ErrStopped. A stop on a signal uses
	// it to keep what the device is doing instead of throwing it away.
	Stop <-chan struct{}
	// RequestTime, when positive, caps the device time of one
	// ExecuteBatch call: a harness answers a run request only once all of
	// it has run, so a stop whose grace period ends in the middle of a
	// request loses the whole request, and a stop waits for it. An
	// executor's share then goes in requests of as many queries as take
	// about RequestTime at the executor's mean device time per query so
	// far (one query alone while it has run none), and a stop starts no
	// further request.
	RequestTime time.Duration
	// Virtual says the executors' device time is simulated, not spent
	// (the simulator's virtual clock): the executors then take the batch's
	// queries in the order a real run's lanes would, one at a time on the
	// simulated timeline, so that a cut-off stops exactly the queries a
	// real run would not have started, the same ones on every run.
	Virtual bool
	// Dispose is the call that ends each query's instance ("" when none
	// does), for the advice on callbacks that arrive in a later query.
	Dispose string
	// Ignore says whether the purpose drops an undeclared callback on
	// purpose (its ignore: list); the others are recorded. nil ignores
	// none.
	Ignore func(callback string) bool
	// serials names the executors, described once.
	serials []string
	once    sync.Once
	costs   costModel
}

// ErrStopped is Ask's failure once Stop is closed.
var ErrStopped = errors.New("dispatching stopped")

func (s *Scheduler) stopped() bool {
	select {
	case <-s.Stop:
		return true
	default:
		return false
	}
}

// round is one Ask in progress: the answers so far and the first failure.
// Its queries are the asker's, then the spares that may run (see
// oracle.Spares): indices from asked on are spares, answered to spare.
type round struct {
	queries  []mealy.Word
	asked    int
	spare    func(k int, a oracle.Answer)
	answers  []oracle.Answer
	answered []bool          // each index is written by one goroutine only
	device   []time.Duration // each answer's device time, written with it
	cancel   context.CancelFunc
	// order is the order the queries start in; predicted their predicted
	// device times (nil without an expectation).
	order     []int
	predicted []float64
	exp       oracle.Expectation
	cut       atomic.Bool // an answer surprised an expectation with CutOff
	makespan  time.Duration

	mu  sync.Mutex
	err error
}

// fail records the round's first failure and stops the other executors:
// their own errors, caused by the cancellation, come later and are not
// the reason.
func (r *round) fail(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
	r.cancel()
}

// set records query q's answer and the device time it took, and cuts
// the round off when the answer surprises an expectation that asks for it.
// A spare's answer goes to the spares' asker and cuts nothing off.
func (r *round) set(q int, a oracle.Answer, d time.Duration) {
	r.answers[q], r.answered[q], r.device[q] = a, true, d
	if q >= r.asked {
		r.spare(q-r.asked, a)
		return
	}
	if (r.exp.CutOff || r.exp.OnSurprise != nil) && r.exp.Surprise(r.queries[q], a) {
		if r.exp.OnSurprise != nil {
			r.exp.OnSurprise(r.queries[q], a)
		}
		if r.exp.CutOff {
			r.cut.Store(true)
		}
	}
}

// Ask implements oracle.Oracle. When it fails after some queries were
// answered, the error is an *oracle.PartialError holding those answers;
// a batch an expectation cut off fails so with oracle.ErrCutOff.
func (s *Scheduler) Ask(ctx context.Context, queries []mealy.Word) ([]oracle.Answer, error) {
	if len(s.Executors) == 0 {
		return nil, errors.New("scheduler: no executors")
	}
	s.once.Do(func() {
		for _, ex := range s.Executors {
			s.serials = append(s.serials, ex.Describe().Serial)
		}
	})
	if s.stopped() {
		return nil, ErrStopped
	}
	execs, serials := s.Executors, s.serials
	if want, ok := oracle.PinnedDevice(ctx); ok {
		// A device that is not one of ours (an earlier run's, from the
		// store) pins nothing.
		if k := slices.Index(s.serials, want); k >= 0 {
			execs, serials = execs[k:k+1], serials[k:k+1]
		}
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	all := queries
	sp, spares := oracle.SparesOf(ctx)
	if spares = spares && sp.Answered != nil && len(execs) > 1; spares {
		all = append(slices.Clip(queries), sp.Words...)
	}
	r := &round{queries: all, asked: len(queries), spare: sp.Answered, answers: make([]oracle.Answer, len(all)),
		answered: make([]bool, len(all)), device: make([]time.Duration, len(all)), cancel: cancel}
	s.plan(ctx, r)
	s.Recorder.Scheduled(len(queries))
	switch batchers := batchers(execs); {
	case batchers != nil:
		s.askShares(ctx, r, batchers, serials)
	case s.Virtual:
		s.askVirtual(ctx, r, execs, serials)
	default:
		s.askEach(ctx, r, execs, serials)
	}
	s.Recorder.Makespan(r.makespan)
	answers, answered := r.answers[:r.asked:r.asked], r.answered[:r.asked:r.asked]
	err := r.err
	if err == nil {
		err = parent.Err()
	}
	if err == nil && slices.Contains(answered, false) && s.stopped() {
		err = ErrStopped
	}
	if err == nil && slices.Contains(answered, false) && r.cut.Load() {
		err = oracle.ErrCutOff
	}
	if err == nil {
		return answers, nil
	}
	for _, ok := range answered {
		if ok {
			return nil, &oracle.PartialError{Answers: answers, Answered: answered, Err: err}
		}
	}
	return nil, err
}

// batchers returns the executors as batch executors when all of them are.
func batchers(execs []backend.Executor) []backend.BatchExecutor {
	out := make([]backend.BatchExecutor, len(execs))
	for k, ex := range execs {
		b, ok := ex.(backend.BatchExecutor)
		if !ok {
			return nil
		}
		out[k] = b
	}
	return out
}

// plan orders the round's queries: longest predicted device time first
// when the asker said what it expects (a stable sort: equal predictions
// keep the batch's order), else in the batch's order.
func (s *Scheduler) plan(ctx context.Context, r *round) {
	r.order = make([]int, r.asked)
	for k := range r.order {
		r.order[k] = k
	}
	exp, ok := oracle.ExpectationOf(ctx)
	if !ok {
		return
	}
	r.exp = exp
	r.predicted = make([]float64, r.asked)
	for k, q := range r.queries[:r.asked] {
		r.predicted[k] = s.costs.predict(s.Sem, q, exp.Outputs(q))
	}
	sort.SliceStable(r.order, func(a, b int) bool { return r.predicted[r.order[a]] > r.predicted[r.order[b]] })
}

// predictions are the predicted device times, in seconds, of the round's
// queries (the asker's and the spares): from the expectation's outputs
// when there is one, else from what the cache above knows of each word
// and the longest its other steps took (costModel.predictBlind). ok is
// false when some query cannot be predicted yet.
func (s *Scheduler) predictions(ctx context.Context, r *round) (secs []float64, ok bool) {
	secs = make([]float64, len(r.queries))
	for k, q := range r.queries {
		if secs[k], ok = s.predictOne(ctx, r, q); !ok {
			return nil, false
		}
	}
	return secs, true
}

// predictOne is one of predictions.
func (s *Scheduler) predictOne(ctx context.Context, r *round, q mealy.Word) (float64, bool) {
	if r.exp.Outputs != nil {
		return s.costs.predict(s.Sem, q, r.exp.Outputs(q)), s.costs.measured()
	}
	var prefix mealy.Word
	if known, ok := oracle.KnownOf(ctx); ok {
		prefix = known(q)
	}
	return s.costs.predictBlind(s.Sem, q, prefix)
}

func seconds(secs float64) time.Duration { return time.Duration(secs * float64(time.Second)) }

// askEach feeds the queries one at a time to whichever executor is free,
// so a fast executor takes more of them.
func (s *Scheduler) askEach(ctx context.Context, r *round, execs []backend.Executor, serials []string) {
	fits := s.spareFits(ctx, r, len(execs))
	next := make(chan int)
	var wg sync.WaitGroup
	for k, ex := range execs {
		wg.Add(1)
		go func(ex backend.Executor, serial string) {
			defer wg.Done()
			for q := range next {
				if r.cut.Load() {
					continue // handed out just as another answer cut the round off
				}
				if q >= r.asked {
					if !fits(q) {
						continue
					}
					s.Recorder.Scheduled(1)
				}
				a, d, err := s.run(ctx, ex, serial, r.queries[q])
				if err != nil {
					r.fail(err)
					return
				}
				r.set(q, a, d)
			}
		}(ex, serials[k])
	}
	var issued []int
	// The spares go out after the asker's queries, in the asker's order.
	order := slices.Clip(r.order)
	for q := r.asked; q < len(r.queries); q++ {
		order = append(order, q)
	}
feed:
	for _, k := range order {
		if s.stopped() || r.cut.Load() {
			break // a free executor and a stop both ready: the stop wins
		}
		select {
		case next <- k:
			issued = append(issued, k)
		case <-ctx.Done():
			break feed
		case <-s.Stop:
			break feed
		}
	}
	close(next)
	wg.Wait()
	// The lanes took the queries in the order they were handed out, each
	// as it came free: list scheduling, as Makespan plays it out.
	times := make([]time.Duration, 0, len(issued))
	for _, k := range issued {
		if r.answered[k] {
			times = append(times, r.device[k])
		}
	}
	r.makespan = Makespan(times, len(execs))
}

// spareFits returns what tells, as an executor comes free in real time,
// whether spare q fits before the round's predicted end.
func (s *Scheduler) spareFits(ctx context.Context, r *round, lanes int) func(q int) bool {
	end, ok := s.predictedEnd(ctx, r, lanes)
	if !ok {
		return func(int) bool { return false }
	}
	begin := time.Now()
	return func(q int) bool {
		secs, ok := s.predictOne(ctx, r, r.queries[q])
		return ok && time.Since(begin)+seconds(secs) <= end
	}
}

// predictedEnd is when the round's own queries are predicted to end: list
// scheduled in their order on their predicted times. ok is false when the
// round has no spares or some query cannot be predicted yet.
func (s *Scheduler) predictedEnd(ctx context.Context, r *round, lanes int) (time.Duration, bool) {
	if r.asked == len(r.queries) {
		return 0, false
	}
	times := make([]time.Duration, 0, r.asked)
	for _, q := range r.order {
		secs, ok := s.predictOne(ctx, r, r.queries[q])
		if !ok {
			return 0, false
		}
		times = append(times, seconds(secs))
	}
	return Makespan(times, lanes), true
}

// askVirtual is askEach on the simulated timeline: each query goes to the
// lane that comes free first (the lowest-numbered on a tie), one at a
// time, and a cut-off stops the queries that would start once the
// surprising answer is in, as on real lanes. Simulated executors answer
// at once, so running them one after another costs nothing.
func (s *Scheduler) askVirtual(ctx context.Context, r *round, execs []backend.Executor, serials []string) {
	free := make([]time.Duration, len(execs))
	cutAt := time.Duration(-1) // when the first surprising answer came in
	// Predicted before the batch runs, as askEach does on real lanes.
	end, spares := s.predictedEnd(ctx, r, len(execs))
	for _, q := range r.order {
		if s.stopped() || ctx.Err() != nil {
			break
		}
		lane := lowest(free)
		if cutAt >= 0 && free[lane] >= cutAt {
			break
		}
		a, d, err := s.run(ctx, execs[lane], serials[lane], r.queries[q])
		if err != nil {
			r.fail(err)
			break
		}
		cut := r.cut.Load()
		r.set(q, a, d)
		free[lane] += d
		if !cut && r.cut.Load() {
			cutAt = free[lane]
		}
		s.Recorder.Reached(free[lowest(free)])
	}
	if spares && r.err == nil && cutAt < 0 {
		s.spareVirtual(ctx, r, execs, serials, free, end)
	}
	r.makespan = slices.Max(free)
}

// spareVirtual runs the round's spares on the simulated lanes as askEach
// does on real ones: in the asker's order, each on the lane that comes
// free first, when its predicted time fits before the batch's predicted
// end (see spareFits); one that does not is passed over for the next.
func (s *Scheduler) spareVirtual(ctx context.Context, r *round, execs []backend.Executor, serials []string, free []time.Duration, end time.Duration) {
	for q := r.asked; q < len(r.queries); q++ {
		if s.stopped() || ctx.Err() != nil {
			return
		}
		lane := lowest(free)
		if free[lane] >= end {
			return
		}
		secs, ok := s.predictOne(ctx, r, r.queries[q])
		if !ok || free[lane]+seconds(secs) > end {
			continue
		}
		s.Recorder.Scheduled(1)
		a, d, err := s.run(ctx, execs[lane], serials[lane], r.queries[q])
		if err != nil {
			r.fail(err)
			return
		}
		r.set(q, a, d)
		free[lane] += d
		s.Recorder.Reached(free[lowest(free)])
	}
}

// lowest is the index of the least of xs, the lowest index on a tie: the
// lane that comes free first, the share with the least load.
func lowest[T cmp.Ordered](xs []T) int {
	least := 0
	for k := range xs {
		if xs[k] < xs[least] {
			least = k
		}
	}
	return least
}

// Makespan is how long lanes take to run queries of the given device
// times handed out in this order, each to the lane that comes free first
// (the lowest-numbered on a tie), every lane running its queries back to
// back: list scheduling, what askEach does in real time. It is the
// estimated wall time of a batch; ADB round trips and the host's own
// work are left out.
func Makespan(times []time.Duration, lanes int) time.Duration {
	if lanes < 1 || len(times) == 0 {
		return 0
	}
	free := make([]time.Duration, lanes)
	for _, d := range times {
		lane := lowest(free)
		free[lane] += d
	}
	return slices.Max(free)
}

func (s *Scheduler) run(ctx context.Context, ex backend.Executor, serial string, q mealy.Word) (oracle.Answer, time.Duration, error) {
	s.Recorder.Busy(serial, true)
	res, err := ex.Execute(ctx, s.Inputs.Strings(q))
	s.Recorder.Busy(serial, false)
	if err != nil {
		return oracle.Answer{}, 0, fmt.Errorf("%s: query %s: %w", serial, s.Inputs.Format(q), err)
	}
	a, err := s.record(ctx, serial, q, res)
	return a, res.Device, err
}

// askShares gives each executor its share of the batch in one call (or
// in requests of RequestTime's size). With predictions, the shares are
// balanced on predicted device time. A share runs back to back on its
// device, so its order changes nothing of its time: it keeps the batch's.
func (s *Scheduler) askShares(ctx context.Context, r *round, execs []backend.BatchExecutor, serials []string) {
	var shares [][]int
	if r.predicted != nil {
		shares = SplitCosts(r.predicted, len(execs))
	} else {
		shares = Split(r.queries[:r.asked], len(execs))
	}
	s.spareShares(ctx, r, shares)
	var wg sync.WaitGroup
	for k, share := range shares {
		if len(share) == 0 || s.stopped() {
			continue
		}
		wg.Add(1)
		go func(ex backend.BatchExecutor, serial string, share []int) {
			defer wg.Done()
			s.runShare(ctx, r, ex, serial, share)
		}(execs[k], serials[k], share)
	}
	wg.Wait()
	// Each executor ran its share back to back.
	for _, share := range shares {
		var sum time.Duration
		for _, q := range share {
			if r.answered[q] {
				sum += r.device[q]
			}
		}
		r.makespan = max(r.makespan, sum)
	}
}

// spareShares appends to the shares the round's spares that fit, in the
// asker's order: each to the share predicted to end first, when it still
// ends no later than the longest share (so the batch's predicted makespan
// stays). A share runs back to back, so its spares run after its own
// queries.
func (s *Scheduler) spareShares(ctx context.Context, r *round, shares [][]int) {
	if r.asked == len(r.queries) {
		return
	}
	secs, ok := s.predictions(ctx, r)
	if !ok {
		return
	}
	load := make([]float64, len(shares))
	for k, share := range shares {
		for _, q := range share {
			load[k] += secs[q]
		}
	}
	end := slices.Max(load)
	added := 0
	for q := r.asked; q < len(r.queries); q++ {
		least := lowest(load)
		if load[least] >= end {
			break
		}
		if load[least]+secs[q] > end {
			continue
		}
		shares[least] = append(shares[least], q)
		load[least] += secs[q]
		added++
	}
	s.Recorder.Scheduled(added)
}

// runShare runs an executor's share in requests of RequestTime's size; a
// cut-off starts no further request.
func (s *Scheduler) runShare(ctx context.Context, r *round, ex backend.BatchExecutor, serial string, share []int) {
	for len(share) > 0 {
		n := s.requestSize(serial, len(share))
		if !s.runRequest(ctx, r, ex, serial, share[:n]) {
			return
		}
		share = share[n:]
		if len(share) > 0 && (s.stopped() || ctx.Err() != nil || r.cut.Load()) {
			return
		}
	}
}

// requestSize is how many of the left queries the next request to the
// executor serial carries. A request runs to its end, so a cut-off stops
// only the requests after it: learn sizes them (RequestTime).
func (s *Scheduler) requestSize(serial string, left int) int {
	if s.RequestTime <= 0 {
		return left
	}
	for _, d := range s.Recorder.Devices() {
		if d.Serial != serial || d.Executed == 0 {
			continue
		}
		if d.DeviceSecs <= 0 {
			return left
		}
		n := s.RequestTime.Seconds() / (d.DeviceSecs / float64(d.Executed))
		return max(1, min(left, int(n)))
	}
	return 1
}

// runRequest runs part of a share in one call, and says whether all of
// it was answered.
func (s *Scheduler) runRequest(ctx context.Context, r *round, ex backend.BatchExecutor, serial string, share []int) bool {
	inputs := make([][]string, len(share))
	for i, q := range share {
		inputs[i] = s.Inputs.Strings(r.queries[q])
	}
	s.Recorder.Busy(serial, true)
	results, err := ex.ExecuteBatch(ctx, inputs)
	s.Recorder.Busy(serial, false)
	if len(results) > len(share) {
		r.fail(fmt.Errorf("%s: backend answered %d results for a batch of %d queries", serial, len(results), len(share)))
		return false
	}
	for i, res := range results {
		q := r.queries[share[i]]
		a, cerr := s.record(ctx, serial, q, res)
		if cerr != nil {
			r.fail(cerr)
			return false
		}
		r.set(share[i], a, res.Device)
	}
	if err == nil && len(results) < len(share) {
		err = fmt.Errorf("backend answered %d results for a batch of %d queries", len(results), len(share))
	}
	if err != nil {
		r.fail(s.shareError(serial, r.queries, share[len(results):], err))
		return false
	}
	return true
}

// shareError names what failed: the query a *query.Error blames,
// else the queries of the share left without an answer.
func (s *Scheduler) shareError(serial string, queries []mealy.Word, left []int, err error) error {
	var qe *query.Error
	if errors.As(err, &qe) && qe.Index >= 0 && len(left) > 0 {
		return fmt.Errorf("%s: query %s: %w", serial, s.Inputs.Format(queries[left[0]]), qe.Err)
	}
	if len(left) == 1 {
		return fmt.Errorf("%s: query %s: %w", serial, s.Inputs.Format(queries[left[0]]), err)
	}
	const show = 3
	names := make([]string, 0, show)
	for _, q := range left[:min(len(left), show)] {
		names = append(names, s.Inputs.Format(queries[q]))
	}
	more := ""
	if len(left) > show {
		more = fmt.Sprintf(" and %d more", len(left)-show)
	}
	return fmt.Errorf("%s: %d queries (%s%s): %w", serial, len(left), strings.Join(names, ", "), more, err)
}

// record accounts one result an executor ran to the end and converts it.
func (s *Scheduler) record(ctx context.Context, serial string, q mealy.Word, res query.Result) (oracle.Answer, error) {
	s.Recorder.Executed(ctx, serial, len(res.Outputs), res.Device)
	s.Recorder.Warn(res.Warnings...)
	if len(res.Timing) > 0 || res.Stragglers > 0 {
		s.Recorder.Warn(res.TimingWarnings(s.Inputs.Strings(q), s.Dispose)...)
	}
	for _, u := range res.Undeclared {
		if s.Ignore == nil || !s.Ignore(u.Callback) {
			s.Recorder.Undeclared(u.Callback, u.Count)
		}
	}
	a, err := s.convert(q, res)
	if err != nil {
		return oracle.Answer{}, fmt.Errorf("%s: query %s: %w", serial, s.Inputs.Format(q), err)
	}
	a.Device, a.Quiescence, a.Waits = serial, res.Quiescence, res.Waits
	if len(res.Steps) <= len(q) {
		a.Steps = res.Steps
		s.costs.learn(s.Sem, q, a.Outputs, res.Steps, res.Device)
	}
	return a, nil
}

// Split divides a batch into n shares of about equal cost, a query
// costing its length plus one (the reset): the longest queries are placed
// first, each on the share with the least cost so far. Each share lists
// query indices in batch order.
func Split(queries []mealy.Word, n int) [][]int {
	costs := make([]float64, len(queries))
	for k, q := range queries {
		costs[k] = float64(len(q) + 1)
	}
	return SplitCosts(costs, n)
}

// SplitCosts is Split with each query's cost given.
func SplitCosts(costs []float64, n int) [][]int {
	shares := make([][]int, n)
	if n == 0 {
		return shares
	}
	order := make([]int, len(costs))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool { return costs[order[a]] > costs[order[b]] })
	load := make([]float64, n)
	for _, q := range order {
		least := lowest(load)
		shares[least] = append(shares[least], q)
		load[least] += costs[q]
	}
	for _, sh := range shares {
		sort.Ints(sh)
	}
	return shares
}

// convert turns a result's output names into symbols; the outputs after
// the first err are err (the executor may stop there).
func (s *Scheduler) convert(q mealy.Word, res query.Result) (oracle.Answer, error) {
	a := oracle.Answer{Outputs: make(mealy.Word, len(q)), ErrAt: -1}
	if len(res.Outputs) > len(q) {
		return a, fmt.Errorf("backend answered %d outputs for %d inputs", len(res.Outputs), len(q))
	}
	for k, name := range res.Outputs {
		o, ok := s.Outputs.Index(name)
		if !ok {
			return a, fmt.Errorf("backend answered %q, which is not an output (outputs: %s)", name, strings.Join(s.Outputs.Names(), ", "))
		}
		a.Outputs[k] = o
		if s.Sem.Closure && o == s.Sem.Err {
			a.ErrAt, a.Err = k, res.Err
			if a.Err == nil {
				a.Err = &model.ErrInfo{Kind: model.ErrUnknown}
			}
			s.Sem.ErrFrom(a.Outputs, k+1)
			return a, nil
		}
	}
	if len(res.Outputs) < len(q) {
		return a, fmt.Errorf("backend stopped after %d of %d inputs without an err", len(res.Outputs), len(q))
	}
	return a, nil
}
