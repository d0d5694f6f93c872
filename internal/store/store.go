// Package store keeps every query a device executed, with its answer, in a
// bbolt file, so that a run stopped half way resumes where it stopped and
// nothing a device ran is run again.
//
// Answers are kept per fingerprint of everything that determines them (see
// Key): one bbolt bucket per fingerprint, so answers learned for another
// purpose, model file or device build are never mixed in. Each bucket holds
// a "meta" entry (the key's parts, for the messages that say which part
// differs) and an "answers" bucket of records in the order they were
// executed, under bbolt sequence numbers, so a query run twice (a re-run
// that votes) keeps both answers.
package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/droidstar/droidstar/internal/model"
	"github.com/droidstar/droidstar/internal/nouns"
)

// DefaultFile is the store's file name in the user's cache folder.
const DefaultFile = "queries.db"

// Part names of a Key, in the order messages list them.
const (
	PartAlphabet = "alphabet"
	PartPurpose  = "purpose"
	// PartParameters holds the values of the purpose's parameters (--set).
	PartParameters = "parameters"
	PartTimeouts   = "timeouts"
	PartModel      = "model"
	PartHarness    = "harness"
	PartDevice     = "device"
)

var partLabels = map[string]string{
	PartAlphabet:   "the alphabet",
	PartPurpose:    "the purpose's harness part",
	PartParameters: "the value of the purpose's parameters",
	PartTimeouts:   "the timeouts",
	PartModel:      "the simulated model's content",
	PartHarness:    "the harness version",
	PartDevice:     "the device build",
}

// Key is what determines the answers to a run's queries. Parts maps a
// part name (PartAlphabet, ...) to its value or digest; two runs whose
// parts are equal get the same answers from a deterministic target.
type Key struct {
	// Name is the purpose's (or model file's) name: stores of one name
	// under another fingerprint are reported, never used.
	Name  string
	Parts map[string]string
}

