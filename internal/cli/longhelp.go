package cli

// The long help of the commands that learn, kept apart from their flags
// and wiring.

// learnLong is the description 'droidstar learn --help' prints: what
// learn does, in a few lines; the why of each option is a help topic.
const learnLong = `Learn learns the typestate of a purpose, an embedded example or a model file,
prints a summary, writes the model (JSON) and the typestate (DOT), and keeps the
queries in the query store, so the same command resumes (a stopped run leaves
NAME.partial.json). Reference: droidstar help model, timeouts, devices, store.`

// learnExample is the examples 'droidstar learn --help' prints.
const learnExample = `  droidstar learn --example asynctask -o out/ --svg --bound auto --conformance wp:2
  droidstar learn examples/jvm/timer.yaml              # the real class on this JVM
  droidstar learn examples/bluetoothadapter/purpose.yaml --set address=00:11:22:AA:BB:CC`

// matrixLong is the description 'droidstar matrix --help' prints.
const matrixLong = `Matrix is the nightly-CI job in one command: it learns the purpose on each
target as 'droidstar learn' would (same learning options, same query store, so
the same command again resumes), compares every target with the first (the
baseline) as 'droidstar diff' does, and writes each model, matrix.md and
matrix.json. A target that fails leaves NAME.partial.json; the others still run.

Targets: each --sim-model NAME=FILE (backend sim) or --java NAME=PATH (backend
jvm); with backend adb each device of --devices, named apiSDK unless named.
Without any, the purpose as it is is the only target.

Exit code: 0 when every target learned and behaves like the baseline, 1 when
one differs or failed, 2 on a usage error, 4 when answers contradicted each
other past --repeat. More: 'droidstar help ci', 'droidstar help exit-codes'.`

// matrixExample is the examples 'droidstar matrix --help' prints.
const matrixExample = `  droidstar matrix examples/mediaplayer/purpose.yaml \
      --sim-model api23=models/mediaplayer-23.dot --sim-model api34=models/mediaplayer-34.dot -o out/

  # one model identical to the baseline, one with a change (testdata/matrix)
  cd testdata/matrix
  droidstar matrix purpose.yaml --sim-model api23=api23.dot --sim-model same=api23.dot --sim-model api34=api34.dot -o out

  # every attached device (one per Android version), learning in parallel
  droidstar matrix examples/mediaplayer/purpose.yaml --devices all -o out/
  droidstar matrix examples/mediaplayer/purpose.yaml --devices api23=emulator-5554,api34=emulator-5556

  # the real harness on two JDKs
  droidstar matrix examples/jvm/timer.yaml -o out/ \
      --java jdk17=/usr/lib/jvm/java-17-openjdk-amd64/bin/java --java jdk21=/usr/lib/jvm/java-21-openjdk-amd64/bin/java`
