package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/store"
)

// storeEnv is the environment variable that sets the default query store
// ("off" runs without one).
const storeEnv = "DROIDSTAR_STORE"

// storeFlags choose the query store of a run.
type storeFlags struct {
	path  string
	fresh bool
}

func (s *storeFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&s.path, "store", "", "query store file, or off for none (default: $"+storeEnv+", else droidstar/"+store.DefaultFile+" in the user's cache folder)")
	fl.BoolVar(&s.fresh, "fresh", false, "ignore the answers stored by earlier runs (new answers are still stored)")
}

// storePath is the store a command uses: --store, else $DROIDSTAR_STORE,
// else the user's cache folder. An empty path with no error means none
// (--store off or $DROIDSTAR_STORE=off, or no cache folder: the note says
// which). A store file really named off is ./off.
func storePath(e *env, flag string) (path, note string, err error) {
	switch flag {
	case "off":
		return "", "", nil
	case "":
	default:
		return flag, "", nil
	}
	switch v := e.getenv(storeEnv); v {
	case "off":
		return "", "", nil
	case "":
	default:
		return v, "", nil
	}
	dir, err := userCacheDir(e.getenv)
	if err != nil {
		return "", fmt.Sprintf("no query store: %v; answers are not kept (pass --store PATH)", err), nil
	}
	return filepath.Join(dir, "droidstar", store.DefaultFile), "", nil
}

// userCacheDir is os.UserCacheDir reading the environment through getenv
// (so a test's run has its own).
func userCacheDir(getenv func(string) string) (string, error) {
	switch runtime.GOOS {
	case "windows", "darwin", "ios", "plan9", "android":
		return os.UserCacheDir()
	}
	if dir := getenv("XDG_CACHE_HOME"); dir != "" {
		if !filepath.IsAbs(dir) {
			return "", fmt.Errorf("$XDG_CACHE_HOME is the relative path %q", dir)
		}
		return dir, nil
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".cache"), nil
	}
	return "", fmt.Errorf("no cache folder ($XDG_CACHE_HOME and $HOME are unset)")
}

