// Package jvm runs queries through the Java harness on the host JVM: the
// same query runner the Android app uses, against JVM classes. Each
// executor is one java process speaking the wire protocol on its pipes.
package jvm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/droidstar/droidstar/internal/backend"
	"github.com/droidstar/droidstar/internal/harness"
	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/query"
)

// HarnessLogPrefix starts the harness's own log lines on the JVM's
// stderr (harness-apk's core Log).
const HarnessLogPrefix = "droidstar-harness: "

// MainClass is the harness's JVM entry point.
const MainClass = "org.droidstar.harness.jvm.Main"

// Options configure the JVM executors.
type Options struct {
	// Jar is the harness jar's content (the one embedded in droidstar).
	Jar []byte
	// Java is the java command; empty: JavaHome's bin/java, then PATH.
	Java string
	// JavaHome is $JAVA_HOME, as the composition root read it.
	JavaHome string
	// JVMOptions are extra flags before the class name.
	JVMOptions []string
	// CacheDir holds the unpacked jar (the composition root picks the
	// user's cache directory).
	CacheDir string
	// Host identifies droidstar in the hello.
	Host string
}

// Executor is one harness JVM.
type Executor struct {
	name   string
	cmd    *exec.Cmd
	client *harness.Client
	hello  harness.Hello
	dir    string // the harness's files directory, removed on Close
	stderr *tail
	done   chan struct{} // closed when the process has exited
	// exited holds the process's exit status once done is closed (a
	// pointer, so that it survives restart's copy).
	exited *exitStatus
	// relaunch starts a fresh harness JVM like this one, for a harness
	// whose main thread did not return (see ExecuteBatch).
	relaunch func(ctx context.Context) (*Executor, error)
	// timeouts are the runs' own quiescence timeouts (SetQuiescence,
	// SetWaitTimeouts), or harness.PurposeQuiescence.
	timeouts harness.Quiet
	// reviver restarts a harness JVM that died and finds the query that
	// killed it (see ExecuteBatch); it outlives the restarts.
	reviver *backend.Reviver
	// beforeRun, when set, is called before each run request: the tests'
	// way to kill the JVM at a point they choose.
	beforeRun func(e *Executor, queries [][]string)
}

// SetQuiescence implements backend.QuiescenceSetter: the runs from now on
// ask the harness for waits of d (at most the purpose's quiescence, which
// the harness enforces).
func (e *Executor) SetQuiescence(d time.Duration) { e.timeouts.Quiescence = d }

// SetWaitTimeouts implements backend.WaitTimeoutSetter: the runs from now
// on give each wait its own timeout (run's "waits").
func (e *Executor) SetWaitTimeouts(timeouts func(query []string) []time.Duration) {
	e.timeouts.Waits = timeouts
}

// FindJava resolves the java command: java itself when given, else
// javaHome's bin/java, else java on PATH.
func FindJava(java, javaHome string) (string, error) {
	if java != "" {
		p, err := exec.LookPath(java)
		if err != nil {
			return "", fmt.Errorf("backend jvm: java command %q: %w", java, err)
		}
		return p, nil
	}
	if javaHome != "" {
		p := filepath.Join(javaHome, "bin", "java")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", errors.New("backend jvm needs Java 8 or later, but there is no java on PATH and JAVA_HOME is not set (install a JRE, e.g. apt-get install default-jre-headless, or set backend.jvm.java)")
	}
	return p, nil
}

// Launcher starts harness JVMs, one per lane, with what every lane
// shares: the java command and the unpacked harness jar. Preparing those
// once makes a missing java or an unwritable cache one failure, not one
// per lane.
type Launcher struct {
	java, jar string
	o         Options
}

// Prepare finds the java command and unpacks the harness jar.
func Prepare(o Options) (*Launcher, error) {
	java, err := FindJava(o.Java, o.JavaHome)
	if err != nil {
		return nil, err
	}
	jar, err := unpackJar(o.Jar, o.CacheDir)
	if err != nil {
		return nil, err
	}
	return &Launcher{java: java, jar: jar, o: o}, nil
}

// Java is the java command the harness JVMs run with.
func (l *Launcher) Java() string { return l.java }

// HarnessJar is the path of the unpacked harness jar, whose host-side
// tools (the shim generator) run with the same java.
func (l *Launcher) HarnessJar() string { return l.jar }

