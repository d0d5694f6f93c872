package run

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/droidstar/droidstar/internal/atomicfile"
	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/model"
)

// WritePartial writes what a run that did not finish kept (see
// Outcome.Document) as NAME.partial.json in dir, through a temporary file
// and a rename, so that an interrupted write never leaves half a model,
// and returns the file.
func WritePartial(dir, name string, doc *model.Document) (string, error) {
	data, err := doc.Marshal()
	if err != nil {
		return "", fmt.Errorf("model %s: %w", name, err)
	}
	file := filepath.Join(dir, model.FileBase(name)+".partial.json")
	return file, atomicfile.Write(file, data)
}

// Device is a device the adb server offers, as a run on it would be named.
type Device struct {
	Serial string
	SDK    int
}

// FindDevices asks the adb server the spec names for the devices it asks
// for: serials (or "all"); none: ANDROID_SERIAL's, else the one attached.
// It is how a matrix makes one target of each device.
func (s *Session) FindDevices(ctx context.Context, spec Spec, serials []string) ([]Device, error) {
	client, err := s.client(spec.ADB)
	if err != nil {
		return nil, err
	}
	sel := adb.Selection{Devices: serials}
	if len(serials) == 0 {
		sel = adb.Selection{Device: s.env.getenv("ANDROID_SERIAL")}
	}
	if err := client.Ensure(ctx); err != nil {
		return nil, err
	}
	found, err := adb.Select(ctx, client, sel)
	if err != nil {
		return nil, err
	}
	devices := make([]Device, len(found))
	for i, d := range found {
		props, err := client.Device(d.Serial).Properties(ctx)
		if err != nil {
			return nil, fmt.Errorf("device %s: %w", d.Serial, err)
		}
		devices[i] = Device{Serial: d.Serial, SDK: adb.Describe(d.Serial, props).SDK}
	}
	return devices, nil
}
