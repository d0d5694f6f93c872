package compose

import (
	"context"
	"fmt"

	"github.com/droidstar/droidstar/internal/backend/adb"
	"github.com/droidstar/droidstar/internal/nouns"
	"github.com/droidstar/droidstar/internal/purpose"
	"github.com/droidstar/droidstar/internal/resolve"
)

// Check opens every backend the purpose lists far enough to catch
// mismatches without running a query: a sim model is loaded and compared
// with the purpose, and for adb the permissions are checked against the
// harness app (the rest is resolved on the device when learning starts).
// Only with resolveIt does a jvm harness start and resolve the target
// (classes, methods, listeners, arguments, callback names): that runs the
// program the purpose names in backend.jvm.java, with its JVM options, and
// the static initialisers of its jars; with resolveIt and o.Resolver an
// adb purpose is resolved on the host JVM against android.jar (see
// resolveOnHost). It says what it found, one part per backend.
func Check(ctx context.Context, p *purpose.Purpose, read ReadFunc, o BackendOptions, resolveIt bool) ([]string, error) {
	if err := bound(p); err != nil {
		return nil, err
	}
	var parts []string
	for _, kind := range p.Backend.Kinds {
		q := *p
		if err := q.Backend.Use(kind); err != nil {
			return nil, err
		}
		if kind == purpose.BackendADB {
			if err := adb.CheckPermissions(p); err != nil {
				return nil, err
			}
			part, err := resolveOnHost(ctx, p, o, resolveIt)
			if err != nil {
				return nil, err
			}
			parts = append(parts, part)
			continue
		}
		if kind == purpose.BackendJVM && !resolveIt {
			parts = append(parts, "jvm (not resolved: check --resolve runs the harness)")
			continue
		}
		plan, err := fromPurpose(ctx, &q, read, o)
		if err != nil {
			return nil, err
		}
		switch {
		case plan.Model != nil:
			parts = append(parts, fmt.Sprintf("sim (%s model, %s)", plan.Model.Format, nouns.Count(plan.Model.Machine.NumStates(), "state")))
		case len(plan.Executors) > 0:
			d := plan.Executors[0].Describe()
			parts = append(parts, fmt.Sprintf("%s (ran the harness on %s %s: target resolved)", kind, d.Model, d.Release))
		}
		if err := plan.Close(); err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// resolveOnHost resolves an adb purpose's classes, methods, listeners and
// callback names against android.jar on the host JVM, when asked to and
// given the resolver; otherwise the device resolves them when learning
// starts. A purpose with jars is left to the device: their JVM class files
// come from the example's Makefile, which a user's purpose does not have.
// With resolveIt the shims of abstract listener classes are generated
// first, as learn would, so that a missing d8 or dx is a check error.
func resolveOnHost(ctx context.Context, p *purpose.Purpose, o BackendOptions, resolveIt bool) (string, error) {
	if !resolveIt {
		return "adb (resolved on the device when learning starts)", nil
	}
	// The shims of abstract listener classes, generated as learn would
	// (a missing dexer fails here, with or without the resolver), then
	// resolved from their class files.
	q, skipped, err := deviceShims(ctx, p, o, resolverAndroidJar(o.Resolver))
	if err != nil {
		return "", err
	}
	switch {
	case o.Resolver == "":
		return "adb (resolved on the device when learning starts; check --resolve --resolver CP resolves it on this host)", nil
	case len(p.Jars) > 0:
		return "adb (resolved on the device when learning starts: the host resolver does not load the purpose's jars)", nil
	}
	job := resolve.Job{Purpose: q}
	if len(q.Jars) > 0 {
		job.Classpath = []string{q.Jars[len(q.Jars)-1].Path}
	}
	results, err := resolve.Run(ctx, []resolve.Job{job}, resolve.Options{Java: o.JVM.Java, Classpath: o.Resolver})
	if err != nil {
		return "", err
	}
	if results[0].Err != nil {
		return "", withShimHint(results[0].Err, skipped)
	}
	return "adb (resolved on this host against android.jar, API 23)", nil
}
