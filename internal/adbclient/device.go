package adbclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
)

// Device is one device of the server, by serial.
type Device struct {
	client *Client
	serial string

	// features are cached: every shell command needs them to pick the
	// protocol, and they only change when adbd does.
	mu       sync.Mutex
	features []string
}

// Serial is the device's serial, as adb devices shows it.
func (d *Device) Serial() string { return d.serial }

// fail gives an error the device's serial and what was being done. A
// *DeviceStateError already names the device, so it only gets the
// operation.
func (d *Device) fail(op string, err error) error {
	err = deviceError(d.serial, err)
	var dse *DeviceStateError
	if errors.As(err, &dse) {
		return fmt.Errorf("%s: %w", op, err)
	}
	return fmt.Errorf("device %s: %s: %w", d.serial, op, err)
}

// Features lists what the device's adbd supports (shell_v2, cmd, ...).
func (d *Device) Features(ctx context.Context) ([]string, error) {
	d.mu.Lock()
	cached := d.features
	d.mu.Unlock()
	if cached != nil {
		return slices.Clone(cached), nil
	}
	msg, err := d.client.query(ctx, "host-serial:"+d.serial+":features")
	if err != nil {
		return nil, d.fail("read its features", err)
	}
	fs := []string{}
	for f := range strings.SplitSeq(strings.TrimSpace(msg), ",") {
		if f != "" {
			fs = append(fs, f)
		}
	}
	d.mu.Lock()
	d.features = fs
	d.mu.Unlock()
	return slices.Clone(fs), nil
}

func (d *Device) hasFeature(ctx context.Context, name string) (bool, error) {
	fs, err := d.Features(ctx)
	if err != nil {
		return false, err
	}
	return slices.Contains(fs, name), nil
}

// open switches a server connection to the device and opens service on
// it. ctx watches the connection until the caller releases or closes it.
func (d *Device) open(ctx context.Context, service string) (*conn, error) {
	cn, err := d.client.dial(ctx)
	if err != nil {
		return nil, fmt.Errorf("device %s: %w", d.serial, err)
	}
	if err := cn.request("host:transport:" + d.serial); err != nil {
		cn.Close()
		return nil, d.fail("reach it", ctxErr(ctx, err))
	}
	if err := cn.request(service); err != nil {
		cn.Close()
		return nil, d.fail("open "+describe(service), ctxErr(ctx, err))
	}
	return cn, nil
}

// Open opens a raw stream to a device service, such as
// "localabstract:NAME" for an app's abstract socket. As with
// net.Dialer.DialContext, ctx bounds the opening only: the stream lives
// until Close. A refusal comes back as the server's message (adb says
// "closed" when nothing listens on the socket).
func (d *Device) Open(ctx context.Context, service string) (io.ReadWriteCloser, error) {
	cn, err := d.open(ctx, service)
	if err != nil {
		return nil, err
	}
	if !cn.release() {
		cn.Close()
		return nil, d.fail("open "+describe(service), ctx.Err())
	}
	return cn, nil
}

// Properties reads the device's system properties (getprop).
func (d *Device) Properties(ctx context.Context) (map[string]string, error) {
	r, err := d.Shell(ctx, "getprop")
	if err != nil {
		return nil, err
	}
	if r.Exit != 0 {
		return nil, fmt.Errorf("device %s: getprop exited with %d: %s", d.serial, r.Exit, oneLine(r.Stderr+" "+r.Stdout))
	}
	return parseGetprop(r.Stdout), nil
}