// CacheDir is the private cache folder the harness jar is unpacked in.
func (l *Launcher) CacheDir() string { return l.o.CacheDir }

// Start launches one harness JVM for a purpose and configures it: Prepare
// and Launcher.Start in one, for a single lane.
func Start(ctx context.Context, p *purpose.Purpose, name string, o Options) (*Executor, error) {
	l, err := Prepare(o)
	if err != nil {
		return nil, err
	}
	return l.Start(ctx, p, name)
}

// Start launches one harness JVM, the lane called name, and configures
// it. A purpose the harness cannot resolve (unknown class, method,
// listener, argument type) fails here, as a purpose error at the
// offending line, before any query runs.
func (l *Launcher) Start(ctx context.Context, p *purpose.Purpose, name string) (_ *Executor, err error) {
	java, jar, o := l.java, l.jar, l.o
	dir, err := os.MkdirTemp("", "droidstar-jvm-")
	if err != nil {
		return nil, fmt.Errorf("backend jvm: files directory: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	if err := stageFiles(p, dir); err != nil {
		return nil, err
	}

	// The protocol owns stdout: the JVM's own warnings go to stderr, and
	// no hsperfdata file (whose warnings it would print) is written.
	args := append([]string{"-XX:+DisplayVMOutputToStderr", "-XX:-UsePerfData"}, o.JVMOptions...)
	args = append(args, "-cp", jar, MainClass, "--files", dir)
	cmd := exec.Command(java, args...)
	cmd.Dir = dir
	ownGroup(cmd)
	// Pipes of our own, not cmd.StdinPipe and StdoutPipe: Wait closes
	// those as soon as the process has exited, and Wait runs beside the
	// client here, so a JVM that died mid-query left the client reading
	// or writing a closed file ("read |0: file already closed") or seeing
	// EOF, depending on which came first. With these, a dead JVM is
	// always EOF on read and EPIPE on write (see pipe.Write); the client
	// closes our ends.
	childIn, stdin, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("backend jvm: %w", err)
	}
	stdout, childOut, err := os.Pipe()
	if err != nil {
		childIn.Close()
		stdin.Close()
		return nil, fmt.Errorf("backend jvm: %w", err)
	}
	cmd.Stdin, cmd.Stdout = childIn, childOut
	e := &Executor{name: name, cmd: cmd, dir: dir, stderr: &tail{max: 40}, done: make(chan struct{}), exited: &exitStatus{},
		timeouts: harness.Quiet{Quiescence: harness.PurposeQuiescence}}
	cmd.Stderr = e.stderr
	err = cmd.Start()
	// The JVM has its own copies of these ends; ours would keep EOF and
	// EPIPE away.
	childIn.Close()
	childOut.Close()
	if err != nil {
		stdout.Close()
		stdin.Close()
		return nil, fmt.Errorf("backend jvm: start %s: %w", java, err)
	}
	go func() {
		e.exited.err = cmd.Wait()
		close(e.done)
	}()
	e.client = harness.NewClient(pipe{stdout, stdin}, "harness "+name)
	defer func() {
		if err != nil {
			e.kill()
		}
	}()
	if e.hello, err = e.client.Hello(ctx, o.Host); err != nil {
		return nil, e.explain(err)
	}
	if _, err := e.client.Configure(ctx, harness.Configure(p)); err != nil {
		var perr purpose.ErrorList
		if errors.As(err, &perr) {
			return nil, err
		}
		return nil, e.explain(err)
	}
	e.relaunch = func(ctx context.Context) (*Executor, error) { return l.Start(ctx, p, name) }
	e.reviver = &backend.Reviver{
		Run:     e.runSurvivingWedges,
		Restart: func(ctx context.Context, _ *backend.DiedError) error { return e.restart(ctx) },
	}
	return e, nil
}

var _ backend.BatchExecutor = (*Executor)(nil)

// Execute runs one query on a fresh instance.
func (e *Executor) Execute(ctx context.Context, inputs []string) (query.Result, error) {
	return backend.ExecuteOne(ctx, e, inputs)
}

