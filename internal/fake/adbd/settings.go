package adbd

import (
	"strconv"
	"strings"
)

// The bits of stay_on_while_plugged_in: BatteryManager.BATTERY_PLUGGED_AC,
// _USB and _WIRELESS.
const (
	pluggedAC       = 1
	pluggedUSB      = 2
	pluggedWireless = 4
)

// setGlobal changes a global setting; unset removes it. Every change is
// kept for SettingHistory.
func (d *Device) setGlobal(key, value string, unset bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.history[key]; !ok {
		d.history[key] = []string{"null"}
	}
	if unset {
		delete(d.settings, key)
		value = "null"
	} else {
		d.settings[key] = value
	}
	d.history[key] = append(d.history[key], value)
}

// settingsCmd is `settings [--user N] get|put|delete NAMESPACE KEY [VALUE]`
// (SettingsService's shell command, formerly cmds/settings' SettingsCmd):
// get prints the value or "null", put prints nothing, delete prints
// "Deleted N rows". The global table keeps its history (SettingHistory);
// the secure one (location_mode) does not; system is empty.
func (p *proc) settingsCmd(args []string) int {
	for len(args) > 1 && args[0] == "--user" {
		args = args[2:]
	}
	usage := func() int {
		p.errf("usage:  settings [--user <USER_ID> | current] get namespace key")
		p.errf("        settings [--user <USER_ID> | current] put namespace key value")
		p.errf("        settings [--user <USER_ID> | current] delete namespace key")
		p.errf("")
		p.errf("'namespace' is one of {system, secure, global}, case-insensitive")
		return 1
	}
	if len(args) < 3 {
		return usage()
	}
	verb, ns, key := args[0], strings.ToLower(args[1]), args[2]
	if ns != "system" && ns != "secure" && ns != "global" {
		return usage()
	}
	global := ns == "global"
	switch {
	case verb == "get" && len(args) == 3:
		v, ok := "", false
		p.d.mu.Lock()
		if global {
			v, ok = p.d.settings[key]
		} else if ns == "secure" {
			v, ok = p.d.secure[key]
		}
		p.d.mu.Unlock()
		if !ok {
			v = "null"
		}
		p.outf("%s", v)
		return 0
	case verb == "put" && len(args) >= 4:
		if global {
			p.d.setGlobal(key, args[3], false)
		} else if ns == "secure" {
			p.d.mu.Lock()
			p.d.secure[key] = args[3]
			p.d.mu.Unlock()
		}
		return 0
	case verb == "delete" && len(args) == 3:
		n := 0
		if global {
			p.d.mu.Lock()
			_, ok := p.d.settings[key]
			p.d.mu.Unlock()
			if ok {
				n = 1
				p.d.setGlobal(key, "", true)
			}
		}
		p.outf("Deleted %d rows", n)
		return 0
	}
	return usage()
}

// svc is the service-control tool, for `svc power stayon
// true|false|usb|ac|wireless` (PowerCommand), which writes
// stay_on_while_plugged_in through PowerManager.setStayOnSetting. Like
// PowerCommand it prints its help to stderr and still exits 0 when it
// does not understand its arguments, so only reading the setting back
// shows whether it worked.
func (p *proc) svc(args []string) int {
	if len(args) == 3 && args[0] == "power" && args[1] == "stayon" {
		v := -1
		switch args[2] {
		case "true":
			v = pluggedAC | pluggedUSB | pluggedWireless
		case "false":
			v = 0
		case "usb":
			v = pluggedUSB
		case "ac":
			v = pluggedAC
		case "wireless":
			v = pluggedWireless
		}
		if v >= 0 {
			if !p.d.cfg.StayOnIgnored {
				p.d.setGlobal("stay_on_while_plugged_in", strconv.Itoa(v), false)
			}
			return 0
		}
	}
	if len(args) > 0 && args[0] == "power" {
		p.errf("Control the power manager")
		p.errf("")
		p.errf("usage: svc power stayon [true|false|usb|ac|wireless]")
		p.errf("         Set the 'keep awake while plugged in' setting.")
		return 0
	}
	p.outf("Available commands:")
	p.outf("    help     Show information about the subcommands")
	p.outf("    power    Control the power manager")
	return 0
}
