package run

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	harnessapk "github.com/droidstar/droidstar/harness-apk"
	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/backend/jvm"
	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/nouns"
	"github.com/droidstar/droidstar/internal/store"
)

// Env is the outside world a run reads and writes: the environment, the
// files, where notes go, the harness builds and the clock.
type Env struct {
	// Getenv reads the environment (ANDROID_SERIAL, ADB_SERVER_SOCKET,
	// JAVA_HOME, DROIDSTAR_STORE, XDG_CACHE_HOME, HOME); nil: os.Getenv.
	Getenv func(string) string
	// ReadFile reads purpose and model files (nil: os.ReadFile).
	ReadFile func(string) ([]byte, error)
	// Log gets the notes a person may want while a run starts: the query
	// store's, and each device's setup steps (nil: none).
	Log io.Writer
	// Quiet keeps the notes to those a user must see (a damaged store
	// set aside).
	Quiet bool
	// Host names droidstar in the harness hello; ToolVersion is recorded
	// in the model.
	Host, ToolVersion string
	// Now stamps the models (nil: unstamped).
	Now func() time.Time
	// JVMJar and APK are the harness builds (nil: the ones embedded in
	// droidstar).
	JVMJar, APK []byte
}

func (e Env) getenv(key string) string {
	if e.Getenv == nil {
		return os.Getenv(key)
	}
	return e.Getenv(key)
}

func (e Env) readFile(name string) ([]byte, error) {
	if e.ReadFile == nil {
		return os.ReadFile(name)
	}
	return e.ReadFile(name)
}

func (e Env) log() io.Writer {
	if e.Log == nil {
		return io.Discard
	}
	return e.Log
}

// Backend is the backend settings every command shares, the harness
// builds among them: what check and init start a harness with.
func (e Env) Backend() compose.BackendOptions {
	jar, apk := e.JVMJar, e.APK
	if jar == nil {
		jar = harnessapk.JVMJar
	}
	if apk == nil {
		apk = harnessapk.APK
	}
	return compose.BackendOptions{
		Getenv: e.getenv, Lanes: 1,
		JVM: jvm.Options{Jar: jar, Host: e.Host},
		ADB: compose.ADBOptions{Options: adb.Options{APK: apk, Host: e.Host}},
	}
}

// Session is what the runs of one command share: the query store (one
// file, opened once), the devices kept awake (two runs on one device share
// its setting), the seed of the vote's draws when none is given, and
// where notes go.
type Session struct {
	env   Env
	log   io.Writer // env.Log, safe for runs that start side by side
	awake *adb.Awake
	seed  uint64

	// storePath is the query store's file ("": none); the store is opened
	// when the first run has its devices ready, so that a run that cannot
	// start says why before any note about the store.
	storePath, storeNote string
	mu                   sync.Mutex
	store                *store.Store
	storeErr             error
	opened               bool
}

// Open starts a session for runs like spec: it validates spec, finds its
// query store and prepares to keep devices awake. The caller closes it.
func Open(spec Spec, env Env) (*Session, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	s := &Session{env: env, log: &lockedWriter{w: env.log()}, seed: uint64(time.Now().UnixNano())}
	if spec.Vote.Seed != nil {
		s.seed = *spec.Vote.Seed
	}
	if spec.Model == nil {
		// A parameter without a value stops the command here, before a
		// matrix learns its first target or a device is touched.
		if _, _, err := s.purpose(spec); err != nil {
			return nil, err
		}
	}
	if spec.ADB.KeepAwake {
		s.awake = adb.NewAwake(s.log)
	}
	var err error
	if s.storePath, s.storeNote, err = store.Locate(spec.Store.Path, s.env.getenv); err != nil {
		return nil, err
	}
	return s, nil
}

// openStore opens the query store once, saying what it found (a damaged
// store set aside; none kept, and why); nil when the runs keep none.
func (s *Session) openStore() (*store.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opened {
		return s.store, s.storeErr
	}
	s.opened = true
	if s.storePath == "" {
		if s.storeNote != "" && !s.env.Quiet {
			fmt.Fprintf(s.log, "droidstar: %s\n", s.storeNote)
		}
		return nil, nil
	}
	st, notes, err := store.Open(s.storePath, store.Options{})
	for _, n := range notes {
		fmt.Fprintf(s.log, "droidstar: %s\n", n)
	}
	s.store, s.storeErr = st, err
	return st, err
}

// Log is where the session's notes go, safe for writers side by side (a
// matrix's targets, a run's devices): a command's own lines about its runs
// go there too, so that no two lines mix.
func (s *Session) Log() io.Writer { return s.log }

// StorePath is the query store's file, "" when the runs keep none.
func (s *Session) StorePath() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store == nil {
		return ""
	}
	return s.store.Path()
}

// Close closes the query store.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store == nil {
		return nil
	}
	return s.store.Close()
}

// bucket opens the store's bucket for a run's key (nil when the runs keep
// no store), saying on the log what it finds (answers under another
// fingerprint, a resume); prefix starts each line (a matrix target's
// name). The answers stored under the same name and another fingerprint
// are told only for a run of its own: a matrix's targets are such by
// design.
func (s *Session) bucket(key store.Key, fresh bool, prefix string) (*store.Bucket, error) {
	st, err := s.openStore()
	if st == nil || err != nil {
		return nil, err
	}
	b, notes, err := st.Bucket(key, fresh, time.Now())
	if prefix == "" && !s.env.Quiet {
		for _, note := range notes {
			fmt.Fprintf(s.log, "droidstar: %s\n", note)
		}
	}
	if err != nil {
		return nil, err
	}
	if k := len(b.Prior()); k > 0 && !s.env.Quiet {
		fmt.Fprintf(s.log, "droidstar: %sresuming: %s stored in %s by earlier runs (--fresh ignores them)\n", prefix, nouns.Count(k, "answer"), st.Path())
	}
	return b, nil
}

// lockedWriter serialises writes to w: runs start side by side (a
// matrix's devices), and a run's devices set up side by side.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
