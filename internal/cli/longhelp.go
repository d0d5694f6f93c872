package cli

// The long help of the commands that learn, kept apart from their flags
// and wiring.

// learnLong is the description 'droidstar learn --help' prints.
const learnLong = `Learn runs L* with the distinguisher-bound equivalence oracle against the
purpose's backend, prints a summary, and writes the model (JSON) and the
typestate (DOT) to the output directory. --write picks other formats (see
'droidstar export --help'); --svg adds the typestate picture NAME.svg. With
--model it learns a model file directly, deriving the alphabet from the
model, as AALpy and LearnLib users learn a DOT file.

The bound oracle is exact when the target tells its states apart by words of
at most --bound free symbols, and only then; the summary says so ("exact if
the target needs bound <= B") and gives the bound the learned model needs,
which is not the target's: a bound too small for the target yields a smaller,
wrong model that needs no more. --bound auto starts at 1 and raises the bound
while a raised bound's rounds find counterexamples (up to 4, or auto:MAX) and
says where it settled and why. Once a hypothesis passes the bound, the
conformance test runs (--conformance, default wp:1: the Wp-method with one
extra state; a model that passes is exact also if the target has at most one
state more); random:N samples N random words instead; off skips it. The
summary says which check found each counterexample. When the target is known
in full (--model, or backend sim) the result is compared with it: the
summary's target line and the JSON's target object say whether they are equal
and the bound the target needs, and a warning names the shortest word on
which the result is wrong. --oracle perfect compares every hypothesis with
the target instead (backend sim only), so the result is exact.

On devices (backend: adb) the harness app is installed when missing or
different, the purpose's files are pushed and its runtime permissions granted
for the user in the foreground, whom the harness runs as. The screen stays on
while the device is plugged in over USB until the run ends, when the device's
setting is put back (--keep-awake=false leaves it alone).
With one device attached nothing needs choosing; otherwise --device SERIAL (or
ANDROID_SERIAL) picks one, and --devices all (or a list of serials) shares the
queries of one run among several, which must all answer alike. -H/-P (or
ADB_SERVER_SOCKET) reach a remote adb server, such as a device farm's.
On several lanes or devices, one that would wait for a batch's last query
runs words the learner expects to ask next (spares) when their predicted
device time fits in the wait: they count as executed queries and are kept
in the cache and the store like any other; one lane never runs one.

While learning, a live progress display on stderr shows the phase, the
queries run and answered from the cache, the hypothesis size, device time and
an estimate of what is left (plain periodic lines when stderr is not a
terminal); --quiet prints nothing but errors and warnings: no progress, no
summary, no list of the files written.

--timeout auto calibrates the quiescence timeout instead of waiting the
purpose's timeouts.quiescence on every quiet answer. It keeps one timeout
per wait context: the callin before the wait and how many waits came since
(start+2 is the second wait after start, +1 the first from the initial
state). Each starts at 50ms (auto:START to choose) and rises to twice the
slowest callback seen in its context, at least doubling, never above the
purpose's timeout: a wait answered by a callback waited its latency, and a
callback that came after its wait had answered quiet (a late callback, seen
while the query settles) came at least that timeout late. Every backend
times each wait on its own (the harness's run requests carry them). A wait
from the initial state and after each input from it runs first under the
purpose's timeout, and so do each hypothesis's quiet waits, from its
states and after each input from them, so that a callback too slow to show
otherwise raises its context's timeout early. A quiet answered under a
shorter timeout than its context's current one is never used: the cache
and the query store ask it again, and before a model is final learning
starts again from the cache until every quiet it rests on waited its
context's final timeout. The summary's timeout line says which contexts
rose, to what and why. The guarantee rests on the margin over the tail
observed in each context, not on a proof: a callback slower than every one
observed in its context (and slower than the purpose's timeout from the
states the confirmation runs) can still be missed when a callin pre-empts
it, or when it comes after the settle window where no late callback is
seen.

If learning fails part-way, the last hypothesis is written as
NAME.partial.json so nothing learned is lost. --max-queries N stops a run
once N queries have run on devices (answers from the cache or the store are
free) in the same way, with exit code 1. Every executed query is kept in
the query store (see 'droidstar store --help'), so running the same command
again resumes: no query runs twice and the model is the same; the summary
says how many answers came from the store. --fresh ignores what is stored.

SIGINT (Ctrl-C) or SIGTERM stops the run: no new query starts, the running
ones get --grace to finish, NAME.partial.json gets the last hypothesis (or,
before the first one, the statistics so far), harness JVMs are ended, their
temporary folders and the run's folder on the device removed, and droidstar
exits with 130 (SIGINT) or 143 (SIGTERM). A second Ctrl-C ends it at once
(a second SIGTERM does not: timeout(1) sends it twice). Since a harness
answers a request only once all of it has run, the queries go to devices and
harness JVMs in requests of about half --grace of device time each, so that
the one running at a stop finishes in time.`

