package jvm

// KillWhen makes e's harness JVM die, killed by something other than the
// class (the OOM killer, a person), just before the first run request
// whose queries kill says so of (from now on, across restarts).
func KillWhen(e *Executor, kill func(queries [][]string) bool) {
	done := false
	e.beforeRun = func(e *Executor, queries [][]string) {
		if !done && kill(queries) {
			done = true
			e.killProcess()
		}
	}
}
