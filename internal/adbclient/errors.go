package adbclient

import (
	"errors"
	"fmt"
	"strings"
)

// ServerError is a FAIL reply: the adb server's refusal, or the device's
// relayed by it ("closed" when the device refuses to open a service).
type ServerError struct {
	Request string // what was asked
	Message string // the server's words
}

// Error leaves the request out: callers say what they were doing.
func (e *ServerError) Error() string {
	if e.Message == "closed" {
		// adb's word when the device turns a service down, which says
		// little on its own.
		return "adb server: closed (the device refused the service: nothing listens there, or it does not offer it)"
	}
	return "adb server: " + oneLine(e.Message)
}

// DeviceStateError says that the server knows no device by that serial,
// or knows it in a state that takes no requests. Its State lets callers
// explain what to do; Error already says it plainly.
type DeviceStateError struct {
	Serial string
	// State is "not found", or the device's state as adb devices shows
	// it: "unauthorized", "offline", "authorizing", "connecting".
	State string
	// Message is the server's own words.
	Message string
}

func (e *DeviceStateError) Error() string {
	var what string
	switch e.State {
	case "not found":
		what = "is not attached to the adb server"
	case "unauthorized":
		what = "is unauthorized: unlock it and accept the RSA key prompt (\"Allow USB debugging?\") on the phone"
	case "offline":
		what = "is offline: reconnect it, or restart the adb server"
	default:
		what = "is " + e.State + ", not ready"
	}
	return fmt.Sprintf("device %s %s (adb server: %s)", e.Serial, what, oneLine(e.Message))
}

// deviceError turns the server's refusals that are about the device into
// a *DeviceStateError and leaves other errors alone.
func deviceError(serial string, err error) error {
	var se *ServerError
	if !errors.As(err, &se) {
		return err
	}
	msg := se.Message
	var state string
	switch {
	case strings.HasPrefix(msg, "device ") && strings.Contains(msg, "not found"),
		strings.HasPrefix(msg, "no devices/emulators found"):
		state = "not found"
	case strings.HasPrefix(msg, "device unauthorized"):
		state = "unauthorized"
	case strings.HasPrefix(msg, "device offline"):
		state = "offline"
	case strings.HasPrefix(msg, "device still authorizing"):
		state = "authorizing"
	case strings.HasPrefix(msg, "device still connecting"):
		state = "connecting"
	default:
		return err
	}
	return &DeviceStateError{Serial: serial, State: state, Message: msg}
}

// oneLine folds the server's multi-line explanations (unauthorized has
// four lines) so that an error stays one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
