package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ProbeFile is the file the host stages for the probe's file checks
// (PROTOCOL.md, probe: "file").
const ProbeFile = "doctor-probe.txt"

// ProbeRequest is the probe op's request: what droidstar doctor asks a
// harness to try on its device.
type ProbeRequest struct {
	// File is the staged file the file checks work on (ProbeFile).
	File string `json:"file,omitempty"`
	// Samples is how many callbacks of each main-looper source to time.
	Samples int `json:"samples"`
	// AudioMs is how long to record from the microphone; 0 skips it.
	AudioMs int `json:"audio_ms"`
	// URLTimeoutMs bounds each URL check's connect and read; 0 is the
	// harness's default (5000).
	URLTimeoutMs int      `json:"url_timeout_ms,omitempty"`
	URLs         []string `json:"urls"`
	Permissions  []string `json:"permissions"`
	// BluetoothPaired are Bluetooth addresses to ask whether the device is
	// paired with (a purpose's bluetooth_address parameters).
	BluetoothPaired []string `json:"bluetooth_paired,omitempty"`
}

// ProbeResult is the harness's answer to probe.
type ProbeResult struct {
	Files     ProbeFiles        `json:"files"`
	Jar       Attempt           `json:"jar"`
	Proxy     ProbeProxy        `json:"proxy"`
	Callbacks []CallbackLatency `json:"callbacks"`
	// QuiescenceMs is the suggested quiescence timeout for callbacks the
	// framework posts at once; nil when nothing was timed.
	QuiescenceMs *int64            `json:"quiescence_ms"`
	Audio        ProbeAudio        `json:"audio"`
	Permissions  []PermissionState `json:"permissions"`
	URLs         []URLCheck        `json:"urls"`
	// Bluetooth answers BluetoothPaired; nil when nothing was asked.
	Bluetooth *ProbeBluetooth `json:"bluetooth"`
}

// ProbeBluetooth says which of the addresses asked about the device is
// paired with: Available is false where the platform has no Bluetooth
// API (the JVM); a failed attempt says why the device could not tell
// (Bluetooth off, no adapter).
type ProbeBluetooth struct {
	Available bool
	Attempt
	// Paired are the addresses asked about that are paired, as asked.
	Paired []string
}