// Fingerprint digests the name and every part.
func (k Key) Fingerprint() string {
	h := sha256.New()
	fmt.Fprintf(h, "name=%q\n", k.Name)
	for _, p := range sortedParts(k.Parts) {
		fmt.Fprintf(h, "%s=%q\n", p, k.Parts[p])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Differs says which parts of k and other differ, as a clause ("the
// alphabet and the device build differ").
func (k Key) Differs(other Key) string {
	var d []string
	seen := map[string]bool{}
	for _, p := range append(sortedParts(k.Parts), sortedParts(other.Parts)...) {
		if seen[p] {
			continue
		}
		seen[p] = true
		if k.Parts[p] != other.Parts[p] {
			label := partLabels[p]
			if label == "" {
				label = p
			}
			d = append(d, label)
		}
	}
	switch len(d) {
	case 0:
		return "nothing differs"
	case 1:
		return d[0] + " differs"
	}
	return strings.Join(d[:len(d)-1], ", ") + " and " + d[len(d)-1] + " differ"
}

func sortedParts(m map[string]string) []string {
	ps := make([]string, 0, len(m))
	for p := range m {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

// Digest is a short stable digest of data, for a Key part.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Record is one executed query and its answer, by symbol name.
type Record struct {
	Query   []string       `json:"query"`
	Outputs []string       `json:"outputs"`
	ErrAt   int            `json:"err_at"`
	Err     *model.ErrInfo `json:"err,omitempty"`
	// Device is the serial of the executor that ran the query.
	Device string `json:"device,omitempty"`
	// MS is the milliseconds each input took, as the executor measured
	// them (the simulator's are virtual); absent when it measured none.
	MS []float64 `json:"ms,omitempty"`
	At time.Time `json:"at"`
}

type meta struct {
	Name    string            `json:"name"`
	Parts   map[string]string `json:"parts"`
	Created time.Time         `json:"created"`
}

var (
	metaKey       = []byte("meta")
	answersBucket = []byte("answers")
)

// Options tune Open.
type Options struct {
	// LockTimeout is how long Open waits for another run's lock on the
	// file; 0 means DefaultLockTimeout.
	LockTimeout time.Duration
}

// DefaultLockTimeout is how long a run waits for another run's lock.
const DefaultLockTimeout = 2 * time.Second

// Store is an open query store.
type Store struct {
	db   *bolt.DB
	path string
}

// LockedError says another process holds the store's lock.
type LockedError struct {
	Path string
	Wait time.Duration
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("query store %s is in use by another droidstar run (its lock was still held after %s): wait for that run to end, or give this run its own store with --store PATH", e.Path, e.Wait)
}

// DamagedError says a store file is not a sound bbolt file.
type DamagedError struct {
	Path   string
	Reason string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("query store %s is damaged: %s", e.Path, e.Reason)
}

// Open opens (creating if needed) the store at path. A damaged file is
// left as it is: Open then uses the first sound or new file beside it
// (PATH.2, PATH.3, ...) and says so in the notes. A lock another run holds
// longer than the timeout is a *LockedError.
func Open(path string, o Options) (*Store, []string, error) {
	if o.LockTimeout <= 0 {
		o.LockTimeout = DefaultLockTimeout
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("query store: %w", err)
	}
	var notes []string
	try := path
	for n := 2; ; n++ {
		s, err := openOne(try, o)
		var damaged *DamagedError
		if errors.As(err, &damaged) && n < 100 {
			next := fmt.Sprintf("%s.%d", path, n)
			notes = append(notes, fmt.Sprintf("%v; it is left untouched and this run uses %s", err, next))
			try = next
			continue
		}
		if err != nil {
			return nil, notes, err
		}
		return s, notes, nil
	}
}

// OpenExisting opens the store at path for inspection: a missing file
// and a damaged one are errors (nothing is created beside it).
func OpenExisting(path string, o Options) (*Store, error) {
	if o.LockTimeout <= 0 {
		o.LockTimeout = DefaultLockTimeout
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("query store: %w", err)
	}
	return openOne(path, o)
}

// openOne checks the file read-only before bbolt opens it for writing:
// a read-write open reads the free list, and a truncated file would fault
// on the pages its header promises but the file no longer has.
func openOne(path string, o Options) (*Store, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("query store: %w", err)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("query store %s is not a regular file", path)
	case fi.Size() > 0:
		if err := check(path, fi.Size(), o); err != nil {
			return nil, err
		}
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: o.LockTimeout})
	if err != nil {
		return nil, classify(path, err, o)
	}
	return &Store{db: db, path: path}, nil
}

func classify(path string, err error, o Options) error {
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return &LockedError{Path: path, Wait: o.LockTimeout}
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum), errors.Is(err, berrors.ErrVersionMismatch),
		strings.Contains(err.Error(), "file size too small"), strings.Contains(err.Error(), "invalid"):
		return &DamagedError{Path: path, Reason: fmt.Sprintf("not a bbolt database (%v)", err)}
	}
	return fmt.Errorf("query store %s: %w", path, err)
}

// check opens path read-only and walks every page of it, turning what
// bbolt reports (or panics with) on a damaged file into a *DamagedError.
// It reads each bucket's meta entry but not its records: decoding them
// all took seconds per run on a store of hundreds of megabytes, and a run
// decodes its own bucket's records anyway (see Bucket).
func check(path string, size int64, o Options) (err error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: o.LockTimeout, ReadOnly: true})
	if err != nil {
		return classify(path, err, o)
	}
	defer db.Close()
	defer func() {
		if r := recover(); r != nil {
			err = &DamagedError{Path: path, Reason: fmt.Sprint(r)}
		}
	}()
	return db.View(func(tx *bolt.Tx) error {
		if tx.Size() > size {
			return &DamagedError{Path: path, Reason: fmt.Sprintf("it is truncated: its header says %d bytes, the file has %d", tx.Size(), size)}
		}
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			if _, err := readMeta(b); err != nil {
				return &DamagedError{Path: path, Reason: fmt.Sprintf("bucket %s: %v", name, err)}
			}
			a := b.Bucket(answersBucket)
			if a == nil {
				return &DamagedError{Path: path, Reason: fmt.Sprintf("bucket %s has no answers", name)}
			}
			return a.ForEach(func(k, _ []byte) error {
				if len(k) != 8 {
					return &DamagedError{Path: path, Reason: fmt.Sprintf("bucket %s: record key %x is not a record's", name, k)}
				}
				return nil
			})
		})
	})
}

