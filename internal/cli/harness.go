package cli

import (
	"context"
	"fmt"
	"sync"

	harnessapk "github.com/droidstar/droidstar/harness-apk"
	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/spf13/cobra"
)

func newHarnessCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "harness",
		Short: "Install, check or remove the harness app on devices",
		Long: `The harness app (org.droidstar.harness) runs the queries on a device. It is
embedded in droidstar, and learn installs or replaces it by itself when it is
missing or differs; these commands manage it by hand, for instance to prepare
a device farm before a nightly run. Without --device or --devices they act on
every ready device.`,
		Example: `  droidstar harness status
  droidstar harness install --devices all
  droidstar harness uninstall --device emulator-5554`,
	}
	c.AddCommand(harnessAction(e, "status", "Say whether each device has this droidstar's harness app",
		func(ctx context.Context, dev *adbclient.Device) (string, error) {
			user, err := adb.ForegroundUser(ctx, dev)
			if err != nil {
				return "", err
			}
			st, err := adb.HarnessStatus(ctx, dev, harnessapk.APK, user)
			if err != nil {
				return "", err
			}
			return string(st.State), nil
		}))
	c.AddCommand(harnessAction(e, "install", "Install the harness app where it is missing or different",
		func(ctx context.Context, dev *adbclient.Device) (string, error) {
			if err := adb.Unclaimed(ctx, dev); err != nil {
				return "", err
			}
			user, err := adb.ForegroundUser(ctx, dev)
			if err != nil {
				return "", err
			}
			did, err := adb.EnsureHarness(ctx, dev, harnessapk.APK, nil, user)
			if err != nil {
				return "", err
			}
			if did {
				return "installed", nil
			}
			return "already current", nil
		}))
	c.AddCommand(harnessAction(e, "uninstall", "Remove the harness app",
		func(ctx context.Context, dev *adbclient.Device) (string, error) {
			if err := adb.Unclaimed(ctx, dev); err != nil {
				return "", err
			}
			user, err := adb.ForegroundUser(ctx, dev)
			if err != nil {
				return "", err
			}
			did, err := adb.UninstallHarness(ctx, dev, user)
			if err != nil {
				return "", err
			}
			if did {
				return "uninstalled", nil
			}
			return "not installed", nil
		}))
	return c
}

// harnessAction is one harness subcommand: the action runs on every chosen
// device in parallel, each device gets a line, and any failure fails the
// command after all have run.
func harnessAction(e *env, name, short string, act func(context.Context, *adbclient.Device) (string, error)) *cobra.Command {
	a := &adbFlags{}
	c := &cobra.Command{
		Use:     name,
		Short:   short,
		Example: fmt.Sprintf("  droidstar harness %s\n  droidstar harness %s --device emulator-5554", name, name),
		Args:    exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, args []string) error {
			client, err := a.client(e)
			if err != nil {
				return err
			}
			sel, err := a.selection(e)
			if err != nil {
				return err
			}
			if sel.Device == "" && len(sel.Devices) == 0 {
				sel.Devices = []string{"all"}
			}
			ctx := c.Context()
			if err := client.Ensure(ctx); err != nil {
				return err
			}
			devices, err := adb.Select(ctx, client, sel)
			if err != nil {
				return err
			}
			results := make([]string, len(devices))
			errs := make([]error, len(devices))
			var wg sync.WaitGroup
			for i, d := range devices {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results[i], errs[i] = act(ctx, client.Device(d.Serial))
				}()
			}
			wg.Wait()
			failed := 0
			for i, d := range devices {
				if errs[i] != nil {
					failed++
					fmt.Fprintf(e.stderr, "droidstar: %v\n", errs[i])
					continue
				}
				fmt.Fprintf(e.stdout, "%s\t%s\n", d.Serial, results[i])
			}
			if failed > 0 {
				return fmt.Errorf("harness %s failed on %d of %s", name, failed, plural(len(devices), "device"))
			}
			return nil
		},
	}
	a.addServer(c.Flags())
	a.addDevices(c.Flags(), "to act on")
	return c
}
