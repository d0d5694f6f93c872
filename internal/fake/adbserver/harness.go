package adbserver

import (
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/droidstar/droidstar/internal/backend/sim"
	"github.com/droidstar/droidstar/internal/fake/adbd"
	"github.com/droidstar/droidstar/internal/fake/simharness"
	"github.com/droidstar/droidstar/internal/harness"
)

// SimHarness is a fake device's harness answering from a sim model, with
// the device's own properties in its hello. callbackNames renames the
// model's outputs to the listener methods a purpose declares (see
// simharness.PurposeCallbackNames), so error callbacks end a query as
// they do on a device.
func SimHarness(m *sim.Model, timing sim.Timing, props map[string]string, callbackNames map[string]string) adbd.HarnessFunc {
	return SimHarnessWith(simharness.Options{Model: m, Timing: timing, CallbackNames: callbackNames}, props)
}

// SimHarnessWith is SimHarness with the simulated harness's other
// options (a device's paired Bluetooth devices, refusals); its hello is
// the device's, from props.
func SimHarnessWith(o simharness.Options, props map[string]string) adbd.HarnessFunc {
	o.Hello = harness.Hello{
		Platform: "android", Release: props["ro.build.version.release"], Model: props["ro.product.model"],
		Manufacturer: props["ro.product.manufacturer"],
	}
	o.Hello.SDK, _ = strconv.Atoi(props["ro.build.version.sdk"])
	return func(ctx context.Context, _ adbd.HarnessRun) (func(context.Context, io.ReadWriteCloser) bool, error) {
		return func(ctx context.Context, conn io.ReadWriteCloser) bool {
			bye, err := simharness.Serve(ctx, conn, o)
			var crash *simharness.CrashError
			if errors.As(err, &crash) {
				adbd.Crash(ctx, crash.Exception, crash.Message)
			}
			return bye
		}, nil
	}
}

// Props are a fake device's properties: the banner's and getprop's.
func Props(model, release string, sdk int) map[string]string {
	return map[string]string{
		"ro.product.model":         model,
		"ro.product.name":          "sdk_fake",
		"ro.product.device":        "fake",
		"ro.product.manufacturer":  "Google",
		"ro.build.version.release": release,
		"ro.build.version.sdk":     strconv.Itoa(sdk),
	}
}
