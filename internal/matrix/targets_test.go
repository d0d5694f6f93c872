package matrix

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseTargets(t *testing.T) {
	for _, tc := range []struct {
		backend string
		flags   Flags
		want    string // the targets, or the usage error
	}{
		{"sim", Flags{}, "{sim   }"},
		{"jvm", Flags{}, "{jvm   }"},
		{"sim", Flags{SimModels: []string{"api23=m/23.dot", "b.1-x_y=m/a=b.dot"}}, "{api23 m/23.dot  } {b.1-x_y m/a=b.dot  }"},
		{"jvm", Flags{Java: []string{"jdk17=/opt/17/java", "jdk21=java"}}, "{jdk17  /opt/17/java } {jdk21  java }"},
		{"sim", Flags{SimModels: []string{"api23"}}, `--sim-model "api23": want NAME=FILE, e.g. api23=models/api23.dot`},
		{"sim", Flags{SimModels: []string{"api23="}}, `--sim-model "api23=": want NAME=FILE, e.g. api23=models/api23.dot`},
		{"sim", Flags{SimModels: []string{"a b=x.dot"}}, `--sim-model "a b=x.dot": the name "a b" must use letters, digits, '_', '-' and '.'`},
		{"sim", Flags{SimModels: []string{"-x=x.dot"}}, `--sim-model "-x=x.dot": the name "-x" must use letters, digits, '_', '-' and '.'`},
		{"sim", Flags{SimModels: []string{"=x.dot"}}, `--sim-model "=x.dot": the name "" must use letters, digits, '_', '-' and '.'`},
		{"sim", Flags{SimModels: []string{"a/b=x.dot"}}, `--sim-model "a/b=x.dot": the name "a/b" must use letters, digits, '_', '-' and '.'`},
		{"sim", Flags{SimModels: []string{"a=x.dot", "a=y.dot"}}, `--sim-model "a=y.dot": target a is given twice`},
		{"sim", Flags{SimModels: []string{"matrix=x.dot"}}, `--sim-model "matrix=x.dot": the name matrix is taken by the report (matrix.json, matrix.md)`},
		{"sim", Flags{Java: []string{"jdk=java"}}, "--java picks the java command of the jvm backend, but the purpose runs on backend sim (use --backend jvm if it lists one)"},
		{"sim", Flags{Java: []string{"jdk=java"}, SimModels: []string{"a=x.dot"}}, "--sim-model and --java do not mix: --sim-model is for the sim backend, --java for the jvm backend"},
		{"sim", Flags{DevicesGiven: true}, "--devices names devices for backend adb, but the purpose runs on backend sim (use --backend adb if it lists one)"},
		{"jvm", Flags{SimModels: []string{"a=x.dot"}}, "--sim-model replaces the sim model, but the purpose runs on backend jvm (use --backend sim if it lists one)"},
		{"jvm", Flags{Java: []string{"jdk"}}, `--java "jdk": want NAME=PATH, e.g. jdk21=/usr/lib/jvm/java-21-openjdk-amd64/bin/java`},
		{"jvm", Flags{Java: []string{"a=java", "a=java"}}, `--java "a=java": target a is given twice`},
		{"adb", Flags{SimModels: []string{"a=x.dot"}}, "--sim-model and --java are for the sim and jvm backends; with backend adb the targets are --devices"},
		{"adb", Flags{Java: []string{"a=java"}, DevicesGiven: true, Devices: []string{"all"}}, "--sim-model and --java are for the sim and jvm backends; with backend adb the targets are --devices"},
	} {
		targets, req, err := ParseTargets(tc.backend, tc.flags)
		got := ""
		if err != nil {
			var u *UsageError
			if !errors.As(err, &u) {
				t.Errorf("%s %+v: %v is not a usage error", tc.backend, tc.flags, err)
			}
			got = err.Error()
		} else {
			var ts []string
			for _, target := range targets {
				ts = append(ts, fmt.Sprint(target))
			}
			got = strings.Join(ts, " ")
		}
		if got != tc.want || req != nil {
			t.Errorf("%s %+v: got %s (device request %v)\nwant %s", tc.backend, tc.flags, got, req, tc.want)
		}
	}
}

