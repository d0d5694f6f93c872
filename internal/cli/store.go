package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/droidstar/droidstar/internal/store"
)

func newStoreCmd(e *env) *cobra.Command {
	var path string
	c := &cobra.Command{
		Use:   "store list|stats|export|clear",
		Short: "Inspect and manage the query store that lets a stopped run resume",
		Long: `Every query a learning run executes is stored with its answer (the outputs,
the error detail and the device that ran it) before the learner uses it, in a
bbolt file: droidstar/` + store.DefaultFile + ` in the user's cache folder, or the
file --store (or $` + store.Env + `) names; $` + store.Env + `=off runs without one.
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
	c.PersistentFlags().StringVar(&path, "store", "", "query store file (default: $"+store.Env+", else the cache folder's)")
	openStore := func() (*store.Store, error) {
		p, note, err := store.Locate(path, e.getenv)
		if err != nil {
			return nil, err
		}
		if p == "" {
			if note == "" {
				note = "the query store is off (--store off or $" + store.Env + "=off)"
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
