package adbclient

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// parseServerSocket reads ADB_SERVER_SOCKET the way adb does for TCP:
// tcp:HOST:PORT or tcp:PORT (an IPv6 host in brackets). adb also accepts
// local sockets, which droidstar cannot reach over TCP, so they are
// refused with a reason rather than misread.
func parseServerSocket(spec string) (host string, port int, err error) {
	rest, ok := strings.CutPrefix(spec, "tcp:")
	if !ok {
		return "", 0, fmt.Errorf("ADB_SERVER_SOCKET=%q: want tcp:HOST:PORT or tcp:PORT (droidstar reaches the adb server over TCP only)", spec)
	}
	portStr := rest
	if strings.Contains(rest, ":") {
		host, portStr, err = net.SplitHostPort(rest)
		if err != nil {
			return "", 0, fmt.Errorf("ADB_SERVER_SOCKET=%q: want tcp:HOST:PORT or tcp:PORT: %w", spec, err)
		}
		if host == "" {
			return "", 0, fmt.Errorf("ADB_SERVER_SOCKET=%q: empty host; want tcp:HOST:PORT or tcp:PORT", spec)
		}
	}
	port, err = parsePort(portStr)
	if err != nil {
		return "", 0, fmt.Errorf("ADB_SERVER_SOCKET=%q: %w", spec, err)
	}
	return host, port, nil
}

func parsePort(s string) (int, error) {
	p, err := strconv.Atoi(s)
	if err != nil || p < 1 || p > 65535 {
		return 0, fmt.Errorf("port %q is not a number from 1 to 65535", s)
	}
	return p, nil
}

// parseDevices reads host:devices-l: a serial, the state, then key:value
// descriptors. The state can have spaces ("no permissions (...); see
// [http://...]"), so descriptors are taken from the end of the line, where
// adb puts them, and whatever is left after the serial is the state.
func parseDevices(s string) []DeviceInfo {
	var out []DeviceInfo
	for line := range strings.SplitSeq(s, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		d := DeviceInfo{Serial: fields[0]}
		rest := fields[1:]
	descriptors:
		for len(rest) > 0 {
			last := rest[len(rest)-1]
			key, value, ok := strings.Cut(last, ":")
			if !ok {
				break
			}
			switch key {
			case "transport_id":
				d.TransportID = value
			case "device":
				d.Device = value
			case "model":
				d.Model = value
			case "product":
				d.Product = value
			case "usb":
				d.USB = value
			default:
				break descriptors
			}
			rest = rest[:len(rest)-1]
		}
		d.State = strings.Join(rest, " ")
		out = append(out, d)
	}
	return out
}

// parseGetprop reads getprop's "[key]: [value]" lines. A value may hold
// newlines, so an entry ends at the "]" that closes a line followed by the
// next "[key]: [" or the end, not at the first line end.
func parseGetprop(s string) map[string]string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	props := map[string]string{}
	var key string
	var value strings.Builder
	open := false
	flush := func() {
		if open {
			props[key] = strings.TrimSuffix(value.String(), "]")
		}
		open = false
		value.Reset()
	}
	for line := range strings.SplitSeq(s, "\n") {
		if k, v, ok := entryStart(line); ok && (!open || strings.HasSuffix(value.String(), "]")) {
			flush()
			key, open = k, true
			value.WriteString(v)
			continue
		}
		if open {
			value.WriteString("\n")
			value.WriteString(line)
		}
	}
	if open {
		// A trailing newline leaves an empty last line behind the value.
		v := strings.TrimRight(value.String(), "\n")
		value.Reset()
		value.WriteString(v)
	}
	flush()
	return props
}

// entryStart splits "[key]: [value..." into key and "value...".
func entryStart(line string) (key, rest string, ok bool) {
	if !strings.HasPrefix(line, "[") {
		return "", "", false
	}
	k, r, ok := strings.Cut(line[1:], "]: [")
	if !ok || strings.ContainsAny(k, "[]") {
		return "", "", false
	}
	return k, r, true
}

// parseConnect reads host:connect's answer, which comes as OKAY whether
// or not the connection worked.
func parseConnect(addr, msg string) error {
	if strings.HasPrefix(msg, "connected to ") || strings.HasPrefix(msg, "already connected to ") {
		return nil
	}
	if msg == "" {
		msg = "no answer"
	}
	return fmt.Errorf("connect %s: %s", addr, oneLine(msg))
}
