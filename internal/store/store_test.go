package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

var key = Key{Name: "AsyncTask", Parts: map[string]string{PartAlphabet: "exec cancel wait", PartModel: "sha256:1", PartDevice: "Pixel 8 14 sdk 34"}}

// fill stores n answers under key in a new store at path.
func fill(t *testing.T, path string, n int) {
	t.Helper()
	st, notes, err := Open(path, Options{})
	if err != nil || len(notes) > 0 {
		t.Fatal(err, notes)
	}
	defer st.Close()
	b, _, err := st.Bucket(key, false, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]Record, n)
	for k := range recs {
		// Long queries, so the file spans many pages.
		q := strings.Fields(strings.Repeat("exec cancel wait ", 20) + fmt.Sprint(k))
		recs[k] = Record{Query: q, Outputs: q, ErrAt: -1, Device: "sim-0"}
	}
	if err := b.Append(recs); err != nil {
		t.Fatal(err)
	}
}

// A damaged store is reported and left as it is; the run goes on with a
// new store beside it, and the next run finds that one again.
func TestDamagedStoreIsSetAside(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, path string)
		reason string
	}{
		{"garbage", func(t *testing.T, path string) {
			if err := os.WriteFile(path, bytes.Repeat([]byte("not a bbolt file "), 1000), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a bbolt database (invalid database)"},
		{"truncated", func(t *testing.T, path string) {
			fill(t, path, 2000)
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, fi.Size()/2); err != nil {
				t.Fatal(err)
			}
		}, "it is truncated: its header says "},
		{"short", func(t *testing.T, path string) {
			fill(t, path, 1)
			if err := os.Truncate(path, 100); err != nil {
				t.Fatal(err)
			}
		}, "not a bbolt database (invalid database)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "queries.db")
			c.damage(t, path)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for run := 0; run < 2; run++ {
				st, notes, err := Open(path, Options{})
				if err != nil {
					t.Fatal(err)
				}
				want := "query store " + path + " is damaged: " + c.reason
				if len(notes) != 1 || !strings.HasPrefix(notes[0], want) || !strings.HasSuffix(notes[0], "; it is left untouched and this run uses "+path+".2") {
					t.Fatalf("run %d: notes %q, want one starting %q", run, notes, want)
				}
				if st.Path() != path+".2" {
					t.Errorf("store at %s", st.Path())
				}
				b, _, err := st.Bucket(key, false, time.Unix(0, 0))
				if err != nil {
					t.Fatal(err)
				}
				// The second run resumes from what the first stored beside.
				if len(b.Prior()) != run {
					t.Errorf("run %d: %d prior answers", run, len(b.Prior()))
				}
				if err := b.Append([]Record{{Query: []string{"exec"}, Outputs: []string{"ok"}, ErrAt: -1}}); err != nil {
					t.Fatal(err)
				}
				st.Close()
			}
			after, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(before, after) {
				t.Errorf("the damaged file was changed (%v)", err)
			}
			if _, err := OpenExisting(path, Options{}); err == nil || !strings.HasPrefix(err.Error(), "query store "+path+" is damaged: "+c.reason) {
				t.Errorf("OpenExisting: %v", err)
			}
		})
	}
}

// A second run on a store another run holds waits, then says why.
func TestLockedStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queries.db")
	st, _, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, _, err = Open(path, Options{LockTimeout: 50 * time.Millisecond})
	var locked *LockedError
	want := "query store " + path + " is in use by another droidstar run (its lock was still held after 50ms): wait for that run to end, or give this run its own store with --store PATH"
	if !errors.As(err, &locked) || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// Stores of another fingerprint under the same name are named, with the
// part that differs, and never used; fresh ignores the stored answers.
func TestBucketsKeptApart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queries.db")
	fill(t, path, 3)
	st, _, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	other := Key{Name: key.Name, Parts: map[string]string{PartAlphabet: "exec cancel wait", PartModel: "sha256:2", PartDevice: "Pixel 9 15 sdk 35"}}
	b, notes, err := st.Bucket(other, false, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"the query store holds 3 answers for AsyncTask under another fingerprint (the device build and the simulated model's content differ): they are not used"}
	if !reflect.DeepEqual(notes, want) || len(b.Prior()) != 0 {
		t.Errorf("notes %q, %d prior; want %q", notes, len(b.Prior()), want)
	}
	if b, _, _ := st.Bucket(key, true, time.Unix(0, 0)); len(b.Prior()) != 0 {
		t.Errorf("fresh: %d prior answers", len(b.Prior()))
	}
	if b, _, _ := st.Bucket(key, false, time.Unix(0, 0)); len(b.Prior()) != 3 {
		t.Errorf("%d prior answers, want 3", len(b.Prior()))
	}
	if n, err := st.Count(); n != 3 || err != nil {
		t.Errorf("Count %d, %v", n, err)
	}
}

// A record that does not decode (here one overwritten with bytes that are
// no JSON) does not set the store aside: the file is sound, and the run
// that uses its bucket leaves that answer out, says so, and keeps the
// others.
func TestUnreadableRecordIsLeftOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queries.db")
	fill(t, path, 5)
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	var bad []byte
	err = db.Update(func(tx *bolt.Tx) error {
		a := tx.Bucket([]byte(key.Fingerprint())).Bucket(answersBucket)
		k, _ := a.Cursor().First()
		bad = append([]byte(nil), k...)
		return a.Put(bad, []byte("{not json"))
	})
	if cerr := db.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	st, notes, err := Open(path, Options{})
	if err != nil || len(notes) > 0 || st.Path() != path {
		t.Fatalf("open: %v, notes %q, path %s", err, notes, st.Path())
	}
	defer st.Close()
	b, notes, err := st.Bucket(key, false, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Prior()) != 4 {
		t.Errorf("%d prior answers, want the 4 readable ones", len(b.Prior()))
	}
	want := fmt.Sprintf("the query store %s holds 1 answer for AsyncTask that cannot be read, left out (they run again if asked): %x (invalid character 'n' looking for beginning of object key string)", path, bad)
	if len(notes) != 1 || notes[0] != want {
		t.Errorf("notes %q, want %q", notes, want)
	}
}
