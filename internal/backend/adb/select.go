package adb

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/droidstar/droidstar/internal/adbclient"
)

// Selection is what the user asked for: one device (--device, or
// ANDROID_SERIAL), a list, or every ready device ("all").
type Selection struct {
	Device  string
	Devices []string // "all", or serials
}

// All reports whether every ready device is asked for.
func (s Selection) All() bool { return len(s.Devices) == 1 && s.Devices[0] == "all" }

// Select resolves a selection against what the adb server lists, and
// explains every way it can fail in words a user can act on.
func Select(ctx context.Context, c *adbclient.Client, s Selection) ([]adbclient.DeviceInfo, error) {
	list, err := c.Devices(ctx)
	if err != nil {
		return nil, err
	}
	// adb lists in connection order; sorted, runs and messages repeat.
	slices.SortFunc(list, func(a, b adbclient.DeviceInfo) int { return strings.Compare(a.Serial, b.Serial) })
	if len(list) == 0 {
		return nil, fmt.Errorf("no device is attached to the adb server at %s: connect a phone with USB debugging on, start an emulator, or attach one with adb connect HOST:PORT", c.Addr())
	}
	find := func(serial string) (adbclient.DeviceInfo, error) {
		i := slices.IndexFunc(list, func(d adbclient.DeviceInfo) bool { return d.Serial == serial })
		if i < 0 {
			return adbclient.DeviceInfo{}, fmt.Errorf("device %s is not attached to the adb server at %s; attached:\n%s", serial, c.Addr(), Table(list))
		}
		if err := Ready(list[i]); err != nil {
			return adbclient.DeviceInfo{}, err
		}
		return list[i], nil
	}
	switch {
	case s.All():
		var ready []adbclient.DeviceInfo
		for _, d := range list {
			if d.State == "device" {
				ready = append(ready, d)
			}
		}
		if len(ready) == 0 {
			return nil, fmt.Errorf("no device attached to the adb server at %s is ready:\n%s", c.Addr(), Table(list))
		}
		return ready, nil
	case len(s.Devices) > 0:
		var out []adbclient.DeviceInfo
		for _, serial := range s.Devices {
			d, err := find(serial)
			if err != nil {
				return nil, err
			}
			if !slices.ContainsFunc(out, func(o adbclient.DeviceInfo) bool { return o.Serial == d.Serial }) {
				out = append(out, d)
			}
		}
		return out, nil
	case s.Device != "":
		d, err := find(s.Device)
		if err != nil {
			return nil, err
		}
		return []adbclient.DeviceInfo{d}, nil
	case len(list) > 1:
		return nil, fmt.Errorf("%d devices are attached; pick one with --device SERIAL (or ANDROID_SERIAL), or share the queries among them with --devices all:\n%s", len(list), Table(list))
	default:
		if err := Ready(list[0]); err != nil {
			return nil, err
		}
		return list, nil
	}
}

// Ready explains why a device cannot run queries, or returns nil.
func Ready(d adbclient.DeviceInfo) error {
	switch d.State {
	case "device":
		return nil
	case "unauthorized":
		return fmt.Errorf("device %s is unauthorized: unlock it and accept the \"Allow USB debugging?\" prompt (the computer's RSA key), then run again", d.Serial)
	case "offline":
		return fmt.Errorf("device %s is offline: reconnect it (adb reconnect, or replug the cable), or restart the adb server (adb kill-server)", d.Serial)
	case "no permissions":
		return fmt.Errorf("device %s: no permissions to open it (on Linux, add a udev rule for the phone's USB vendor id)", d.Serial)
	default:
		return fmt.Errorf("device %s is %s, not ready to run queries", d.Serial, d.State)
	}
}

// Table lists devices as adb devices -l shows them, for error messages.
func Table(list []adbclient.DeviceInfo) string {
	var b strings.Builder
	for _, d := range list {
		fmt.Fprintf(&b, "  %-24s %-12s", d.Serial, d.State)
		if d.Model != "" {
			fmt.Fprintf(&b, " model:%s", d.Model)
		}
		if d.Product != "" {
			fmt.Fprintf(&b, " product:%s", d.Product)
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
