# droidstar: build, demo, test and benchmark targets. Only Go is required
# for build and demo; test also needs gcc for the race detector.
GO      ?= go
BIN     ?= bin/droidstar
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1.0-dev)
LDFLAGS := -X github.com/droidstar/droidstar/internal/cli.Version=$(VERSION)

.PHONY: all build demo test vet fmt-check check-examples bench bench-go clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/droidstar

# Learn the MediaPlayer example on the simulated device (no phone needed).
demo:
	$(GO) run ./cmd/droidstar learn --example mediaplayer -o out --write json,dot,legacy-dot

# Every test: formatting, vet, example purposes, and the Go tests with the
# race detector. The last line printed is go test's own.
test: fmt-check vet check-examples
	$(GO) test -race -count=1 ./...

vet:
	$(GO) vet ./...

fmt-check:
	@out="$$(gofmt -l cmd internal examples)"; if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

check-examples:
	$(GO) run ./cmd/droidstar check examples/*/purpose.yaml

# The comparison tables against DroidStar and AALpy (reads ../shared).
bench:
	$(GO) run ./cmd/droidstar bench

# Go benchmarks (speed and memory of the learner and the pipeline).
bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin out
