package adbd

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// systemPID is system_server's pid in the log lines of the activity
// manager and the package manager.
const systemPID = 612

// shellPID stands for the adb shell that runs `log`.
const shellPID = 7001

type logEntry struct {
	t        time.Time
	pid, tid int
	prio     byte
	tag, msg string
	// crash puts the entry in the crash buffer (logcat -b crash), where
	// RuntimeInit's handler of an uncaught exception writes "FATAL
	// EXCEPTION" (frameworks/base core/java/com/android/internal/os/
	// RuntimeInit.java: Clog_e, the crash log); the rest is main's.
	crash bool
}

// String formats the entry as `logcat -v threadtime` does.
func (e logEntry) String() string {
	return fmt.Sprintf("%s %5d %5d %c %-8s: %s", e.t.Format("01-02 15:04:05.000"), e.pid, e.tid, e.prio, e.tag, e.msg)
}

func (d *Device) logf(prio byte, tag, format string, args ...any) {
	d.logPID(systemPID, prio, tag, format, args...)
}

func (d *Device) logPID(pid int, prio byte, tag, format string, args ...any) {
	d.appendLog(logEntry{t: time.Now(), pid: pid, tid: pid, prio: prio, tag: tag, msg: fmt.Sprintf(format, args...)})
}

// logCrash writes a line of pid to the crash buffer.
func (d *Device) logCrash(pid int, tag, format string, args ...any) {
	d.appendLog(logEntry{t: time.Now(), pid: pid, tid: pid, prio: 'E', tag: tag, msg: fmt.Sprintf(format, args...), crash: true})
}

func (d *Device) appendLog(e logEntry) {
	d.mu.Lock()
	d.log = append(d.log, e)
	d.changedLocked()
	d.mu.Unlock()
}

// Logcat returns what `logcat -d` would print: the main, system and
// crash buffers, logcat's default.
func (d *Device) Logcat() []string {
	return d.logLines(func(logEntry) bool { return true })
}

func (d *Device) logLines(keep func(logEntry) bool) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var lines []string
	for _, e := range d.log {
		if keep(e) {
			lines = append(lines, e.String())
		}
	}
	return lines
}

// logcat dumps the log (-d, and anything else: the fake never follows the
// log, since nothing would end the command), keeps the last N lines (-t
// N), those of one process (--pid N) or of the buffers -b names (main,
// system, crash, all; by default all three), or clears it (-c). Formats
// (-v) and filter specs are accepted and ignored: every line is in
// threadtime format.
func (p *proc) logcat(args []string) int {
	last, pid := -1, 0
	var buffers []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "-c":
			p.d.mu.Lock()
			p.d.log = nil
			p.d.changedLocked()
			p.d.mu.Unlock()
			return 0
		case "-t", "-T", "-v", "-b", "-f", "-r", "-n", "-e", "--pid":
			if i+1 >= len(args) {
				p.errf("logcat: option requires an argument -- '%s'", a[1:])
				return 1
			}
			i++
			switch a {
			case "-t", "-T":
				n, err := strconv.Atoi(args[i])
				if err != nil || n < 0 {
					p.errf("logcat: -%s %q is not a line count", a[1:], args[i])
					return 1
				}
				last = n
			case "--pid":
				n, err := strconv.Atoi(args[i])
				if err != nil || n <= 0 {
					p.errf("logcat: --pid %q is not a pid", args[i])
					return 1
				}
				pid = n
			case "-b":
				for _, b := range strings.Split(args[i], ",") {
					switch b {
					case "main", "system", "crash", "all", "default":
						buffers = append(buffers, b)
					default:
						p.errf("logcat: unknown buffer %s", b)
						return 1
					}
				}
			}
		}
	}
	lines := p.d.logLines(func(e logEntry) bool {
		if pid != 0 && e.pid != pid {
			return false
		}
		if len(buffers) == 0 {
			return true
		}
		for _, b := range buffers {
			if b == "all" || b == "default" || (b == "crash") == e.crash {
				return true
			}
		}
		return false
	})
	if last >= 0 && len(lines) > last {
		lines = lines[len(lines)-last:]
	}
	for _, l := range lines {
		p.outf("%s", l)
	}
	return 0
}

// logCmd is Android's `log [-p PRIORITY] [-t TAG] MESSAGE...`: a shell
// writes a line to the device log, as droidstar does to mark where its run
// begins.
func (p *proc) logCmd(args []string) int {
	prio, tag := byte('I'), "log"
	for len(args) > 1 && (args[0] == "-p" || args[0] == "-t") {
		if args[0] == "-p" {
			prio = strings.ToUpper(args[1])[0]
		} else {
			tag = args[1]
		}
		args = args[2:]
	}
	if len(args) == 0 {
		p.errf("usage: log [-p PRIORITY] [-t TAG] MESSAGE...")
		return 1
	}
	p.d.logPID(shellPID, prio, tag, "%s", strings.Join(args, " "))
	return 0
}