// ExecuteBatch runs the queries in one run request. A harness JVM that
// dies during it (the class halted it or crashed it natively, or
// something else killed it) is replaced by a fresh one, and the queries
// left without a result run again alone: one that kills the JVM twice
// answers err of kind crash, with the JVM's last words on stderr (see
// backend.Reviver).
func (e *Executor) ExecuteBatch(ctx context.Context, queries [][]string) ([]query.Result, error) {
	return e.reviver.ExecuteBatch(ctx, queries)
}

// runSurvivingWedges is one run request, and more when the harness
// wedges. A harness whose main thread did not return in time (a hang, or
// a JVM stalled on a loaded machine) is ended and a fresh one started, as
// the adb backend does with the app: the query that wedged it runs once
// more alone, then the rest. A query that wedges a fresh harness too
// fails the batch after the results before it, with both events.
func (e *Executor) runSurvivingWedges(ctx context.Context, queries [][]string) ([]query.Result, error) {
	out, err := e.runBatch(ctx, queries)
	var w *harness.WedgedError
	if err == nil || !errors.As(err, &w) || e.relaunch == nil || ctx.Err() != nil {
		return out, err
	}
	if rerr := e.restart(ctx); rerr != nil {
		return out, fmt.Errorf("%w; starting a fresh harness JVM: %v", err, rerr)
	}
	note := fmt.Sprintf("the harness JVM %s wedged (%v) and was restarted", e.name, w)
	rest := queries[len(out):]
	if w.Timeout != nil && len(rest) > 0 {
		// The query whose call timed out has no result: alone, once more.
		again, err2 := e.runBatch(ctx, rest[:1])
		if err2 != nil {
			var w2 *harness.WedgedError
			if errors.As(err2, &w2) {
				return out, &query.Error{Index: len(out), Err: fmt.Errorf("%v, and again in a fresh harness JVM: %w", w, w2)}
			}
			return out, shift(err2, len(out))
		}
		again[0].Warnings = append(again[0].Warnings, note+"; this query ran again there")
		out = append(out, again...)
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return out, nil
	}
	more, err := e.runSurvivingWedges(ctx, rest)
	return append(out, more...), shift(err, len(out))
}

type exitStatus struct{ err error }

// shift places a batch error of a later part of the batch: a query's index
// moves by n.
func shift(err error, n int) error {
	var qe *query.Error
	if err != nil && errors.As(err, &qe) {
		return &query.Error{Index: qe.Index + n, Err: qe.Err}
	}
	return err
}

// restart ends this harness JVM and puts a fresh one in its place.
func (e *Executor) restart(ctx context.Context) error {
	e.kill()
	os.RemoveAll(e.dir)
	fresh, err := e.relaunch(ctx)
	if err != nil {
		return err
	}
	relaunch, timeouts, reviver, beforeRun := e.relaunch, e.timeouts, e.reviver, e.beforeRun
	*e = *fresh
	e.relaunch, e.timeouts, e.reviver, e.beforeRun = relaunch, timeouts, reviver, beforeRun
	return nil
}

// runBatch is one run request.
func (e *Executor) runBatch(ctx context.Context, queries [][]string) ([]query.Result, error) {
	timeouts, err := e.timeouts.For(queries)
	if err != nil {
		return nil, err
	}
	if e.beforeRun != nil {
		e.beforeRun(e, queries)
	}
	rs, err := e.client.RunUnder(ctx, queries, timeouts)
	out, cerr := harness.ToResults(queries, rs)
	timeouts.Mark(out)
	if cerr != nil {
		return out, cerr
	}
	if err == nil {
		return out, nil
	}
	var w *harness.WedgedError
	if errors.As(err, &w) && w.Timeout != nil {
		return out, &query.Error{Index: w.Query, Err: err}
	}
	if d := e.died(err); d != nil {
		return out, d
	}
	if len(queries)-len(out) == 1 {
		return out, &query.Error{Index: len(out), Err: e.explain(err)}
	}
	return out, e.explain(err)
}

