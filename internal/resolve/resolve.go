// Package resolve checks the harness part of device purposes without a
// device: the harness core's own resolution (Configuration.resolve, which
// runs nothing of a purpose) on the host JVM, against Debian's android.jar
// (API 23) and the JVM class files of the purposes' jars. A misspelt
// Android method, a wrong argument type or an unknown listener then fails
// at the purpose's line in CI, with the message a device would give at
// configure, instead of on a phone.
//
// The resolver is harness-apk/src/resolve, built by
// `make -C harness-apk resolver` (Build runs it).
package resolve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/droidstar/droidstar/internal/harness"
	"github.com/droidstar/droidstar/internal/purpose"
)

// MainClass is the resolver's entry point.
const MainClass = "org.droidstar.harness.resolve.Main"

// Options say how to run the resolver.
type Options struct {
	// Java is the java command (default: java on PATH).
	Java string
	// Classpath is the resolver's class path: its classes and android.jar,
	// as `make -C harness-apk resolver` prints it.
	Classpath string
}

// Job is one purpose to resolve.
type Job struct {
	Purpose *purpose.Purpose
	// Classpath holds the JVM class files (jars or folders) that the
	// purpose's jars were dexed from: the host JVM cannot load dex.
	Classpath []string
}

// Result is what resolving one purpose gave.
type Result struct {
	// Shims are the framework classes the harness's shims stand in for.
	Shims []string
	// Err is the configure error, at the purpose's line when it names a
	// field (as a device's would be), or nil.
	Err error
}

// Build builds the resolver with make in harnessDir (harness-apk) and
// returns its class path. It fetches android.jar when it is missing.
func Build(ctx context.Context, harnessDir string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "make", "-s", "--no-print-directory", "-C", harnessDir, "resolver")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("resolve: make -C %s resolver: %w\n%s%s", harnessDir, err, stdout.Bytes(), stderr.Bytes())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	return lines[len(lines)-1], nil
}

type request struct {
	Purpose   harness.Request `json:"purpose"`
	Classpath []string        `json:"classpath"`
}

type answer struct {
	OK    bool                 `json:"ok"`
	Shims []string             `json:"shims"`
	Error *harness.RemoteError `json:"error"`
}

// Run resolves the jobs in one JVM and returns one result per job. The
// error is for the run itself (no java, a resolver that died).
func Run(ctx context.Context, jobs []Job, o Options) ([]Result, error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	java := o.Java
	if java == "" {
		java = "java"
	}
	var in bytes.Buffer
	cfgs := make([]*harness.Configuration, len(jobs))
	for i, j := range jobs {
		cfgs[i] = harness.Configure(j.Purpose)
		// The resolver stages an empty placeholder for each jar and loads
		// the job's class path instead: the jars' digests cannot match.
		cfgs[i].Request.JarSHA256 = nil
		line, err := json.Marshal(request{Purpose: cfgs[i].Request, Classpath: j.Classpath})
		if err != nil {
			return nil, fmt.Errorf("resolve: %s: %w", j.Purpose.File, err)
		}
		in.Write(line)
		in.WriteByte('\n')
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, java, "-XX:-UsePerfData", "-cp", o.Classpath, MainClass)
	cmd.Stdin, cmd.Stderr = &in, &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("resolve: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("resolve: start %s: %w", java, err)
	}
	results, readErr := read(out, jobs, cfgs)
	waitErr := cmd.Wait()
	if readErr == nil && waitErr != nil {
		readErr = waitErr
	}
	if readErr != nil {
		return nil, fmt.Errorf("resolve: the resolver (%s -cp %s %s) failed: %w\n%s", java, o.Classpath, MainClass, readErr, stderr.Bytes())
	}
	return results, nil
}

// read takes one answer line per job.
func read(r io.Reader, jobs []Job, cfgs []*harness.Configuration) ([]Result, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	results := make([]Result, 0, len(jobs))
	for i := range jobs {
		if !sc.Scan() {
			if err := sc.Err(); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("it answered %d of %d purposes", i, len(jobs))
		}
		var a answer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			return nil, fmt.Errorf("answer %d: %w: %q", i+1, err, sc.Text())
		}
		res := Result{Shims: a.Shims}
		switch {
		case a.OK:
		case a.Error == nil:
			res.Err = fmt.Errorf("%s: the resolver answered neither ok nor an error", jobs[i].Purpose.File)
		default:
			a.Error.Op = "configure"
			res.Err = purposeError(cfgs[i], jobs[i].Purpose.File, a.Error)
		}
		results = append(results, res)
	}
	return results, nil
}

// purposeError places an error as harness.Client.Configure does: at the
// purpose's line when it names a field.
func purposeError(c *harness.Configuration, file string, e *harness.RemoteError) error {
	if c.Blames(e) {
		return c.PurposeError(e)
	}
	return fmt.Errorf("%s: %w", file, e)
}