// On backend adb the targets are devices, found later: ParseTargets hands
// back the request.
func TestParseTargetsOnADB(t *testing.T) {
	targets, req, err := ParseTargets("adb", Flags{Devices: []string{"m=emulator-5554", "emulator-5556"}, DevicesGiven: true})
	if err != nil || targets != nil || req == nil || strings.Join(req.Serials, ",") != "emulator-5554,emulator-5556" {
		t.Fatalf("targets %v, request %+v, %v", targets, req, err)
	}
	if _, _, err := ParseTargets("adb", Flags{Devices: []string{"all", "x"}, DevicesGiven: true}); err == nil {
		t.Error("ParseTargets let a bad --devices through")
	}
}

func TestDeviceTargets(t *testing.T) {
	for _, tc := range []struct {
		entries []string
		devices []Device // what the selection found
		want    string   // the targets, or the usage error
	}{
		{[]string{"all"}, []Device{{"emulator-5554", 23}, {"emulator-5556", 34}}, "api23=emulator-5554 api34=emulator-5556"},
		{nil, []Device{{"emulator-5554", 23}}, "api23=emulator-5554"},
		{[]string{"emulator-5556", "emulator-5554"}, []Device{{"emulator-5556", 34}, {"emulator-5554", 23}}, "api34=emulator-5556 api23=emulator-5554"},
		{[]string{"m=emulator-5554", "n=emulator-5556"}, []Device{{"emulator-5554", 23}, {"emulator-5556", 34}}, "m=emulator-5554 n=emulator-5556"},
		// Two devices of one SDK level: the serial tells them apart.
		{[]string{"all"}, []Device{{"emulator-5554", 34}, {"10.0.0.5:5555", 34}, {"emulator-5556", 23}}, "api34-emulator-5554=emulator-5554 api34-10.0.0.5_5555=10.0.0.5:5555 api23=emulator-5556"},
		{[]string{"old=emulator-5554", "emulator-5556"}, []Device{{"emulator-5554", 34}, {"emulator-5556", 34}}, "old=emulator-5554 api34-emulator-5556=emulator-5556"},
		{[]string{"api23=emulator-5554", "emulator-5556"}, []Device{{"emulator-5554", 34}, {"emulator-5556", 23}}, "--devices: two targets are named api23; name them with NAME=SERIAL"},
		{[]string{"all", "emulator-5554"}, nil, "--devices: all cannot be named or combined with serials"},
		{[]string{"every=all"}, nil, "--devices: all cannot be named or combined with serials"},
		{[]string{"m=emulator-5554", "m=emulator-5556"}, nil, `--devices "m=emulator-5556": target m is given twice`},
		{[]string{"matrix=emulator-5554"}, nil, `--devices "matrix=emulator-5554": the name matrix is taken by the report (matrix.json, matrix.md)`},
		{[]string{"a b=emulator-5554"}, nil, `--devices "a b=emulator-5554": the name "a b" must use letters, digits, '_', '-' and '.'`},
		{[]string{"=emulator-5554"}, nil, `--devices "=emulator-5554": the name "" must use letters, digits, '_', '-' and '.'`},
	} {
		got, err := deviceTargets(tc.entries, tc.devices)
		if err != nil {
			var u *UsageError
			if !errors.As(err, &u) {
				t.Errorf("%v: %v is not a usage error", tc.entries, err)
			}
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%v on %v:\ngot  %s\nwant %s", tc.entries, tc.devices, got, tc.want)
		}
	}
}

// deviceTargets parses entries, then names the devices found, as the
// command does around finding them: NAME=SERIAL for each target.
func deviceTargets(entries []string, devices []Device) (string, error) {
	req, err := ParseDevices(entries)
	if err != nil {
		return "", err
	}
	targets, err := req.Targets(devices)
	if err != nil {
		return "", err
	}
	var s []string
	for _, t := range targets {
		if t.SimModel != "" || t.Java != "" {
			return "", fmt.Errorf("device target %+v", t)
		}
		s = append(s, t.Name+"="+t.Device)
	}
	return strings.Join(s, " "), nil
}

// The request's serials are what to select: none means the one device
// there is (or ANDROID_SERIAL's), all means every ready one.
func TestParseDevicesSerials(t *testing.T) {
	for _, tc := range []struct {
		entries []string
		want    string
	}{
		{nil, ""},
		{[]string{"all"}, "all"},
		{[]string{"a=s1", "s2"}, "s1 s2"},
	} {
		req, err := ParseDevices(tc.entries)
		if err != nil || strings.Join(req.Serials, " ") != tc.want {
			t.Errorf("%v: serials %v, %v; want %s", tc.entries, req, err, tc.want)
		}
	}
}
