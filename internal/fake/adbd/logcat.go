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
}

// String formats the entry as `logcat -v threadtime` does.
func (e logEntry) String() string {
	return fmt.Sprintf("%s %5d %5d %c %-8s: %s", e.t.Format("01-02 15:04:05.000"), e.pid, e.tid, e.prio, e.tag, e.msg)
}

func (d *Device) logf(prio byte, tag, format string, args ...any) {
	d.logPID(systemPID, prio, tag, format, args...)
}

func (d *Device) logPID(pid int, prio byte, tag, format string, args ...any) {
	e := logEntry{t: time.Now(), pid: pid, tid: pid, prio: prio, tag: tag, msg: fmt.Sprintf(format, args...)}
	d.mu.Lock()
	d.log = append(d.log, e)
	d.changedLocked()
	d.mu.Unlock()
}

// Logcat returns what `logcat -d` would print.
func (d *Device) Logcat() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	lines := make([]string, len(d.log))
	for i, e := range d.log {
		lines[i] = e.String()
	}
	return lines
}

// logcat dumps the log (-d, and anything else: the fake never follows the
// log, since nothing would end the command), keeps the last N lines (-t
// N) or clears it (-c). Formats (-v) and filter specs are accepted and
// ignored: every line is in threadtime format.
func (p *proc) logcat(args []string) int {
	last := -1
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
			if a == "-t" || a == "-T" {
				n, err := strconv.Atoi(args[i])
				if err != nil || n < 0 {
					p.errf("logcat: -%s %q is not a line count", a[1:], args[i])
					return 1
				}
				last = n
			}
		}
	}
	lines := p.d.Logcat()
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
