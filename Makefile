# droidstar: build, demo, test and benchmark targets. Only Go is required
# for build and demo; test also needs gcc for the race detector, Java 8+
# and junit4 for the harness, and Debian's aapt, zipalign, apksigner and
# dexdump to rebuild and inspect the APK, among others: .ci/setup names
# them all and make test runs it first (make setup).
GO      ?= go
BIN     ?= bin/droidstar
# The SVG helper (Graphviz compiled to WebAssembly); droidstar finds it next
# to itself.
RENDER  ?= $(dir $(BIN))droidstar-render
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1.0-dev)
LDFLAGS := -X github.com/droidstar/droidstar/internal/cli.Version=$(VERSION)

.PHONY: all build demo man setup setup-test test vet fmt-check check-examples check-device-purposes harness-test fuzz fuzz-ci bench bench-go bench-large bench-scaling clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/droidstar
	$(GO) build -o $(RENDER) ./cmd/droidstar-render

# A manual page for every command and help topic, into bin/man (read one
# with man -l bin/man/droidstar-learn.1). make test checks that they are
# generated (TestManPagesForEveryCommandAndTopic).
man:
	$(GO) run ./cmd/gen-man -o $(dir $(BIN))man

# Learn the MediaPlayer example on the simulated device (no phone needed),
# writing out/MediaPlayer.svg among the rest (no Graphviz needed).
demo: build
	$(BIN) learn --example mediaplayer -o out --write json,dot,legacy-dot,mermaid,lifestate --svg

# Every test: formatting, vet, example purposes, the harness (JUnit, and the
# committed jar and APK rebuilt byte for byte and inspected), the device
# purposes resolved against android.jar, and the Go tests with the race
# detector (internal/cli learns every JVM example twice, from its file and
# from init's draft, which takes longer than go test's default 10-minute
# limit under the race detector). The last line printed is go test's own. It starts with make
# setup, which installs the Debian packages these need (as root) or lists
# the missing ones with the command that installs them (otherwise).
test: setup
	$(MAKE) setup-test fmt-check vet check-examples harness-test check-device-purposes
	$(GO) test -race -count=1 -timeout 40m ./...

# The Debian packages make test needs (.ci/setup names them): installed
# when run as root, else listed with the one command that installs them.
setup:
	@.ci/setup

# .ci/setup's own test: fake commands on PATH, no apt-get run.
setup-test:
	@.ci/setup_test

harness-test:
	$(MAKE) -C harness-apk junit jar-check apk-check apk-inspect-check

vet:
	$(GO) vet ./...

fmt-check:
	@out="$$(gofmt -l cmd internal examples)"; if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# The examples' parameters, given as a CI job gives them: bluetoothadapter's
# paired device, an address of the documentation range (RFC 7042, 2.1.2),
# since the checks reach no device.
EXAMPLE_PARAMS := DROIDSTAR_SET_ADDRESS=00:00:5E:00:53:01

check-examples:
	$(EXAMPLE_PARAMS) $(GO) run ./cmd/droidstar check --resolve examples/*/*.yaml

# Every example purpose with an adb backend resolved on the host JVM against
# android.jar (API 23) and the class files of its jars, as the harness would
# on a device but running none of it: a misspelt method or a wrong argument
# type fails here, not on a phone. Examples whose library Debian does not
# package (volley, imageloader) are skipped, saying so, unless it is there.
check-device-purposes:
	$(EXAMPLE_PARAMS) $(GO) run ./internal/resolve/checkexamples

# Every fuzz target, one after another, each for FUZZTIME (default 60s):
# the readers of everything droidstar reads from files, harnesses and the
# adb server. A crash leaves its input in the package's testdata/fuzz/ for
# go test to replay from then on. Go fuzzes one target per run, hence the
# loop. FUZZPARALLEL is go test's -parallel (workers per target). Go
# spends up to a minute minimizing each new interesting input, counted in
# FUZZTIME but not in the execs it prints; FUZZMINIMIZE bounds that.
FUZZTIME     ?= 60s
FUZZPARALLEL ?= 2
FUZZMINIMIZE ?= 5s
FUZZ_TARGETS := \
	./internal/purpose:FuzzParse \
	./internal/backend/sim:FuzzParseDroidStarDOT \
	./internal/backend/sim:FuzzParseMealyDOT \
	./internal/backend/sim:FuzzParseModelJSON \
	./internal/backend/sim:FuzzDetectModel \
	./internal/model:FuzzUnmarshal \
	./internal/export:FuzzDecodeExport \
	./internal/report:FuzzDecodeReport \
	./internal/diff:FuzzCompare \
	./internal/harness:FuzzReply \
	./internal/harness:FuzzPurposeError \
	./internal/adbclient:FuzzParseReplies \
	./internal/adbclient:FuzzWire \
	./internal/adbclient:FuzzShellStream
fuzz:
	@echo "fuzz: $(words $(FUZZ_TARGETS)) targets for $(FUZZTIME) each"
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t#*:}; \
		echo "fuzz: $$name in $$pkg for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) -parallel $(FUZZPARALLEL) $$pkg; \
	done

# What CI runs before make test: every target for 100,000 inputs (from
# about 3 s for the parsers to a minute for the report). A count, not a
# duration: Go before 1.27 can fail a target with "context deadline
# exceeded" when a duration-based -fuzztime ends while a worker is busy
# (golang/go#75804, a race in its fuzzing coordinator, not a crash), which
# a loaded CI machine hit; a count never starts that deadline.
fuzz-ci:
	$(MAKE) fuzz FUZZTIME=100000x

# The comparison tables against DroidStar and AALpy (reads ../shared).
bench:
	$(GO) run ./cmd/droidstar bench

# Go benchmarks (speed and memory of the learner and the pipeline). The
# scaling benchmark is left out: it runs in real time (bench-scaling).
bench-go:
	$(GO) test -run '^$$' -bench . -skip 'Scaling|LargeModels' -benchmem ./...

# Peak memory (peak-MB, the child's rusage) and time of the real binary's
# export (every format), report and diff on seeded random models of
# LARGE_STATES states (10 inputs each); internal/bench/README.md says more. Run as
#   make bench-large LARGE_STATES=100000,150000,200000
LARGE_STATES ?= 1000,10000
bench-large:
	$(GO) test -run '^$$' -bench LargeModels -benchtime 1x -timeout 60m ./cmd/droidstar -args -large-states $(LARGE_STATES)

# Learning over 1, 2 and 4 fake devices through a real adb server, in real
# time (3 interleaved runs per count, the best kept: about 3 minutes; needs
# adb). Another example, other counts or runs:
#   go test -run '^$$' -bench Scaling -benchtime 1x ./internal/bench/scaling -args -example fileobserver -devices 1,2,3,4 -runs 5
bench-scaling:
	$(GO) test -run '^$$' -bench Scaling -benchtime 1x ./internal/bench/scaling

clean:
	rm -rf bin out