func readMeta(b *bolt.Bucket) (meta, error) {
	var m meta
	v := b.Get(metaKey)
	if v == nil {
		return m, errors.New("no meta entry")
	}
	if err := json.Unmarshal(v, &m); err != nil {
		return m, fmt.Errorf("meta entry: %w", err)
	}
	return m, nil
}

// Path is the file this store uses (beside the one asked for, when that
// was damaged).
func (s *Store) Path() string { return s.path }

// Close releases the file and its lock.
func (s *Store) Close() error { return s.db.Close() }

// Count is the number of answers stored, under every fingerprint.
func (s *Store) Count() (int, error) {
	n := 0
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(_ []byte, b *bolt.Bucket) error {
			if a := b.Bucket(answersBucket); a != nil {
				n += a.Stats().KeyN
			}
			return nil
		})
	})
	return n, err
}

// Summary describes the answers stored under one fingerprint.
type Summary struct {
	Fingerprint string            `json:"fingerprint"`
	Name        string            `json:"name"`
	Parts       map[string]string `json:"parts"`
	Created     time.Time         `json:"created"`
	Answers     int               `json:"answers"`
	Distinct    int               `json:"distinct_queries"`
	Symbols     int               `json:"symbols"`
	Devices     []string          `json:"devices"`
}

// List summarises every fingerprint in the store, by name then creation.
func (s *Store) List() ([]Summary, error) {
	var out []Summary
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			m, err := readMeta(b)
			if err != nil {
				return err
			}
			sum := Summary{Fingerprint: string(name), Name: m.Name, Parts: m.Parts, Created: m.Created}
			distinct, devices := map[string]bool{}, map[string]bool{}
			err = eachRecord(b, func(r Record) error {
				sum.Answers++
				sum.Symbols += len(r.Query)
				distinct[strings.Join(r.Query, "\x00")] = true
				if r.Device != "" {
					devices[r.Device] = true
				}
				return nil
			})
			sum.Distinct = len(distinct)
			for d := range devices {
				sum.Devices = append(sum.Devices, d)
			}
			sort.Strings(sum.Devices)
			out = append(out, sum)
			return err
		})
	})
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Created.Before(out[j].Created)
	})
	return out, err
}

// Each calls f with every record under every fingerprint (or only those of
// fingerprint fp when it is not empty), in the order they were stored.
func (s *Store) Each(fp string, f func(Summary, Record) error) error {
	return s.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			if fp != "" && string(name) != fp {
				return nil
			}
			m, err := readMeta(b)
			if err != nil {
				return err
			}
			sum := Summary{Fingerprint: string(name), Name: m.Name, Parts: m.Parts, Created: m.Created}
			return eachRecord(b, func(r Record) error { return f(sum, r) })
		})
	})
}

