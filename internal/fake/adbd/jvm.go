package adbd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// byeOp matches a bye request line of the harness protocol.
var byeOp = regexp.MustCompile(`"op"\s*:\s*"bye"`)

// JVMHarness bridges the harness socket to the real harness on the host
// JVM: every connection runs
//
//	java -XX:+DisplayVMOutputToStderr -XX:-UsePerfData -cp JAR org.droidstar.harness.jvm.Main --files FILESDIR
//
// with the connection on its stdin and stdout (the JVM harness speaks the
// protocol of harness-apk/PROTOCOL.md on stdio) and its stderr in logcat
// as `I droidstar-harness: ...` lines. A connection ended with bye if the
// host sent a bye request on it. jar is a file holding the harness jar
// (harnessapk.JVMJar written out by the caller).
func JVMHarness(java, jar string) HarnessFunc {
	return func(ctx context.Context, filesDir string) (func(context.Context, io.ReadWriteCloser) bool, error) {
		if _, err := os.Stat(jar); err != nil {
			return nil, fmt.Errorf("java.io.FileNotFoundException: the harness jar: %v", err)
		}
		return func(ctx context.Context, conn io.ReadWriteCloser) bool {
			return serveJVM(ctx, java, jar, filesDir, conn)
		}, nil
	}
}

func serveJVM(ctx context.Context, java, jar, filesDir string, conn io.ReadWriteCloser) bool {
	defer conn.Close()
	cmd := exec.CommandContext(ctx, java, "-XX:+DisplayVMOutputToStderr", "-XX:-UsePerfData",
		"-cp", jar, "org.droidstar.harness.jvm.Main", "--files", filesDir)
	// A JVM that ignores its closed stdin must not hold the device's
	// Close hostage through its pipes.
	cmd.WaitDelay = 2 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		Log(ctx, 'E', harnessTag, "jvm: "+err.Error())
		return false
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		Log(ctx, 'E', harnessTag, "jvm: "+err.Error())
		return false
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		Log(ctx, 'E', harnessTag, "jvm: "+err.Error())
		return false
	}
	if err := cmd.Start(); err != nil {
		Log(ctx, 'E', harnessTag, "jvm: "+err.Error())
		return false
	}

	var bye atomic.Bool
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		// host -> harness, line by line so that a bye can be seen
		defer wg.Done()
		defer stdin.Close()
		r := bufio.NewReader(conn)
		for {
			line, err := r.ReadBytes('\n')
			if byeOp.Match(line) {
				bye.Store(true)
			}
			if len(line) > 0 {
				if _, werr := stdin.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		// harness -> host; the harness closing its stdout ends the stream
		defer wg.Done()
		if _, err := io.Copy(conn, stdout); err != nil {
			io.Copy(io.Discard, stdout)
		}
		conn.Close()
	}()
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			Log(ctx, 'I', harnessTag, strings.TrimPrefix(sc.Text(), harnessTag+": "))
		}
		io.Copy(io.Discard, stderr)
	}()
	wg.Wait()
	if err := cmd.Wait(); err != nil && ctx.Err() == nil {
		Log(ctx, 'W', harnessTag, "jvm harness: "+err.Error())
	}
	return bye.Load()
}
