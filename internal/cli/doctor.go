package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/droidstar/droidstar/examples"
	"github.com/droidstar/droidstar/internal/adbclient"
	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/doctor"
	"github.com/droidstar/droidstar/internal/purpose"
)

// doctorOptions are doctor's flags and arguments.
type doctorOptions struct {
	adb      adbFlags
	format   string
	samples  int
	audioMs  int
	set      map[string]string
	purposes []string
}

func newDoctorCmd(e *env) *cobra.Command {
	o := &doctorOptions{}
	c := &cobra.Command{
		Use:   "doctor [PURPOSE...]",
		Short: "Check what devices let droidstar do, and whether each purpose can run there",
		Long: `Doctor checks devices before a learning run depends on them, in about 30
seconds each. Over adb it reads the device's state, Android version, current
user, SELinux mode (getenforce), the stay-awake and location settings, and
whether it has a microphone, Bluetooth, a speech recognizer and a spell
checker. Then it starts the harness app and asks it to try what only the
device can answer: reading, creating, appending to, truncating and deleting
files in the folder the host stages in and in the app's own folder (each
with its errno), loading a jar, a framework calling a listener proxy, how
late main-looper callbacks arrive (CountDownTimer, AsyncTask), with a
suggested quiescence timeout, half a second of the microphone's level,
whether the device reaches every http(s) URL the purposes use, and whether
the phone is paired with the Bluetooth address a purpose's parameter gives
(--set, or DROIDSTAR_SET_NAME, as learn takes it).

It prints one table per device, and for each purpose "ready" or exactly what
is missing; without purposes it judges the device examples (examples/*/ with
backend adb). It exits 1 when a purpose cannot run on a device, or a device
cannot be checked. --format json prints everything found, for scripts.`,
		Example: `  droidstar doctor
  droidstar doctor --device emulator-5554 examples/speechrecognizer/purpose.yaml
  droidstar doctor --devices all --format json
  droidstar doctor examples/bluetoothadapter/purpose.yaml --set address=00:11:22:AA:BB:CC
  droidstar doctor -H farm.example.org --devices all examples/*/purpose.yaml`,
		RunE: func(c *cobra.Command, args []string) error {
			o.purposes = args
			return runDoctor(c.Context(), e, o)
		},
	}
	fl := c.Flags()
	o.adb.addServer(fl)
	o.adb.addDevices(fl, "to check")
	o.adb.addHarness(fl)
	fl.StringVarP(&o.format, "format", "f", "text", "output format: text or json")
	fl.IntVar(&o.samples, "samples", 20, "callbacks of each main-looper source to time")
	fl.IntVar(&o.audioMs, "audio-ms", 500, "milliseconds of microphone to record (0: none)")
	fl.Var(&setFlag{values: &o.set}, "set", "give a purpose parameter its value, as learn does (repeatable)")
	return c
}

func runDoctor(ctx context.Context, e *env, o *doctorOptions) error {
	if o.format != "text" && o.format != "json" {
		return usageError("--format: want text or json, got %q", o.format)
	}
	if o.samples < 1 || o.samples > 1000 {
		return usageError("--samples: want 1 to 1000, got %d", o.samples)
	}
	if o.audioMs < 0 || o.audioMs > 10000 {
		return usageError("--audio-ms: want 0 to 10000, got %d", o.audioMs)
	}
	if err := o.adb.checkDeviceDir(); err != nil {
		return err
	}
	purposes, err := doctorPurposes(o.purposes, e.maxFileSize)
	if err != nil {
		return err
	}
	if err := checkSetDeclared(o.set, purposes); err != nil {
		return err
	}
	client, err := o.adb.client(e)
	if err != nil {
		return err
	}
	sel, err := o.adb.selection(e)
	if err != nil {
		return err
	}
	if err := client.Ensure(ctx); err != nil {
		return err
	}
	devices, err := doctorDevices(ctx, client, sel)
	if err != nil {
		return err
	}
	opts := e.backendOptions().ADB.Options
	opts.SocketTimeout, opts.Dir = o.adb.harnessTimeout, o.adb.deviceDir
	audio := o.audioMs
	if audio == 0 {
		audio = -1
	}
	report, err := doctor.Check(ctx, client, devices, purposes, doctor.Options{Harness: opts, Samples: o.samples, AudioMs: audio, Set: o.set, Getenv: e.getenv})
	if err != nil {
		return err
	}
	if o.format == "json" {
		err = doctor.WriteJSON(e.stdout, report)
	} else {
		err = doctor.WriteText(e.stdout, report)
	}
	if err != nil {
		return err
	}
	var bad []string
	for _, d := range report.Devices {
		if !d.Ready() {
			bad = append(bad, d.Serial)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("doctor: not every purpose can run on %s", strings.Join(bad, ", "))
	}
	return nil
}

// doctorPurposes loads the purposes named, which must run on a device, or
// the device examples.
func doctorPurposes(files []string, maxSize int64) ([]*purpose.Purpose, error) {
	if len(files) == 0 {
		return examples.DevicePurposes()
	}
	var out []*purpose.Purpose
	for _, f := range files {
		p, err := purpose.LoadLimit(f, maxSize)
		if err != nil {
			return nil, err
		}
		if err := p.Backend.Use(purpose.BackendADB); err != nil {
			return nil, fmt.Errorf("%s: doctor checks purposes that run on a device: %w", f, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// doctorDevices resolves the selection as learn does, except that --devices
// all takes every device adb lists, ready or not: doctor says why one is
// not.
func doctorDevices(ctx context.Context, client *adbclient.Client, sel adb.Selection) ([]adbclient.DeviceInfo, error) {
	if !sel.All() {
		return adb.Select(ctx, client, sel)
	}
	list, err := client.Devices(ctx)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("no device is attached to the adb server at %s", client.Addr())
	}
	slices.SortFunc(list, func(a, b adbclient.DeviceInfo) int { return strings.Compare(a.Serial, b.Serial) })
	return list, nil
}
