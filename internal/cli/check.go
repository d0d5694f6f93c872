package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/droidstar/droidstar/internal/compose"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/run"
)

func newCheckCmd(e *env) *cobra.Command {
	var resolve bool
	var resolver string
	var set map[string]string
	c := &cobra.Command{
		Use:   "check purpose.yaml...",
		Short: "Validate purpose files without running them",
		Long: `Check parses each purpose, validates it, and checks what needs no code of the
purpose's choosing: a sim model that lacks a callin or emits a callback the
purpose does not declare; for adb, permissions the harness app does not
declare. It runs nothing: no harness, no JVM, no jar.

--resolve also starts the jvm harness to resolve the target (a class, method,
listener or argument the harness cannot find). That runs the program named in
backend.jvm.java with the purpose's JVM options, and the static initialisers of
its jars run; check says so in its output. Classes of the adb backend are
resolved on the device when learning starts, or with --resolve --resolver CP
on this host against android.jar (API 23), CP being the class path that
'make -C harness-apk resolver' prints in droidstar's source tree: a misspelt
method, listener or callback name (from: [onFinsh]) is then an error here.

A purpose's parameters take their values from --set NAME=VALUE, else from
DROIDSTAR_SET_NAME, else their defaults, as in learn; one left without a value
is an error at its declaration. Each purpose takes the names it declares; a
--set name that none of them declares is refused.

Every problem is reported as FILE:LINE:COL: FIELD: MESSAGE; the exit code is
1 if any file has one.`,
		Example: `  droidstar check examples/asynctask/purpose.yaml
  droidstar check examples/*/purpose.yaml
  droidstar check --resolve examples/jvm/timer.yaml   # starts the harness JVM
  droidstar check --resolve --resolver "$(make -s -C harness-apk resolver)" examples/countdowntimer/purpose.yaml`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("check needs at least one purpose file\nRun '%s --help' for usage.", c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if resolver != "" && !resolve {
				return usageError("--resolver applies with --resolve, which resolves the purposes' classes")
			}
			failed := 0
			declared := map[string]bool{}
			for _, file := range args {
				summary, err := checkPurpose(c.Context(), e, file, resolve, resolver, set, declared)
				if err != nil {
					failed++
					fmt.Fprintln(e.stderr, err)
					continue
				}
				fmt.Fprintf(e.stdout, "%s: ok: %s\n", file, summary)
			}
			if err := checkSetNames(set, declared); err != nil {
				return err
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d purpose files have errors", failed, len(args))
			}
			return nil
		},
	}
	c.Flags().BoolVar(&resolve, "resolve", false, "resolve classes and methods with the jvm harness")
	c.Flags().StringVar(&resolver, "resolver", "", "class path of the host resolver for adb purposes")
	c.Flags().Var(&setFlag{values: &set}, "set", "give a purpose parameter its value (repeatable)")
	return c
}

// checkPurpose loads a purpose and has the composition root open each of
// its backends far enough to catch mismatches; the jvm harness starts only
// with resolve.
func checkPurpose(ctx context.Context, e *env, file string, resolve bool, resolver string, set map[string]string, declared map[string]bool) (string, error) {
	p, err := purpose.LoadLimit(file, e.maxFileSize)
	if err != nil {
		return "", err
	}
	for _, name := range p.ParamNames() {
		declared[name] = true
	}
	// A parameter without a value is refused here as learn refuses it:
	// the values go where the harness or the resolver would see them.
	if p, err = p.Bind(p.ParamValues(set, e.getenv)); err != nil {
		return "", err
	}
	o := e.backendOptions()
	o.Resolver = resolver
	parts, err := compose.Check(ctx, p, e.readFile, o, resolve)
	if err != nil {
		return "", err
	}
	bound := fmt.Sprint(p.Bound)
	if p.BoundAuto {
		bound = run.BoundAuto
	}
	if p.BoundCountsEvery {
		bound += " (counting every symbol)"
	}
	return fmt.Sprintf("%s, %s, %s, bound %s, backends %s", p.Name, plural(len(p.Callins), "callin"), plural(len(p.Callbacks), "callback"), bound, strings.Join(parts, ", ")), nil
}

// checkSetNames refuses a --set name that none of the purposes declares
// (declared): each purpose takes the values of the parameters it
// declares, so such a name is a typo.
func checkSetNames(set map[string]string, declared map[string]bool) error {
	for _, name := range slices.Sorted(maps.Keys(set)) {
		if !declared[name] {
			names := "none"
			if len(declared) > 0 {
				names = strings.Join(slices.Sorted(maps.Keys(declared)), ", ")
			}
			return usageError("--set %s: none of the purposes given declares a parameter %s (they declare: %s)", name, name, names)
		}
	}
	return nil
}

// checkSetDeclared is checkSetNames for loaded purposes.
func checkSetDeclared(set map[string]string, purposes []*purpose.Purpose) error {
	declared := map[string]bool{}
	for _, p := range purposes {
		for _, name := range p.ParamNames() {
			declared[name] = true
		}
	}
	return checkSetNames(set, declared)
}