// Clear deletes the answers of the fingerprints match selects, and says
// how many it deleted.
func (s *Store) Clear(match func(Summary) bool) (buckets, answers int, err error) {
	sums, err := s.List()
	if err != nil {
		return 0, 0, err
	}
	err = s.db.Update(func(tx *bolt.Tx) error {
		for _, sum := range sums {
			if !match(sum) {
				continue
			}
			if err := tx.DeleteBucket([]byte(sum.Fingerprint)); err != nil {
				return err
			}
			buckets++
			answers += sum.Answers
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("query store %s: %w", s.path, err)
	}
	return buckets, answers, nil
}

func eachRecord(b *bolt.Bucket, f func(Record) error) error {
	a := b.Bucket(answersBucket)
	if a == nil {
		return nil
	}
	return a.ForEach(func(k, v []byte) error {
		var r Record
		if err := json.Unmarshal(v, &r); err != nil {
			return fmt.Errorf("record %x: %w", k, err)
		}
		return f(r)
	})
}

// Bucket is the part of a store one fingerprint owns.
type Bucket struct {
	s     *Store
	fp    []byte
	key   Key
	prior []Record
}

// Bucket opens the answers stored under k's fingerprint, creating the
// bucket when there is none. With fresh it ignores what is stored (new
// answers are still written). The notes say what was found under the same
// name with another fingerprint (and which part differs): those answers
// are never used.
func (s *Store) Bucket(k Key, fresh bool, now time.Time) (*Bucket, []string, error) {
	fp := k.Fingerprint()
	b := &Bucket{s: s, fp: []byte(fp), key: k}
	var notes []string
	err := s.db.Update(func(tx *bolt.Tx) error {
		err := tx.ForEach(func(name []byte, other *bolt.Bucket) error {
			if bytes.Equal(name, b.fp) {
				return nil
			}
			m, err := readMeta(other)
			if err != nil || m.Name != k.Name {
				return nil
			}
			n := 0
			if a := other.Bucket(answersBucket); a != nil {
				n = a.Stats().KeyN
			}
			notes = append(notes, fmt.Sprintf("the query store holds %s for %s under another fingerprint (%s): they are not used",
				nouns.Count(n, "answer"), k.Name, k.Differs(Key{Name: m.Name, Parts: m.Parts})))
			return nil
		})
		if err != nil {
			return err
		}
		bk := tx.Bucket(b.fp)
		if bk == nil {
			if bk, err = tx.CreateBucket(b.fp); err != nil {
				return err
			}
			data, err := json.Marshal(meta{Name: k.Name, Parts: k.Parts, Created: now.UTC()})
			if err != nil {
				return err
			}
			if err := bk.Put(metaKey, data); err != nil {
				return err
			}
			_, err = bk.CreateBucket(answersBucket)
			return err
		}
		if fresh {
			return nil
		}
		// A record that does not decode is left out, and the query it
		// answered runs again if the run asks it: the file is sound (check
		// walked it), and setting it aside would lose every other answer.
		var bad []string
		a := bk.Bucket(answersBucket)
		if a == nil {
			return nil
		}
		err = a.ForEach(func(key, v []byte) error {
			var r Record
			if err := json.Unmarshal(v, &r); err != nil {
				bad = append(bad, fmt.Sprintf("%x (%v)", key, err))
				return nil
			}
			b.prior = append(b.prior, r)
			return nil
		})
		if len(bad) > 0 {
			notes = append(notes, fmt.Sprintf("the query store %s holds %s for %s that cannot be read, left out (they run again if asked): %s",
				s.path, nouns.Count(len(bad), "answer"), k.Name, strings.Join(bad[:min(len(bad), 3)], ", ")+more(len(bad)-3)))
		}
		return err
	})
	if err != nil {
		return nil, notes, fmt.Errorf("query store %s: %w", s.path, err)
	}
	return b, notes, nil
}

// more is ", and N more" for N > 0.
func more(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" and %d more", n)
}

// Prior is what was stored before this run (nothing when fresh).
func (b *Bucket) Prior() []Record { return b.prior }

// Fingerprint is the bucket's fingerprint.
func (b *Bucket) Fingerprint() string { return string(b.fp) }

// Append stores records in one transaction, synced to disk before it
// returns.
func (b *Bucket) Append(recs []Record) error {
	if len(recs) == 0 {
		return nil
	}
	err := b.s.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(b.fp)
		if bk == nil {
			return fmt.Errorf("bucket %s was deleted while this run used it", b.fp)
		}
		a := bk.Bucket(answersBucket)
		for _, r := range recs {
			seq, err := a.NextSequence()
			if err != nil {
				return err
			}
			data, err := json.Marshal(r)
			if err != nil {
				return err
			}
			var k [8]byte
			binary.BigEndian.PutUint64(k[:], seq)
			if err := a.Put(k[:], data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("query store %s: %w", b.s.path, err)
	}
	return nil
}