// useStore puts the run's query store under the plan's cache and returns
// it (nil when the run has none) for the caller to close. What it finds
// (a damaged store set aside, answers under another fingerprint, a
// resume) is said on stderr.
func useStore(e *env, f *storeFlags, plan *compose.Plan, quiet bool) (*store.Store, error) {
	st, err := openStore(e, f, quiet)
	if st == nil || err != nil {
		return nil, err
	}
	if err := storeBucket(e.stderr, st, f.fresh, plan, storeNotes{quiet: quiet, others: !quiet}); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// openStore opens the store the flags and the environment choose: nil
// when the run has none.
func openStore(e *env, f *storeFlags, quiet bool) (*store.Store, error) {
	path, note, err := storePath(e, f.path)
	if err != nil {
		return nil, err
	}
	if path == "" {
		if note != "" && !quiet {
			fmt.Fprintf(e.stderr, "droidstar: %s\n", note)
		}
		return nil, nil
	}
	st, notes, err := store.Open(path, store.Options{})
	for _, n := range notes {
		fmt.Fprintf(e.stderr, "droidstar: %s\n", n)
	}
	return st, err
}

// storeNotes say what storeBucket tells on stderr.
type storeNotes struct {
	quiet bool
	// others: the answers stored under the same name and another
	// fingerprint (a matrix's targets are such by design).
	others bool
	// prefix starts each line (a matrix's target name).
	prefix string
}

// storeBucket puts st's bucket for the plan's fingerprint under its cache.
func storeBucket(w io.Writer, st *store.Store, fresh bool, plan *compose.Plan, n storeNotes) error {
	b, notes, err := st.Bucket(plan.StoreKey(), fresh, time.Now())
	if n.others {
		for _, note := range notes {
			fmt.Fprintf(w, "droidstar: %s%s\n", n.prefix, note)
		}
	}
	if err == nil {
		_, err = plan.UseStore(b)
	}
	if err != nil {
		return err
	}
	if k := len(b.Prior()); k > 0 && !n.quiet {
		fmt.Fprintf(w, "droidstar: %sresuming: %s stored in %s by earlier runs (--fresh ignores them)\n", n.prefix, plural(k, "answer"), st.Path())
	}
	return nil
}

func newStoreCmd(e *env) *cobra.Command {
	var path string
	c := &cobra.Command{
		Use:   "store list|stats|export|clear",
		Short: "Inspect and manage the query store that lets a stopped run resume",
		Long: `Every query a learning run executes is stored with its answer (the outputs,
the error detail and the device that ran it) before the learner uses it, in a
bbolt file: droidstar/` + store.DefaultFile + ` in the user's cache folder, or the
file --store (or $` + storeEnv + `) names; $` + storeEnv + `=off runs without one.
Running the same command again resumes: stored answers are used and no query
runs again. Answers are kept apart by a fingerprint of what determines them:
the alphabet, the purpose's harness part, the timeouts, the simulated model's
content, the harness version and the build of the devices (model, Android
release, SDK), so a store of another purpose, model file or device build is
never mixed in.

  list    one line per fingerprint: name, answers, devices
  stats   totals for the whole file
  export  every stored answer as JSON lines
  clear   delete the answers of --name or --fingerprint, or --all`,
		Example: `  droidstar store list
  droidstar store stats --store team.db
  droidstar store export --name AsyncTask > asynctask.jsonl
  droidstar store clear --fingerprint sha256:1f2e
  droidstar store clear --all`,
	}
	c.PersistentFlags().StringVar(&path, "store", "", "query store file (default: $"+storeEnv+", else droidstar/"+store.DefaultFile+" in the user's cache folder)")
	openStore := func() (*store.Store, error) {
		p, note, err := storePath(e, path)
		if err != nil {
			return nil, err
		}
		if p == "" {
			if note == "" {
				note = "the query store is off (--store off or $" + storeEnv + "=off)"
			}
			return nil, fmt.Errorf("%s", strings.TrimPrefix(note, "no query store: "))
		}
		return store.OpenExisting(p, store.Options{})
	}
	// withStore runs do on the opened store and closes it.
	withStore := func(do func(st *store.Store) error) error {
		st, err := openStore()
		if err != nil {
			return err
		}
		defer st.Close()
		return do(st)
	}
	var name, fp string
	var all bool
	selectFlags := func(c *cobra.Command) {
		c.Flags().StringVar(&name, "name", "", "only the answers of this purpose or model name")
		c.Flags().StringVar(&fp, "fingerprint", "", "only the answers under this fingerprint (or a prefix of it)")
	}
	match := func(s store.Summary) bool {
		return (name == "" || s.Name == name) && (fp == "" || strings.HasPrefix(s.Fingerprint, fp))
	}
	list := &cobra.Command{
		Use: "list", Short: "One line per fingerprint: name, answers, devices", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return withStore(func(st *store.Store) error {
				sums, err := st.List()
				if err != nil {
					return err
				}
				for _, s := range sums {
					fmt.Fprintf(e.stdout, "%s  %s  %s (%d distinct), devices %s, since %s\n", s.Name, s.Fingerprint[:min(len(s.Fingerprint), 19)],
						plural(s.Answers, "answer"), s.Distinct, strings.Join(s.Devices, ", "), s.Created.Format(time.RFC3339))
					for _, p := range []string{store.PartDevice, store.PartModel, store.PartHarness, store.PartTimeouts} {
						if v := s.Parts[p]; v != "" {
							fmt.Fprintf(e.stdout, "    %s: %s\n", p, v)
						}
					}
				}
				return nil
			})
		},
	}
	stats := &cobra.Command{
		Use: "stats", Short: "Totals for the whole store file", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return withStore(func(st *store.Store) error {
				sums, err := st.List()
				if err != nil {
					return err
				}
				var answers, distinct, symbols int
				for _, s := range sums {
					answers, distinct, symbols = answers+s.Answers, distinct+s.Distinct, symbols+s.Symbols
				}
				size := int64(0)
				if fi, err := os.Stat(st.Path()); err == nil {
					size = fi.Size()
				}
				fmt.Fprintf(e.stdout, "store %s: %d bytes, %s, %s (%s, %s)\n", st.Path(), size,
					plural(len(sums), "fingerprint"), plural(answers, "answer"), plural(distinct, "distinct query"), plural(symbols, "symbol"))
				return nil
			})
		},
	}
	export := &cobra.Command{
		Use: "export", Short: "Every stored answer as JSON lines", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return withStore(func(st *store.Store) error {
				enc := json.NewEncoder(e.stdout)
				return st.Each("", func(s store.Summary, r store.Record) error {
					if !match(s) {
						return nil
					}
					return enc.Encode(struct {
						Name        string `json:"name"`
						Fingerprint string `json:"fingerprint"`
						store.Record
					}{s.Name, s.Fingerprint, r})
				})
			})
		},
	}
	selectFlags(export)
	clear := &cobra.Command{
		Use: "clear", Short: "Delete stored answers (--name, --fingerprint or --all)", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if !all && name == "" && fp == "" {
				return usageError("store clear needs --name, --fingerprint or --all")
			}
			if all && (name != "" || fp != "") {
				return usageError("store clear: --all clears everything; drop --name and --fingerprint, or --all")
			}
			return withStore(func(st *store.Store) error {
				buckets, answers, err := st.Clear(match)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stderr, "cleared %s (%s) from %s\n", plural(answers, "answer"), plural(buckets, "fingerprint"), st.Path())
				return nil
			})
		},
	}
	selectFlags(clear)
	clear.Flags().BoolVar(&all, "all", false, "delete every stored answer")
	c.AddCommand(list, stats, export, clear)
	return c
}