// learnExample is the examples 'droidstar learn --help' prints.
const learnExample = `  droidstar learn --example asynctask
  droidstar learn examples/mediaplayer/purpose.yaml --backend sim -o out/ --write json,dot,legacy-dot
  droidstar learn --example asynctask -o out/ --svg --write json,mermaid,lifestate
  droidstar learn --model typestate.gv --bound 2 --quiescence 2s
  droidstar learn --model server.dot --lanes 4
  droidstar learn --model server.dot --oracle perfect   # exact, whatever bound it needs
  droidstar learn --model server.dot --bound auto --conformance wp:2
  droidstar learn --example mediaplayer --conformance random:500:7
  droidstar learn --example fileobserver --timeout auto     # calibrated quiescence
  droidstar learn examples/jvm/timer.yaml --store team.db   # a store shared with a team
  droidstar learn examples/jvm/timer.yaml --fresh           # run every query again
  droidstar learn examples/jvm/timer.yaml            # the real harness on the host JVM
  droidstar learn examples/mediaplayer/purpose.yaml --backend sim   # the model, no device
  droidstar learn examples/mediaplayer/purpose.yaml                  # the phone adb sees
  droidstar learn examples/mediaplayer/purpose.yaml --device emulator-5554
  droidstar learn examples/mediaplayer/purpose.yaml --devices all -H farm.example.org`

// matrixLong is the description 'droidstar matrix --help' prints.
const matrixLong = `Matrix is the nightly-CI job in one command: it learns the purpose on each
target, writes each model (NAME.json, NAME.dot), compares every target with the
first one (the baseline) as 'droidstar diff' does, and writes matrix.md and
matrix.json. A target that fails to learn leaves NAME.partial.json and the
others still run.

Every target is learned as 'droidstar learn' learns it: matrix takes the same
learning options (--learner, --bound, --conformance, --pad, --timeout auto,
the vote's flags, ...) with the same meaning, and each target's model records
them. Every target keeps the queries it executes in the query store (see
'droidstar store --help'), each under its own fingerprint, so running the
same command again resumes each target where it stopped; --fresh ignores
what is stored.

SIGINT (Ctrl-C) or SIGTERM stops the matrix as it stops learn: no new query
or target starts, the running queries get --grace to finish, each target
that was learning gets NAME.partial.json (its last hypothesis, or before the
first one its statistics), harness JVMs are ended and their temporary
folders and the run's folders on the devices removed; droidstar then says
which targets were learned, stopped or not run, and exits with 130 (SIGINT)
or 143 (SIGTERM) without writing matrix.md and matrix.json. The same command
again resumes every target from the query store. A second Ctrl-C ends it at
once.

Targets: with the sim backend, each --sim-model NAME=FILE (FILE relative to the
current directory) replaces the purpose's sim model and stands in for one
Android version; with the jvm backend, each --java NAME=PATH runs the harness
with another java command (two JDKs, say). Without either, the purpose as it
is is the only target, named after its backend; with the adb backend, each device
of --devices (all, or SERIAL or NAME=SERIAL entries) is a target, named
apiSDK after its Android SDK level unless named, and the devices learn in
parallel. NAMEs use letters, digits, '_', '-' and '.'.

Stdout gets the table, or with --format markdown matrix.md (for a CI job's
summary: the table, then each differing target's diff report), or with
--format json matrix.json.

Exit code: 0 when every target learned and all behave like the baseline, 1
when one differs or failed, 2 on a usage error, 4 when a target's answers
contradicted each other and re-running could not settle them (see --repeat):
the disagreeing traces are then shown side by side, and the other targets'
results are written all the same.`

// matrixExample is the examples 'droidstar matrix --help' prints.
const matrixExample = `  droidstar matrix examples/mediaplayer/purpose.yaml \
      --sim-model api23=models/mediaplayer-23.dot --sim-model api34=models/mediaplayer-34.dot -o out/

  # the README's example: one model identical to the baseline, one with a change
  cd testdata/matrix
  droidstar matrix purpose.yaml --sim-model api23=api23.dot --sim-model same=api23.dot --sim-model api34=api34.dot -o out

  # every attached device (one per Android version), learning in parallel
  droidstar matrix examples/mediaplayer/purpose.yaml --devices all -o out/
  droidstar matrix examples/mediaplayer/purpose.yaml --devices api23=emulator-5554,api34=emulator-5556

  # the real harness on two JDKs
  droidstar matrix examples/jvm/timer.yaml -o out/ \
      --java jdk17=/usr/lib/jvm/java-17-openjdk-amd64/bin/java --java jdk21=/usr/lib/jvm/java-21-openjdk-amd64/bin/java`
