package adb

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/droidstar/droidstar/internal/adbclient"
)

// instrumentation is a running `am instrument -w`: its shell stream stays
// open while the harness runs, and what it prints explains a harness that
// failed to start (no instrumentation info, a crash in onCreate).
type instrumentation struct {
	stream *adbclient.ShellStream
	done   chan struct{}

	mu  sync.Mutex
	out strings.Builder
}

// startInstrumentation starts the harness on socket as user, to copy the
// run's staging folder into its own (see harness-apk/PROTOCOL.md).
func startInstrumentation(ctx context.Context, dev *adbclient.Device, socket, staging, run string, user int) (*instrumentation, error) {
	cmd := fmt.Sprintf("am instrument -w --user %d -e socket %s -e staging %s -e run %s %s", user, adbclient.Quote(socket), adbclient.Quote(staging), adbclient.Quote(run), Instrumentation)
	// The stream outlives Start's context: it lasts as long as the executor.
	s, err := dev.ShellStream(context.WithoutCancel(ctx), cmd)
	if err != nil {
		return nil, err
	}
	in := &instrumentation{stream: s, done: make(chan struct{})}
	go func() {
		defer close(in.done)
		buf := make([]byte, 4096)
		for {
			n, err := s.Read(buf)
			if n > 0 {
				in.mu.Lock()
				if in.out.Len() < 64<<10 {
					in.out.Write(buf[:n])
				}
				in.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	return in, nil
}

func (in *instrumentation) exited() bool {
	select {
	case <-in.done:
		return true
	default:
		return false
	}
}

func (in *instrumentation) output() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.out.String()
}

// wait waits up to d for am instrument to end (the harness finishes after
// bye) and says whether it did.
func (in *instrumentation) wait(ctx context.Context, d time.Duration) bool {
	select {
	case <-in.done:
		return true
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return false
	}
}

func (in *instrumentation) close() {
	in.stream.Close()
}
