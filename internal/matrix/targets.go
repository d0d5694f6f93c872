package matrix

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/droidstar/droidstar/internal/purpose"
)

// Target is one column of the matrix: what one learning run differs in.
// At most one of SimModel, Java and Device is set; with none, the target
// is the purpose as it is.
type Target struct {
	Name string `json:"name"`
	// SimModel replaces the purpose's sim model: a file, relative to the
	// current directory (not the purpose's), as the command line gave it.
	SimModel string `json:"model,omitempty"`
	// Java is the java command running the harness, for the jvm backend.
	Java string `json:"java,omitempty"`
	// Device is the serial of the device the target learns on.
	Device string `json:"device,omitempty"`
}

// Flags are the target entries of the command line, as given.
type Flags struct {
	SimModels []string // NAME=FILE entries of --sim-model
	Java      []string // NAME=PATH entries of --java
	// Devices are the entries of --devices (all, SERIAL or NAME=SERIAL);
	// DevicesGiven tells an empty --devices from none.
	Devices      []string
	DevicesGiven bool
}

// UsageError is a mistake on the command line, found before anything is
// learned.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

func usage(format string, args ...any) error {
	return &UsageError{msg: fmt.Sprintf(format, args...)}
}

// name is what a target may be called: it becomes a file name (NAME.json)
// and a column heading.
var name = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// checkName rejects a name that is malformed, taken by the report, or
// given twice; entry and flag are for the message.
func checkName(flag, entry, n string, seen map[string]bool) error {
	switch {
	case !name.MatchString(n):
		return usage("%s %q: the name %q must use letters, digits, '_', '-' and '.'", flag, entry, n)
	case n == "matrix":
		return usage("%s %q: the name matrix is taken by the report (matrix.json, matrix.md)", flag, entry)
	case seen[n]:
		return usage("%s %q: target %s is given twice", flag, entry, n)
	}
	seen[n] = true
	return nil
}

// ParseTargets checks the target flags against the backend the purpose
// runs on and reads the targets. On backend adb the targets are devices,
// which are found and named later: it returns the request for them
// instead (see ParseDevices and DeviceRequest.Targets).
func ParseTargets(backend string, f Flags) ([]Target, *DeviceRequest, error) {
	if backend == purpose.BackendADB {
		if len(f.SimModels)+len(f.Java) > 0 {
			return nil, nil, usage("--sim-model and --java are for the sim and jvm backends; with backend adb the targets are --devices")
		}
		req, err := ParseDevices(f.Devices)
		return nil, req, err
	}
	if f.DevicesGiven {
		return nil, nil, usage("--devices names devices for backend adb, but the purpose runs on backend %s (use --backend adb if it lists one)", backend)
	}
	t, err := fileTargets(backend, f.SimModels, f.Java)
	return t, nil, err
}

// fileTargets reads the NAME=FILE and NAME=PATH entries of the sim and jvm
// backends. Without any, the purpose as it is is the only target, named
// after its backend.
func fileTargets(backend string, models, javas []string) ([]Target, error) {
	switch {
	case len(models) > 0 && len(javas) > 0:
		return nil, usage("--sim-model and --java do not mix: --sim-model is for the sim backend, --java for the jvm backend")
	case len(models) > 0 && backend != purpose.BackendSim:
		return nil, usage("--sim-model replaces the sim model, but the purpose runs on backend %s (use --backend sim if it lists one)", backend)
	case len(javas) > 0 && backend != purpose.BackendJVM:
		return nil, usage("--java picks the java command of the jvm backend, but the purpose runs on backend %s (use --backend jvm if it lists one)", backend)
	case len(models)+len(javas) == 0:
		return []Target{{Name: backend}}, nil
	}
	flag, what, example, entries := "--sim-model", "FILE", "api23=models/api23.dot", models
	if len(javas) > 0 {
		flag, what, example, entries = "--java", "PATH", "jdk21=/usr/lib/jvm/java-21-openjdk-amd64/bin/java", javas
	}
	out := make([]Target, 0, len(entries))
	seen := map[string]bool{}
	for _, e := range entries {
		n, path, ok := strings.Cut(e, "=")
		if !ok || path == "" {
			return nil, usage("%s %q: want NAME=%s, e.g. %s", flag, e, what, example)
		}
		if err := checkName(flag, e, n, seen); err != nil {
			return nil, err
		}
		t := Target{Name: n, SimModel: path}
		if len(javas) > 0 {
			t = Target{Name: n, Java: path}
		}
		out = append(out, t)
	}
	return out, nil
}

// DeviceRequest is what --devices asks for.
type DeviceRequest struct {
	// Serials are the devices to select, in the order given: ["all"] for
	// every ready device, none for the one device there is (or
	// ANDROID_SERIAL's).
	Serials []string
	// names are the names given with NAME=SERIAL, "" where none was, one
	// per serial; nil for all.
	names []string
}

// ParseDevices reads the entries of --devices: all, SERIAL or NAME=SERIAL.
func ParseDevices(entries []string) (*DeviceRequest, error) {
	req := &DeviceRequest{}
	seen := map[string]bool{}
	for _, d := range entries {
		n, serial, named := strings.Cut(d, "=")
		if !named {
			n, serial = "", d
		} else if err := checkName("--devices", d, n, seen); err != nil {
			return nil, err
		}
		req.Serials, req.names = append(req.Serials, serial), append(req.names, n)
	}
	if slices.Contains(req.Serials, "all") {
		if len(req.Serials) > 1 || req.names[0] != "" {
			return nil, usage("--devices: all cannot be named or combined with serials")
		}
		req.names = nil
	}
	return req, nil
}

// Device is a device the request selected.
type Device struct {
	Serial string
	SDK    int // the Android SDK level (ro.build.version.sdk)
}

// Targets names the devices the request selected, in their order: by the
// name given, else apiSDK, with the serial added when two devices share an
// SDK level.
func (r *DeviceRequest) Targets(devices []Device) ([]Target, error) {
	perSDK := map[int]int{}
	for _, d := range devices {
		perSDK[d.SDK]++
	}
	targets := make([]Target, len(devices))
	taken := map[string]bool{}
	for i, d := range devices {
		n := ""
		if i < len(r.names) {
			n = r.names[i]
		}
		if n == "" {
			n = fmt.Sprintf("api%d", d.SDK)
			if perSDK[d.SDK] > 1 {
				n += "-" + notInName.ReplaceAllString(d.Serial, "_")
			}
		}
		if taken[n] {
			return nil, usage("--devices: two targets are named %s; name them with NAME=SERIAL", n)
		}
		taken[n] = true
		targets[i] = Target{Name: n, Device: d.Serial}
	}
	return targets, nil
}

// notInName matches what a serial (emulator-5554, 10.0.0.5:5555) may hold
// that a target name may not.
var notInName = regexp.MustCompile(`[^A-Za-z0-9_.-]`)
