package simharness

import (
	"slices"
	"strings"

	"github.com/droidstar/droidstar/internal/harness"
)

// Good is the probe result of a simulated Android device that lets the
// harness do everything it needs: the staging folder read-only (create,
// append and unlink refused by SELinux, and append and truncate by the
// staged file's mode 0755, the shell's, which gives the app's uid no
// write), the private folder open, the embedded jar loaded, the idle
// handler called, the main looper's callbacks prompt, the microphone
// hearing a room, and every URL answering 200. Options.Probe starts from
// it to model other devices.
func Good() harness.ProbeResult {
	denied := func(op string) harness.Attempt {
		return harness.Failed("EACCES", "android.system.ErrnoException: "+op+" failed: EACCES (Permission denied)")
	}
	ok := harness.Attempt{OK: true}
	zero := 0.0
	quiescence := int64(100)
	return harness.ProbeResult{
		Files: harness.ProbeFiles{
			Staging: &harness.FolderCheck{Read: ok, Create: denied("open"), Append: denied("open"), Truncate: denied("open"), Unlink: denied("remove")},
			Private: harness.FolderCheck{Read: ok, Create: ok, Append: ok, Truncate: ok, Unlink: ok},
		},
		Jar:   ok,
		Proxy: harness.ProbeProxy{Listener: "android.os.MessageQueue$IdleHandler", Attempt: ok, Callback: "queueIdle"},
		Callbacks: []harness.CallbackLatency{
			{Source: "android.os.CountDownTimer", DelayMs: 50, P50: &zero, P90: &zero, P99: &zero, Max: &zero},
			{Source: "android.os.AsyncTask", P50: &zero, P90: &zero, P99: &zero, Max: &zero},
		},
		QuiescenceMs: &quiescence,
		Audio:        harness.ProbeAudio{Available: true, Attempt: ok, Peak: 1200, RMS: 150},
	}
}

// probe answers from Options.Probe (Good when nil), checking the request
// as Probe.Request.parse does: the samples asked for are the device's
// callbacks counted so many times, a recording its level over audio_ms,
// every URL answered as Options.Probe's URLs say (200 for those it does
// not list, except cleartext http on Android 9 and later, refused as the
// network security policy refuses it), and no permission told (a simulated device cannot say). A
// source's Missed callbacks are among the samples.
func (s *server) probe(req *object) (any, *protoError) {
	if f := req.get("file"); f != nil {
		name, ok := f.(string)
		if !ok {
			return nil, badRequest("", `"file" must be a string, not %s`, typeName(f))
		}
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
			return nil, badRequest("", `"file" must be a plain file name, not %s`, string(mustJSON(name)))
		}
	}
	samples, perr := probeInt(req, "samples", 20, 0, 1000)
	if perr != nil {
		return nil, perr
	}
	audioMs, perr := probeInt(req, "audio_ms", 500, 0, 10000)
	if perr != nil {
		return nil, perr
	}
	if _, perr := probeInt(req, "url_timeout_ms", 5000, 1, 60000); perr != nil {
		return nil, perr
	}
	urls, perr := probeStrings(req, "urls")
	if perr != nil {
		return nil, perr
	}
	if _, perr := probeStrings(req, "permissions"); perr != nil {
		return nil, perr
	}
	asked, perr := probeStrings(req, "bluetooth_paired")
	if perr != nil {
		return nil, perr
	}
	r := Good()
	if s.opts.Probe != nil {
		r = *s.opts.Probe
	}
	out := r
	out.Callbacks = nil
	for _, c := range r.Callbacks {
		c.Missed = min(c.Missed, samples)
		c.Samples = samples - c.Missed
		if c.Samples == 0 {
			c.P50, c.P90, c.P99, c.Max = nil, nil, nil, nil
		}
		out.Callbacks = append(out.Callbacks, c)
	}
	if samples == 0 {
		out.QuiescenceMs = nil
	}
	if audioMs == 0 {
		out.Audio = harness.ProbeAudio{}
	} else if out.Audio.Available && out.Audio.OK {
		out.Audio.Ms = audioMs
	}
	out.Permissions = []harness.PermissionState{}
	out.URLs = []harness.URLCheck{}
	for _, u := range urls {
		c := harness.URLCheck{URL: u, Attempt: harness.Attempt{OK: true}, Status: 200}
		if host, ok := cleartext(u); ok && s.opts.Hello.SDK >= cleartextRefusedFrom {
			c = harness.URLCheck{URL: u, Attempt: harness.Failed("", "java.net.UnknownServiceException: CLEARTEXT communication to "+host+" not permitted by network security policy")}
		}
		for _, known := range r.URLs {
			if known.URL == u {
				c = known
			}
		}
		out.URLs = append(out.URLs, c)
	}
	out.Bluetooth = nil
	if len(asked) > 0 {
		bt := harness.ProbeBluetooth{Available: true, Attempt: harness.Attempt{OK: true}, Paired: []string{}}
		for _, a := range asked {
			if slices.ContainsFunc(s.opts.PairedBluetooth, func(p string) bool { return strings.EqualFold(p, a) }) {
				bt.Paired = append(bt.Paired, a)
			}
		}
		if r.Bluetooth != nil {
			bt = *r.Bluetooth
		}
		out.Bluetooth = &bt
	}
	return out, nil
}

// cleartextRefusedFrom is the first SDK level (Android 9) on which the
// harness, which targets API 28, may not speak cleartext HTTP: the default
// network security config permits it only to apps targeting a lower level
// (frameworks/base NetworkSecurityConfig.getDefaultBuilder:
// cleartextTrafficPermitted = targetSdkVersion < Build.VERSION_CODES.P),
// and the platform's HTTP stack then throws UnknownServiceException
// (com.android.okhttp's "CLEARTEXT communication to HOST not permitted by
// network security policy"). Older platforms do not know that default.
const cleartextRefusedFrom = 28

// cleartext says whether u is a cleartext http URL, and its host.
func cleartext(u string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.ToLower(u), "http://")
	if !ok {
		return "", false
	}
	host, _, _ := strings.Cut(u[len("http://"):len("http://")+len(rest)], "/")
	host, _, _ = strings.Cut(host, "?")
	if h, _, ok := strings.Cut(host, ":"); ok && !strings.HasPrefix(host, "[") {
		host = h
	}
	return host, host != ""
}

func probeInt(req *object, key string, def, lo, hi int64) (int, *protoError) {
	v := req.get(key)
	if v == nil {
		return int(def), nil
	}
	n, ok := v.(int64)
	if !ok || n < lo || n > hi {
		what := typeName(v)
		if _, num := v.(float64); num || ok {
			what = javaNumber(v)
		}
		return 0, badRequest("", `"%s" must be an integer from %d to %d, not %s`, key, lo, hi, what)
	}
	return int(n), nil
}

func probeStrings(req *object, key string) ([]string, *protoError) {
	v := req.get(key)
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, badRequest("", `"%s" must be an array of strings, not %s`, key, typeName(v))
	}
	var out []string
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, badRequest("", `"%s"[%d] must be a string, not %s`, key, i, typeName(e))
		}
		out = append(out, s)
	}
	return out, nil
}
