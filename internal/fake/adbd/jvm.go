package adbd

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// byeOp matches a bye request line of the harness protocol.
var byeOp = regexp.MustCompile(`"op"\s*:\s*"bye"`)

// JVMHarness bridges the harness socket to the real harness on the host
// JVM, held to the fake device's Android file rules: every connection runs
//
//	java -Djava.security.manager=AndroidFileRules -Ddroidstar.fake.shell_data=SHELLDATA
//	     -XX:+DisplayVMOutputToStderr -XX:-UsePerfData -cp JAR:RULES
//	     org.droidstar.harness.jvm.Main --staging STAGING --app-files FILES --app-code-cache CODE --run RUN
//
// with the connection on its stdin and stdout (the JVM harness speaks the
// protocol of harness-apk/PROTOCOL.md on stdio) and its stderr in logcat
// as `I droidstar-harness: ...` lines. The harness lays out its folders as
// on a device (the core's Workspace). AndroidFileRules (rules/, compiled
// with the javac beside java on first use, into a folder beside jar) is a
// security manager that refuses the app what SELinux refuses it under
// /data/local/tmp. A connection ended with bye if the host sent a bye
// request on it. jar is a file holding the harness jar (harnessapk.JVMJar
// written out by the caller).
func JVMHarness(java, jar string) HarnessFunc {
	return jvmHarness(java, jar, false)
}

// JVMHarnessInStaging runs the harness as droidstar's did before it had
// private folders: in the staging folder itself (`--files STAGING`), under
// the same rules. Android refuses that layout its files, and so does the
// fake: tests use it to show that the rules bite.
func JVMHarnessInStaging(java, jar string) HarnessFunc {
	return jvmHarness(java, jar, true)
}

func jvmHarness(java, jar string, inStaging bool) HarnessFunc {
	var once sync.Once
	var rules string
	var rulesErr error
	return func(ctx context.Context, run HarnessRun) (func(context.Context, io.ReadWriteCloser) bool, error) {
		if _, err := os.Stat(jar); err != nil {
			return nil, fmt.Errorf("java.io.FileNotFoundException: the harness jar: %v", err)
		}
		once.Do(func() { rules, rulesErr = compileRules(java, filepath.Dir(jar)) })
		if rulesErr != nil {
			return nil, fmt.Errorf("java.lang.IllegalStateException: fakeadbd: %v", rulesErr)
		}
		args := []string{"-Djava.security.manager=AndroidFileRules", "-Ddroidstar.fake.shell_data=" + run.ShellData,
			"-XX:+DisplayVMOutputToStderr", "-XX:-UsePerfData",
			"-cp", jar + string(os.PathListSeparator) + rules, "org.droidstar.harness.jvm.Main"}
		if inStaging {
			if run.Staging == "" {
				return nil, errors.New("java.lang.IllegalStateException: no -e staging folder to work in")
			}
			args = append(args, "--files", run.Staging)
		} else {
			if run.Staging == "" || run.Run == "" {
				return nil, errors.New("java.lang.IllegalArgumentException: the harness needs -e staging DIR and -e run ID")
			}
			args = append(args, "--staging", run.Staging, "--app-files", run.FilesRoot,
				"--app-code-cache", run.CodeCache, "--run", run.Run)
		}
		return func(ctx context.Context, conn io.ReadWriteCloser) bool {
			return serveJVM(ctx, java, args, conn)
		}, nil
	}
}

//go:embed rules/AndroidFileRules.java
var androidFileRules []byte

// compileRules compiles AndroidFileRules into a new folder under dir and
// returns it. A security manager is what lets a JVM running as root be
// refused files; Java 24 removed it (JEP 486), so the fake says so rather
// than run without rules.
func compileRules(java, dir string) (string, error) {
	javac := "javac"
	if p, err := exec.LookPath(java); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			if c := filepath.Join(filepath.Dir(real), "javac"); fileExists(c) {
				javac = c
			}
		}
	}
	out, err := exec.Command(javac, "-version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("the Android file rules need javac: %v: %s", err, out)
	}
	if major := javaMajor(string(out)); major >= 24 {
		return "", fmt.Errorf("the Android file rules need a JDK with a security manager (8 to 23; JEP 486 removed it in 24), and %s is %s", javac, strings.TrimSpace(string(out)))
	}
	tmp, err := os.MkdirTemp(dir, "android-file-rules-")
	if err != nil {
		return "", err
	}
	src := filepath.Join(tmp, "AndroidFileRules.java")
	if err := os.WriteFile(src, androidFileRules, 0o644); err != nil {
		return "", err
	}
	// Java 8 bytecode loads on every JDK the harness supports.
	if out, err := exec.Command(javac, "--release", "8", "-nowarn", "-d", tmp, src).CombinedOutput(); err != nil {
		return "", fmt.Errorf("compile the Android file rules: %v: %s", err, out)
	}
	return tmp, nil
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// javaMajor reads the major version from `javac -version` ("javac 17.0.15",
// "javac 1.8.0_392"); 0 when it cannot tell.
func javaMajor(version string) int {
	f := strings.Fields(version)
	if len(f) < 2 {
		return 0
	}
	v := strings.TrimPrefix(f[len(f)-1], "1.")
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

func serveJVM(ctx context.Context, java string, args []string, conn io.ReadWriteCloser) bool {
	defer conn.Close()
	cmd := exec.CommandContext(ctx, java, args...)
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
