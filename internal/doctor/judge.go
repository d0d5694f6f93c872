package doctor

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/harness"
	"github.com/droidstar/droidstar/internal/purpose"
)

// What a purpose needs, read from what it names: the framework classes
// whose needs a device may not meet. A purpose names a class as its
// class, a factory, a listener or a constant, so its whole text is
// searched.
const (
	classSpeechRecognizer = "android.speech.SpeechRecognizer"
	classSpellChecker     = "android.view.textservice.SpellCheckerSession"
	classBluetoothAdapter = "android.bluetooth.BluetoothAdapter"
	classMediaRecorder    = "android.media.MediaRecorder"
	classAudioRecord      = "android.media.AudioRecord"
)

// needs is what one purpose asks of a device.
type needs struct {
	microphone, recognizer, spellChecker, bluetooth bool
	// discovery: BluetoothAdapter.startDiscovery, which finds nothing
	// with location off from Android 10 (API 29).
	discovery bool
	files     bool
	jars      bool
	listeners bool
	urls      []string
	perms     []string
}

func needsOf(p *purpose.Purpose) needs {
	data, _ := json.Marshal(p)
	text := string(data)
	n := needs{
		recognizer:   strings.Contains(text, classSpeechRecognizer),
		spellChecker: strings.Contains(text, classSpellChecker),
		bluetooth:    strings.Contains(text, classBluetoothAdapter),
		jars:         len(p.Jars) > 0,
		listeners:    p.Target != nil && len(p.Target.Listeners) > 0,
		urls:         URLs(p),
		perms:        p.Permissions,
	}
	n.microphone = n.recognizer || strings.Contains(text, classMediaRecorder) || strings.Contains(text, classAudioRecord) ||
		slices.Contains(p.Permissions, "android.permission.RECORD_AUDIO")
	for _, c := range p.Callins {
		if c.Method() == "startDiscovery" {
			n.discovery = true
		}
	}
	// Staged files, environment actions and {file} literals all live in
	// the harness's private folder.
	n.files = len(p.Files) > 0
	for _, key := range []string{`"file":`, `"delete":`, `"touch":`, `"sqlite":`, `"write":`, `"append":`} {
		n.files = n.files || strings.Contains(text, key)
	}
	return n
}

// URLs lists the http(s) URLs a purpose's harness fields hold, in order,
// each once: what the device must reach for the purpose to learn what it
// means to.
func URLs(p *purpose.Purpose) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if (strings.HasPrefix(x, "http://") || strings.HasPrefix(x, "https://")) && !slices.Contains(out, x) {
				out = append(out, x)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				walk(x[k])
			}
		}
	}
	// Only where the harness reads them: the target, setup and callins.
	for _, part := range []any{p.Target, p.Setup, p.Callins} {
		data, err := json.Marshal(part)
		if err != nil {
			continue
		}
		var v any
		if json.Unmarshal(data, &v) == nil {
			walk(v)
		}
	}
	return out
}

// paramAddress is a purpose's bluetooth_address parameter and its value,
// or why it has none a run could use.
type paramAddress struct {
	name, value, problem string
}

// bluetoothAddresses are the values of p's bluetooth_address parameters,
// as a run would bind them (purpose.Bind): --set, the environment, the
// default.
func bluetoothAddresses(p *purpose.Purpose, o Options) []paramAddress {
	values := p.ParamValues(o.Set, o.Getenv)
	var out []paramAddress
	for _, prm := range p.Params {
		if prm.Kind != purpose.ParamBluetoothAddress {
			continue
		}
		a := paramAddress{name: prm.Name}
		v, ok := values[prm.Name]
		if !ok && prm.Default != nil {
			v, ok = *prm.Default, true
		}
		switch {
		case !ok:
			a.problem = fmt.Sprintf("parameter %s has no value: give the address of a device paired with the phone with --set %s=ADDRESS, or in the environment as %s", prm.Name, prm.Name, purpose.ParamEnv(prm.Name))
		case !purpose.IsBluetoothAddress(v):
			a.problem = fmt.Sprintf("parameter %s: %q is no Bluetooth address as Android takes one (six pairs of upper-case hex digits separated by colons)", prm.Name, v)
		}
		a.value = v
		out = append(out, a)
	}
	return out
}

func judgeAll(d *Device, purposes []*purpose.Purpose, o Options) []PurposeStatus {
	out := make([]PurposeStatus, 0, len(purposes))
	for _, p := range purposes {
		missing, notes := judge(d, p, bluetoothAddresses(p, o))
		out = append(out, PurposeStatus{File: p.File, Name: p.Name, Ready: len(missing) == 0, Missing: missing, Notes: notes})
	}
	return out
}