// MarshalJSON writes {"available":false}, or available and the attempt's
// members, with paired when it worked.
func (p ProbeBluetooth) MarshalJSON() ([]byte, error) {
	if !p.Available {
		return []byte(`{"available":false}`), nil
	}
	var b, at bytes.Buffer
	p.Attempt.write(&at)
	b.WriteString(`{"available":true,`)
	b.Write(at.Bytes()[1:])
	if p.OK {
		paired, err := json.Marshal(nonNil(p.Paired))
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"paired":`)
		b.Write(paired)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (p *ProbeBluetooth) UnmarshalJSON(data []byte) error {
	var v struct {
		Available bool     `json:"available"`
		OK        bool     `json:"ok"`
		Errno     string   `json:"errno"`
		Message   string   `json:"message"`
		Paired    []string `json:"paired"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*p = ProbeBluetooth{Available: v.Available, Attempt: Attempt{OK: v.OK, Errno: v.Errno, Message: v.Message}, Paired: v.Paired}
	return nil
}

// IsPaired says whether the probe found the device paired with address
// (compared without regard to case, as the harness compares).
func (p *ProbeBluetooth) IsPaired(address string) bool {
	return p != nil && p.OK && slices.ContainsFunc(p.Paired, func(a string) bool { return strings.EqualFold(a, address) })
}

// ProbeFiles are the file checks in the staging folder (nil where the
// harness works in the folder the host wrote) and in the private one.
type ProbeFiles struct {
	Staging *FolderCheck `json:"staging"`
	Private FolderCheck  `json:"private"`
}

// FolderCheck is what one folder allows, in the order they are tried.
type FolderCheck struct {
	Read     Attempt `json:"read"`
	Create   Attempt `json:"create"`
	Append   Attempt `json:"append"`
	Truncate Attempt `json:"truncate"`
	Unlink   Attempt `json:"unlink"`
}

// Attempt is one thing tried: OK, or the errno the failure named (empty
// when none) and what was thrown.
type Attempt struct {
	OK      bool   `json:"ok"`
	Errno   string `json:"errno"`
	Message string `json:"message"`
}

// Failed is a failed attempt with an errno, as the harness reports one.
func Failed(errno, message string) Attempt { return Attempt{Errno: errno, Message: message} }

// MarshalJSON writes {"ok":true}, or {"ok":false,"errno":E,"message":M}
// with a null errno when there is none, as the Java harness does.
func (a Attempt) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	a.write(&b)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// write writes the attempt's members without the closing brace, so that
// the objects that embed an attempt can append theirs.
func (a Attempt) write(b *bytes.Buffer) {
	if a.OK {
		b.WriteString(`{"ok":true`)
		return
	}
	b.WriteString(`{"ok":false,"errno":`)
	if a.Errno == "" {
		b.WriteString("null")
	} else {
		b.Write(jsonString(a.Errno))
	}
	b.WriteString(`,"message":`)
	b.Write(jsonString(a.Message))
}

// Summary is "ok", the errno, or the message when no errno was named.
func (a Attempt) Summary() string {
	switch {
	case a.OK:
		return "ok"
	case a.Errno != "":
		return a.Errno
	}
	return a.Message
}

func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// ProbeProxy says whether the framework called a proxy of one of its
// listener interfaces, and which method.
type ProbeProxy struct {
	Listener string
	Attempt
	Callback string
}

// MarshalJSON writes listener, the attempt's members, then callback.
func (p ProbeProxy) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	var a bytes.Buffer
	p.Attempt.write(&a)
	b.WriteString(`{"listener":`)
	b.Write(nullable(p.Listener))
	b.WriteByte(',')
	b.Write(a.Bytes()[1:])
	b.WriteString(`,"callback":`)
	b.Write(nullable(p.Callback))
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (p *ProbeProxy) UnmarshalJSON(data []byte) error {
	var v struct {
		Listener string `json:"listener"`
		OK       bool   `json:"ok"`
		Errno    string `json:"errno"`
		Message  string `json:"message"`
		Callback string `json:"callback"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*p = ProbeProxy{Listener: v.Listener, Attempt: Attempt{OK: v.OK, Errno: v.Errno, Message: v.Message}, Callback: v.Callback}
	return nil
}

func nullable(s string) []byte {
	if s == "" {
		return []byte("null")
	}
	return jsonString(s)
}

// CallbackLatency is how late one kind of main-looper callback arrived,
// in milliseconds past the delay it was asked for.
type CallbackLatency struct {
	Source  string   `json:"source"`
	DelayMs int64    `json:"delay_ms"`
	Samples int      `json:"samples"`
	Missed  int      `json:"missed"`
	P50     *float64 `json:"p50_ms"`
	P90     *float64 `json:"p90_ms"`
	P99     *float64 `json:"p99_ms"`
	Max     *float64 `json:"max_ms"`
	Error   *string  `json:"error"`
}

// ProbeAudio is the microphone's level over a short recording: Available
// is false where the platform has no microphone API (the JVM).
type ProbeAudio struct {
	Available bool
	Attempt
	Ms   int
	Peak int
	RMS  float64
}

// MarshalJSON writes {"available":false}, or available and the attempt's
// members, with ms, peak and rms when it worked.
func (a ProbeAudio) MarshalJSON() ([]byte, error) {
	if !a.Available {
		return []byte(`{"available":false}`), nil
	}
	var b, at bytes.Buffer
	a.Attempt.write(&at)
	b.WriteString(`{"available":true,`)
	b.Write(at.Bytes()[1:])
	if a.OK {
		fmt.Fprintf(&b, `,"ms":%d,"peak":%d,"rms":%s`, a.Ms, a.Peak, strconv.FormatFloat(a.RMS, 'f', -1, 64))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (a *ProbeAudio) UnmarshalJSON(data []byte) error {
	var v struct {
		Available bool    `json:"available"`
		OK        bool    `json:"ok"`
		Errno     string  `json:"errno"`
		Message   string  `json:"message"`
		Ms        int     `json:"ms"`
		Peak      int     `json:"peak"`
		RMS       float64 `json:"rms"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*a = ProbeAudio{Available: v.Available, Attempt: Attempt{OK: v.OK, Errno: v.Errno, Message: v.Message}, Ms: v.Ms, Peak: v.Peak, RMS: v.RMS}
	return nil
}

// PermissionState is whether the app holds a permission, where the
// platform can tell.
type PermissionState struct {
	Permission string `json:"permission"`
	Granted    bool   `json:"granted"`
}

// URLCheck is whether the device reached a URL: any HTTP status counts.
type URLCheck struct {
	URL string
	Attempt
	Status int
	Ms     float64
}

// MarshalJSON writes url, the attempt's members, status when it worked,
// then ms.
func (u URLCheck) MarshalJSON() ([]byte, error) {
	var b, at bytes.Buffer
	u.Attempt.write(&at)
	b.WriteString(`{"url":`)
	b.Write(jsonString(u.URL))
	b.WriteByte(',')
	b.Write(at.Bytes()[1:])
	if u.OK {
		fmt.Fprintf(&b, `,"status":%d`, u.Status)
	}
	fmt.Fprintf(&b, `,"ms":%s}`, millis(u.Ms))
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (u *URLCheck) UnmarshalJSON(data []byte) error {
	var v struct {
		URL     string  `json:"url"`
		OK      bool    `json:"ok"`
		Errno   string  `json:"errno"`
		Message string  `json:"message"`
		Status  int     `json:"status"`
		Ms      float64 `json:"ms"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*u = URLCheck{URL: v.URL, Attempt: Attempt{OK: v.OK, Errno: v.Errno, Message: v.Message}, Status: v.Status, Ms: v.Ms}
	return nil
}

// millis writes a duration as the Java harness's Json.millis does: at
// most three decimals, and at least one (0.0, 20.137).
func millis(ms float64) string {
	if ms < 0 {
		ms = 0
	}
	s := strconv.FormatFloat(ms, 'f', 3, 64)
	for len(s) > 0 && s[len(s)-1] == '0' && s[len(s)-2] != '.' {
		s = s[:len(s)-1]
	}
	return s
}

// Probe asks the harness what its device lets it do.
func (c *Client) Probe(ctx context.Context, req ProbeRequest) (ProbeResult, error) {
	var r ProbeResult
	m := map[string]any{"samples": req.Samples, "audio_ms": req.AudioMs, "urls": nonNil(req.URLs), "permissions": nonNil(req.Permissions)}
	if req.File != "" {
		m["file"] = req.File
	}
	if req.URLTimeoutMs > 0 {
		m["url_timeout_ms"] = req.URLTimeoutMs
	}
	if len(req.BluetoothPaired) > 0 {
		m["bluetooth_paired"] = req.BluetoothPaired
	}
	err := c.call(ctx, "probe", m, &r)
	return r, err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
