package adbd

import (
	"slices"
	"sort"
	"strings"
)

// What droidstar doctor asks a device about itself, answered from Config
// (see the package doc's "Device state" for what Android prints).

// DefaultFeatures are a phone's system features, as far as droidstar
// cares: Config.Features replaces them.
var DefaultFeatures = []string{
	"android.hardware.bluetooth",
	"android.hardware.bluetooth_le",
	"android.hardware.location",
	"android.hardware.microphone",
	"android.hardware.touchscreen",
	"android.hardware.wifi",
	"android.software.input_methods",
}

// The intent actions of the services doctor looks for:
// RecognitionService.SERVICE_INTERFACE and
// SpellCheckerService.SERVICE_INTERFACE.
const (
	RecognitionServiceAction  = "android.speech.RecognitionService"
	SpellCheckerServiceAction = "android.service.textservice.SpellCheckerService"
)

// DefaultServices are the services a phone with Google's apps resolves
// for those actions: Config.Services replaces them.
var DefaultServices = map[string][]string{
	RecognitionServiceAction:  {"com.google.android.googlequicksearchbox/com.google.android.voicesearch.serviceapi.GoogleRecognitionService"},
	SpellCheckerServiceAction: {"com.google.android.inputmethod.latin/com.android.inputmethod.latin.spellcheck.AndroidSpellCheckerService"},
}

// DefaultSecureSettings are a fresh phone's secure settings that doctor
// reads: location on, high accuracy (Settings.Secure.LOCATION_MODE_HIGH_ACCURACY).
var DefaultSecureSettings = map[string]string{"location_mode": "3"}

// selinux is what getenforce prints.
func (d *Device) selinux() string {
	if d.cfg.SELinux == "" {
		return "Enforcing"
	}
	return d.cfg.SELinux
}

// getenforce prints the SELinux mode as toybox's getenforce does.
func (p *proc) getenforce(args []string) int {
	if len(args) > 0 {
		p.errf("getenforce: Unknown option '%s'", args[0])
		return 1
	}
	p.outf("%s", p.d.selinux())
	return 0
}

// pmListFeatures prints one "feature:NAME" line per system feature,
// sorted, after the OpenGL ES version that every device declares.
func (p *proc) pmListFeatures() int {
	features := p.d.cfg.Features
	if features == nil {
		features = DefaultFeatures
	}
	sorted := slices.Clone(features)
	sort.Strings(sorted)
	p.outf("feature:reqGlEsVersion=0x30000")
	for _, f := range sorted {
		p.outf("feature:%s", f)
	}
	return 0
}

// pmQueryServices is `pm query-services [--components|--brief] [--user U]
// -a ACTION`: the services that resolve an intent action, one component a
// line with --components, or "No services found".
func (p *proc) pmQueryServices(args []string) int {
	opts, _ := operands(args, "-a", "--user", "-c", "-d", "-t", "-n", "--query-flags")
	action, ok := opts["-a"]
	if !ok {
		p.errf("Error: fakeadbd's query-services needs -a ACTION")
		return 1
	}
	services := p.d.cfg.Services
	if services == nil {
		services = DefaultServices
	}
	found := services[action]
	if len(found) == 0 {
		p.outf("No services found")
		return 0
	}
	_, components := opts["--components"]
	if !components {
		p.outf("%d services found:", len(found))
	}
	for i, c := range found {
		if components {
			p.outf("%s", c)
			continue
		}
		p.outf("  Service #%d:", i)
		pkg, _, _ := strings.Cut(c, "/")
		p.outf("    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false")
		p.outf("    ServiceInfo:")
		p.outf("      name=%s", c)
		p.outf("      packageName=%s", pkg)
	}
	return 0
}