// judge says what keeps a purpose from running on a device, and what may
// change what it learns there; addresses are p's Bluetooth address
// parameters (bluetoothAddresses).
func judge(d *Device, p *purpose.Purpose, addresses []paramAddress) (missing, notes []string) {
	if d.Problem != "" {
		return []string{d.Problem}, nil
	}
	n := needsOf(p)
	h := d.Host
	if n.microphone && h.Features != nil && !h.Has(FeatureMicrophone) {
		missing = append(missing, "no microphone ("+FeatureMicrophone+" is not a system feature)")
	}
	if n.recognizer && h.Recognizers != nil && len(h.Recognizers) == 0 {
		missing = append(missing, "no speech recognizer installed (no service for "+recognitionService+")")
	}
	if n.spellChecker && h.SpellCheckers != nil && len(h.SpellCheckers) == 0 {
		missing = append(missing, "no spell checker installed (no service for "+spellCheckerService+")")
	}
	if n.bluetooth && h.Features != nil && !h.Has(FeatureBluetooth) {
		missing = append(missing, "no Bluetooth ("+FeatureBluetooth+" is not a system feature)")
	}
	if n.discovery && d.SDK >= 29 && h.LocationMode == "0" {
		missing = append(missing, "location is off: from Android 10 Bluetooth discovery finds nothing without it (settings put secure location_mode 3, or turn it on in Settings)")
	}
	// From Android 11 a process am instrument starts has no foreground
	// location capability: a location op in foreground mode is ignored
	// there, and startDiscovery returns false (adb/location.go).
	for _, perm := range n.perms {
		op, ok := adb.LocationOps[perm]
		if !ok || d.SDK < 29 {
			continue
		}
		if d.LocationOpsError != "" {
			notes = append(notes, "cannot read the harness's "+op+" app-op ("+firstLine(d.LocationOpsError)+")")
			continue
		}
		for _, m := range d.LocationOps {
			if m.Op != op || m.Effective(d.SDK) == "allow" {
				continue
			}
			why := fmt.Sprintf("the harness's %s app-op is %s, which its instrumented process evaluates to %s", op, m.Mode(), m.Effective(d.SDK))
			if d.LocationOpsKept {
				missing = append(missing, why+": calls that need location (startDiscovery) return false, and learning leaves the op as it is")
			} else {
				notes = append(notes, why+"; learn allows it for its runs and puts "+m.Mode()+" back")
			}
		}
	}
	for _, a := range addresses {
		if a.problem != "" {
			missing = append(missing, a.problem)
		}
	}
	if d.HarnessError != "" {
		return append(missing, "the harness did not answer: "+firstLine(d.HarnessError)), notes
	}
	pr := d.Probe
	if pr == nil {
		return missing, notes
	}
	// An address the phone is not paired with makes every connection
	// answer err: the typestate would lose its connected states and say
	// nothing.
	for _, a := range addresses {
		bt := pr.Bluetooth
		switch {
		case a.problem != "" || bt == nil:
		case !bt.Available:
			notes = append(notes, fmt.Sprintf("cannot tell whether the phone is paired with %s (parameter %s): the harness has no Bluetooth API here", a.value, a.name))
		case !bt.OK:
			notes = append(notes, fmt.Sprintf("cannot tell whether the phone is paired with %s (parameter %s): %s", a.value, a.name, firstLine(bt.Message)))
		case !bt.IsPaired(a.value):
			missing = append(missing, fmt.Sprintf("the phone is not paired with %s (parameter %s): pair it in the phone's Bluetooth settings, or give the address of a paired device with --set %s=ADDRESS", a.value, a.name, a.name))
		}
	}
	if n.files {
		if bad := failedOps(pr.Files.Private); bad != "" {
			missing = append(missing, "files folder not writable ("+bad+")")
		}
	}
	if n.jars && !pr.Jar.OK {
		missing = append(missing, "jars do not load ("+pr.Jar.Summary()+")")
	}
	if n.listeners && !pr.Proxy.OK {
		missing = append(missing, "listener proxies are not called ("+pr.Proxy.Summary()+")")
	}
	for _, perm := range n.perms {
		for _, s := range pr.Permissions {
			if s.Permission == perm && !s.Granted {
				missing = append(missing, "permission "+perm+" not granted")
			}
		}
	}
	if n.microphone && pr.Audio.Available {
		switch {
		case !pr.Audio.OK:
			missing = append(missing, "the microphone does not record ("+firstLine(pr.Audio.Message)+")")
		case pr.Audio.Peak == 0:
			missing = append(missing, "the microphone records silence (muted, or Android 12's microphone access is off)")
		}
	}
	for _, u := range n.urls {
		for _, c := range pr.URLs {
			if c.URL == u && !c.OK {
				missing = append(missing, "cannot reach "+u+" ("+firstLine(c.Message)+")")
			}
		}
	}
	if pr.QuiescenceMs != nil && p.Timeouts.Quiescence.Milliseconds() < *pr.QuiescenceMs {
		notes = append(notes, fmt.Sprintf("quiescence %d ms is below the %d ms this device needs for prompt callbacks", p.Timeouts.Quiescence.Milliseconds(), *pr.QuiescenceMs))
	}
	return missing, notes
}

// failedOps lists a folder's refused operations with their errno.
func failedOps(f harness.FolderCheck) string {
	var bad []string
	for _, op := range []struct {
		name string
		a    harness.Attempt
	}{{"read", f.Read}, {"create", f.Create}, {"append", f.Append}, {"truncate", f.Truncate}, {"unlink", f.Unlink}} {
		if !op.a.OK {
			bad = append(bad, op.name+" "+op.a.Summary())
		}
	}
	return strings.Join(bad, ", ")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
