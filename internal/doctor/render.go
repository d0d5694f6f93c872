package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/harness"
)

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// WriteText writes one table of checks per device, then its purposes.
func WriteText(w io.Writer, r *Report) error {
	for i, d := range r.Devices {
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeDevice(w, d)
	}
	return nil
}

func writeDevice(w io.Writer, d *Device) {
	title := "device " + d.Serial
	if d.Model != "" {
		title += fmt.Sprintf(" (%s, Android %s, SDK %d)", d.Model, d.Release, d.SDK)
	}
	fmt.Fprintln(w, title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(check, result string) { fmt.Fprintf(tw, "  %s\t%s\n", check, result) }
	row("CHECK", "RESULT")
	row("adb state", d.State)
	if d.Problem != "" {
		row("problem", d.Problem)
	}
	if h := d.Host; h != nil {
		hostRows(row, h, d.SDK)
	}
	switch {
	case d.HarnessError != "":
		row("harness", "failed: "+firstLine(d.HarnessError))
	case d.Harness != nil:
		row("harness", fmt.Sprintf("harness %s on %s", d.Harness.Harness, d.Harness.Platform))
	}
	if p := d.Probe; p != nil {
		probeRows(row, p)
	}
	switch {
	case d.LocationOpsError != "":
		row("location app-op", "unknown: "+firstLine(d.LocationOpsError))
	default:
		for _, m := range d.LocationOps {
			row("location app-op", locationOp(m, d.SDK, d.LocationOpsKept))
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  PURPOSE\tSTATUS\n")
	for _, p := range d.Purposes {
		status := "ready"
		if !p.Ready {
			status = "missing: " + strings.Join(p.Missing, "; ")
		}
		if len(p.Notes) > 0 {
			status += " (note: " + strings.Join(p.Notes, "; ") + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\n", p.File, status)
	}
	tw.Flush()
}

func hostRows(row func(string, string), h *Host, sdk int) {
	errOr := func(check, v string) string {
		if e, ok := h.Errors[check]; ok {
			return "unknown: " + firstLine(e)
		}
		return v
	}
	user := strconv.Itoa(h.User)
	if sdk < 24 {
		user += " (before Android 7: the owner)"
	}
	row("current user", errOr("user", user))
	row("SELinux", errOr("selinux", h.SELinux))
	row("stay awake", errOr("stay_on", stayOn(h.StayOn)))
	row("location", errOr("location", locationMode(h.LocationMode)))
	row("microphone", errOr("features", yesNo(h.Has(FeatureMicrophone), FeatureMicrophone)))
	row("bluetooth", errOr("features", yesNo(h.Has(FeatureBluetooth), FeatureBluetooth)))
	row("speech recognizer", errOr("recognizer", serviceList(h.Recognizers)))
	row("spell checker", errOr("spell_checker", serviceList(h.SpellCheckers)))
}

func stayOn(v string) string {
	n, err := strconv.Atoi(v)
	if err != nil {
		return "unknown (stay_on_while_plugged_in=" + v + ")"
	}
	if n == 0 {
		return "off (stay_on_while_plugged_in=0)"
	}
	var on []string
	for _, b := range []struct {
		bit  int
		name string
	}{{1, "ac"}, {2, "usb"}, {4, "wireless"}} {
		if n&b.bit != 0 {
			on = append(on, b.name)
		}
	}
	return fmt.Sprintf("on while plugged in: %s (stay_on_while_plugged_in=%d)", strings.Join(on, ", "), n)
}

func locationMode(v string) string {
	names := map[string]string{"0": "off", "1": "on, sensors only", "2": "on, battery saving", "3": "on, high accuracy"}
	if name, ok := names[v]; ok {
		return name + " (location_mode=" + v + ")"
	}
	return "unknown (location_mode=" + v + ")"
}

func yesNo(yes bool, feature string) string {
	if yes {
		return "yes (" + feature + ")"
	}
	return "no (no " + feature + ")"
}

func serviceList(s []string) string {
	switch {
	case s == nil:
		return "unknown before Android 7"
	case len(s) == 0:
		return "none installed"
	}
	return strings.Join(s, ", ")
}

func probeRows(row func(string, string), p *harness.ProbeResult) {
	if p.Files.Staging != nil {
		row("staging folder", folderText(*p.Files.Staging))
	} else {
		row("staging folder", "none: the harness works where the host staged")
	}
	row("private folder", folderText(p.Files.Private))
	row("adapter jar", attemptText(p.Jar, "loaded"))
	proxy := "called " + p.Proxy.Callback
	if !p.Proxy.OK {
		proxy = "not called: " + firstLine(p.Proxy.Summary())
	}
	row("listener proxy", p.Proxy.Listener+" "+proxy)
	for _, c := range p.Callbacks {
		row("callbacks", callbackText(c))
	}
	if p.QuiescenceMs != nil {
		row("quiescence", fmt.Sprintf("%d ms suggested for prompt callbacks", *p.QuiescenceMs))
	}
	row("audio", audioText(p.Audio))
	for _, u := range p.URLs {
		if u.OK {
			row("url", fmt.Sprintf("%s reached (HTTP %d, %.0f ms)", u.URL, u.Status, u.Ms))
		} else {
			row("url", u.URL+" unreachable: "+firstLine(u.Message))
		}
	}
	if bt := p.Bluetooth; bt != nil {
		row("bluetooth paired", bluetoothText(*bt))
	}
	for _, s := range p.Permissions {
		g := "granted"
		if !s.Granted {
			g = "not granted"
		}
		row("permission", s.Permission+" "+g)
	}
}

// bluetoothText lists the addresses asked about that are paired (the
// harness names only those; the others are in the purposes' lines).
func bluetoothText(bt harness.ProbeBluetooth) string {
	switch {
	case !bt.Available:
		return "unknown: the harness has no Bluetooth API here"
	case !bt.OK:
		return "unknown: " + firstLine(bt.Message)
	case len(bt.Paired) == 0:
		return "none of the addresses asked about"
	}
	return strings.Join(bt.Paired, ", ")
}

func folderText(f harness.FolderCheck) string {
	return fmt.Sprintf("read %s, create %s, append %s, truncate %s, unlink %s",
		f.Read.Summary(), f.Create.Summary(), f.Append.Summary(), f.Truncate.Summary(), f.Unlink.Summary())
}

func attemptText(a harness.Attempt, ok string) string {
	if a.OK {
		return ok
	}
	return "failed: " + firstLine(a.Summary())
}

func callbackText(c harness.CallbackLatency) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s +%d ms: ", c.Source, c.DelayMs)
	if c.Samples == 0 {
		b.WriteString("none came")
	} else {
		fmt.Fprintf(&b, "late by p50 %s, p90 %s, p99 %s, max %s ms (%d)", ms(c.P50), ms(c.P90), ms(c.P99), ms(c.Max), c.Samples)
	}
	if c.Missed > 0 {
		fmt.Fprintf(&b, ", %d missed", c.Missed)
	}
	if c.Error != nil {
		b.WriteString(", failed: " + firstLine(*c.Error))
	}
	return b.String()
}

func ms(v *float64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', 1, 64)
}

func audioText(a harness.ProbeAudio) string {
	switch {
	case !a.Available:
		return "not available on this platform"
	case !a.OK:
		return "failed: " + firstLine(a.Summary())
	}
	return fmt.Sprintf("peak %d, rms %.1f over %d ms", a.Peak, a.RMS, a.Ms)
}

// locationOp says what a location app-op's mode means for the harness and
// what learn does about it.
func locationOp(m adb.OpMode, sdk int, kept bool) string {
	mode, whose := m.Mode(), "uid mode"
	switch {
	case mode == "":
		mode, whose = "allow", "default"
	case m.Uid == "":
		whose = "package mode"
	}
	eff := m.Effective(sdk)
	s := fmt.Sprintf("%s: %s (%s)", m.Op, mode, whose)
	switch {
	case eff == "allow":
		return s
	case kept:
		return s + ", " + eff + " for the instrumented harness: left so"
	}
	return s + ", " + eff + " for the instrumented harness: learn allows it for its runs"
}