// died returns a *backend.DiedError when err is the harness closing the
// connection because its JVM ended, with how it ended and the last lines
// of its stderr; nil for any other error.
func (e *Executor) died(err error) *backend.DiedError {
	if !errors.Is(err, harness.ErrClosed) {
		return nil
	}
	// The pipes close as the JVM exits; Wait may report it a moment later.
	select {
	case <-e.done:
	case <-time.After(2 * time.Second):
		return nil
	}
	status := "exited"
	if e.exited.err != nil {
		status = e.exited.err.Error()
	}
	// Wait has copied all of stderr by the time done is closed. The
	// harness's own log lines narrate the protocol, not the death: the
	// last words are what the class, the JVM (a fatal error's report)
	// and uncaught exceptions wrote.
	var words []string
	for _, line := range e.stderr.Lines() {
		if !strings.HasPrefix(line, HarnessLogPrefix) {
			words = append(words, line)
		}
	}
	if len(words) > backend.MaxLastWords {
		words = words[len(words)-backend.MaxLastWords:]
	}
	return &backend.DiedError{Process: "the harness JVM " + e.name, Status: status, LastWords: words, Err: err}
}

// Describe reports the JVM the harness runs on.
func (e *Executor) Describe() model.DeviceInfo {
	return model.DeviceInfo{Serial: e.name, Platform: e.hello.Platform, Model: strings.TrimSpace(e.hello.Model), Release: e.hello.Release, SDK: e.hello.SDK}
}

// Hello is what the harness said about itself.
func (e *Executor) Hello() harness.Hello { return e.hello }

// Close asks the harness to end, waits for it briefly, and cleans up.
func (e *Executor) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	byeErr := e.client.Bye(ctx)
	e.client.Close()
	select {
	case <-e.done:
	case <-ctx.Done():
		e.kill()
	}
	os.RemoveAll(e.dir)
	if byeErr != nil && !errors.Is(byeErr, harness.ErrClosed) {
		return e.explain(byeErr)
	}
	return nil
}

func (e *Executor) kill() {
	e.client.Close()
	if e.cmd.Process != nil {
		e.cmd.Process.Kill()
	}
	<-e.done
}

// explain adds what the JVM said on stderr when the harness went away, so
// that a crash shows its stack trace instead of only "connection closed".
func (e *Executor) explain(err error) error {
	var re *harness.RemoteError
	if errors.As(err, &re) {
		return err
	}
	select {
	case <-e.done:
	case <-time.After(2 * time.Second):
	}
	msg := e.stderr.String()
	select {
	case <-e.done:
		status := "exited"
		if e.exited.err != nil {
			status = e.exited.err.Error()
		}
		if msg == "" {
			return fmt.Errorf("%w (the harness JVM %s)", err, status)
		}
		return fmt.Errorf("%w (the harness JVM %s; its last output:\n%s)", err, status, msg)
	default:
		return err
	}
}

// stageFiles copies the purpose's files and adapter jars into the
// harness's files directory, as the adb backend pushes them to a device.
func stageFiles(p *purpose.Purpose, dir string) error {
	files, err := harness.StagedFiles(p)
	if err != nil {
		return err
	}
	for _, f := range files {
		to := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return fmt.Errorf("backend jvm: stage %s: %w", f.Name, err)
		}
		if err := os.WriteFile(to, f.Data, 0o644); err != nil {
			return fmt.Errorf("backend jvm: stage %s: %w", f.Name, err)
		}
	}
	return nil
}

// pipe joins the JVM's stdout and stdin into one stream.
type pipe struct {
	io.ReadCloser
	w io.WriteCloser
}

// Write reports a JVM that is gone (no reader on its stdin any more) as
// io.ErrClosedPipe, which the harness client reports as the harness
// having closed the connection, as it does for EOF on read: which of the
// two a dead JVM causes first is a matter of timing.
func (p pipe) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if errors.Is(err, syscall.EPIPE) {
		err = io.ErrClosedPipe
	}
	return n, err
}

func (p pipe) Close() error {
	return errors.Join(p.w.Close(), p.ReadCloser.Close())
}

// tail keeps the last lines written to it.
type tail struct {
	mu    sync.Mutex
	max   int
	lines []string
	part  string
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.part + string(b)
	parts := strings.Split(s, "\n")
	t.part = parts[len(parts)-1]
	t.lines = append(t.lines, parts[:len(parts)-1]...)
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
	return len(b), nil
}

func (t *tail) String() string {
	return strings.Join(t.Lines(), "\n")
}

// Lines are the lines kept, the unfinished last one too.
func (t *tail) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := append([]string(nil), t.lines...)
	if t.part != "" {
		lines = append(lines, t.part)
	}
	return lines
}
