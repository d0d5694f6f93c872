package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	harnessapk "github.com/droidstar/droidstar/harness-apk"
	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/backend/adb"
)

// adbFlags are the flags of every command that reaches devices.
type adbFlags struct {
	host           string
	port           int
	device         string
	devices        []string
	harnessTimeout time.Duration
	deviceDir      string
}

// addServer adds the adb server flags (adb's own -H and -P).
func (a *adbFlags) addServer(fl *pflag.FlagSet) { addServerFlags(fl, &a.host, &a.port) }

// addHarness adds the flags of how the harness runs on a device.
func (a *adbFlags) addHarness(fl *pflag.FlagSet) {
	addHarnessFlags(fl, &a.harnessTimeout, &a.deviceDir)
}

// checkDeviceDir rejects a --device-dir the device could not resolve.
func (a *adbFlags) checkDeviceDir() error {
	if !strings.HasPrefix(a.deviceDir, "/") {
		return usageError("--device-dir: want an absolute path on the device, such as %s, got %q", adb.DefaultDir, a.deviceDir)
	}
	return nil
}

// addDevices adds the device choice flags.
func (a *adbFlags) addDevices(fl *pflag.FlagSet, what string) {
	fl.StringVarP(&a.device, "device", "s", "", "the device "+what+" (default: $ANDROID_SERIAL)")
	fl.StringSliceVar(&a.devices, "devices", nil, "several devices "+what+": all, or a list of serials")
}

func (a *adbFlags) client(e *env) (*adbclient.Client, error) {
	cfg, err := adbclient.ConfigFromEnv(a.host, a.port, e.getenv)
	if err != nil {
		return nil, usageError("%v", err)
	}
	return adbclient.New(cfg), nil
}

// selection is what the flags ask for; ANDROID_SERIAL stands in for
// --device, as it does for adb.
func (a *adbFlags) selection(e *env) (adb.Selection, error) {
	if a.device != "" && len(a.devices) > 0 {
		return adb.Selection{}, usageError("--device and --devices are exclusive: --device picks one, --devices shares the queries among several")
	}
	for _, d := range a.devices {
		if d == "all" && len(a.devices) > 1 {
			return adb.Selection{}, usageError("--devices: all cannot be combined with serials")
		}
		if strings.TrimSpace(d) == "" {
			return adb.Selection{}, usageError("--devices: empty serial")
		}
	}
	s := adb.Selection{Device: a.device, Devices: a.devices}
	if s.Device == "" && len(s.Devices) == 0 {
		s.Device = e.getenv("ANDROID_SERIAL")
	}
	return s, nil
}

func newDevicesCmd(e *env) *cobra.Command {
	a := &adbFlags{}
	var format string
	c := &cobra.Command{
		Use:   "devices",
		Short: "List the devices adb sees, with Android version and harness status",
		Long: `Devices lists what the adb server sees: each device's serial and state, and for
ready devices its model, Android release, SDK level, and whether the harness
app droidstar embeds is installed ("current"), installed in another build
("different": learn replaces it), or "missing" (learn installs it).

The adb server is found like adb finds it: -H/-P, else ADB_SERVER_SOCKET
(tcp:HOST:PORT), else localhost:5037; a local server is started when none
runs. A device farm that exposes its devices to an adb server plugs in here.`,
		Example: `  droidstar devices
  droidstar devices -H farm.example.org -P 5037
  ADB_SERVER_SOCKET=tcp:10.0.0.5:5037 droidstar devices --format json`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usageError("--format: want text or json, got %q", format)
			}
			client, err := a.client(e)
			if err != nil {
				return err
			}
			ctx := c.Context()
			if err := client.Ensure(ctx); err != nil {
				return err
			}
			rows, err := listDevices(ctx, client)
			if err != nil {
				return err
			}
			if format == "json" {
				data, err := json.MarshalIndent(map[string]any{"server": client.Addr(), "devices": rows}, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "%s\n", data)
				return nil
			}
			if len(rows) == 0 {
				fmt.Fprintf(e.stdout, "no devices attached to the adb server at %s\n", client.Addr())
				return nil
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "SERIAL\tSTATE\tMODEL\tANDROID\tSDK\tHARNESS")
			for _, r := range rows {
				sdk := "-"
				if r.SDK > 0 {
					sdk = fmt.Sprint(r.SDK)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Serial, r.State, dash(r.Model), dash(r.Release), sdk, dash(r.Harness))
			}
			tw.Flush()
			for _, r := range rows {
				if r.Problem != "" {
					fmt.Fprintf(e.stderr, "droidstar: %s\n", r.Problem)
				}
			}
			return nil
		},
	}
	a.addServer(c.Flags())
	c.Flags().StringVarP(&format, "format", "f", "text", "output format: text or json")
	return c
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// deviceRow is one line of droidstar devices.
type deviceRow struct {
	Serial  string `json:"serial"`
	State   string `json:"state"`
	Model   string `json:"model,omitempty"`
	Release string `json:"release,omitempty"`
	SDK     int    `json:"sdk,omitempty"`
	Harness string `json:"harness,omitempty"`
	Problem string `json:"problem,omitempty"`
}

// listDevices asks every ready device for its properties and harness
// status, in parallel: a farm may hold dozens.
func listDevices(ctx context.Context, client *adbclient.Client) ([]deviceRow, error) {
	list, err := client.Devices(ctx)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(list, func(a, b adbclient.DeviceInfo) int { return strings.Compare(a.Serial, b.Serial) })
	rows := make([]deviceRow, len(list))
	var wg sync.WaitGroup
	for i, d := range list {
		rows[i] = deviceRow{Serial: d.Serial, State: d.State, Model: d.Model}
		if err := adb.Ready(d); err != nil {
			rows[i].Problem = err.Error()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			dev := client.Device(d.Serial)
			props, err := dev.Properties(ctx)
			if err != nil {
				rows[i].Problem = fmt.Sprintf("device %s: %v", d.Serial, err)
				return
			}
			info := adb.Describe(d.Serial, props)
			rows[i].Model, rows[i].Release, rows[i].SDK = info.Model, info.Release, info.SDK
			user, err := adb.CurrentUser(ctx, dev, info.SDK)
			if err != nil {
				rows[i].Problem = err.Error()
				return
			}
			st, err := adb.HarnessStatus(ctx, dev, harnessapk.APK, user)
			if err != nil {
				rows[i].Problem = err.Error()
				return
			}
			rows[i].Harness = string(st.State)
		}()
	}
	wg.Wait()
	return rows, nil
}
