// Package draft writes a first purpose for a class from its public API:
// the harness jar's reflector (org.droidstar.harness.draft.Main, on the
// host JVM) describes the class, and Render turns the description into a
// purpose file that passes `droidstar check` as it is, for the user to cut
// down and fill in.
package draft

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// MainClass is the reflector's entry point in the harness jar.
const MainClass = "org.droidstar.harness.draft.Main"

// Description is what the reflector says about a class.
type Description struct {
	// Java is the specification version of the JVM that read the class
	// ("17"): the JDK's own classes differ from version to version.
	Java  string `json:"java"`
	Class Class  `json:"class"`
	// AndroidJar is the android.jar the class path held, or "".
	AndroidJar string `json:"-"`
}

// Class is the public API of a class, as a purpose can use it.
type Class struct {
	Name string `json:"class"`
	// Kind is class, abstract or interface.
	Kind string `json:"kind"`
	// Shim lists the callbacks of the harness's shim for the class itself
	// (android.os.CountDownTimer), nil when it has none.
	Shim         []Callback `json:"shim"`
	Constructors []Method   `json:"constructors"`
	Factories    []Method   `json:"factories"`
	Methods      []Method   `json:"methods"`
	Listeners    []Listener `json:"listeners"`
	// Interfaces are the callback interfaces (one to three methods to
	// implement) its methods take that no registration method names
	// (CompletableFuture's BiConsumer): a proxy could stand for each, once
	// the purpose declares it a listener.
	Interfaces []Listener `json:"interfaces"`
	// Types are the parameter types of its constructors, factories and
	// methods and of its listeners' callbacks (and of those types' own
	// constructors and factories), by binary name, with what an argument
	// literal could make a value of each from. Primitives, arrays, String
	// and Object are not among them.
	Types map[string]Type `json:"types"`
}

// Type is a parameter type, as argument literals could make its values.
type Type struct {
	// Kind is enum, interface, abstract or class.
	Kind      string `json:"kind"`
	Throwable bool   `json:"throwable"`
	// Constants are its enum constants and its public static final fields
	// of its own type, in declaration order ({constant: TYPE.NAME}).
	Constants []string `json:"constants"`
	// Constructors are its public constructors' parameters ({new: ...}),
	// none for an interface or an abstract class.
	Constructors []struct {
		Params []string `json:"params"`
	} `json:"constructors"`
	// Factories are its public static methods that return it ({call: ...}).
	Factories []Method `json:"factories"`
	// Methods are the names of its public instance methods.
	Methods []string `json:"methods"`
}

// Method is a constructor, a static factory or an instance method.
type Method struct {
	Name   string   `json:"name"`
	Params []string `json:"params"`
	// Returns is the return type's binary name (void for none).
	Returns   string `json:"returns"`
	Signature string `json:"signature"`
}

// Listener is a callback object the class takes: an interface (a proxy),
// a class the harness has a shim for, or a class with callback methods to
// override (a generated shim).
type Listener struct {
	Type string `json:"type"`
	// Kind is interface, abstract or class.
	Kind string `json:"kind"`
	// Register is the one-argument method that registers it
	// (setOnPreparedListener), or "" when it is passed as an argument.
	Register  string     `json:"register"`
	Shim      bool       `json:"shim"`
	Callbacks []Callback `json:"callbacks"`
	// Callins are the shim's own public methods (TimerTask.cancel).
	Callins []Method `json:"callins"`
}

// Callback is a method of a listener that the harness reports.
type Callback struct {
	Name      string `json:"name"`
	Signature string `json:"signature"`
	// Params are its parameter types (none known for a built-in shim's).
	Params []string `json:"params,omitempty"`
}

// Options say how to run the reflector.
type Options struct {
	// Java is the java command to run.
	Java string
	// HarnessJar is the path of the harness jar.
	HarnessJar string
	// Jars are libraries the class may come from (--jar).
	Jars []string
	// AndroidJar is android.jar, needed for android.* classes; "" when
	// there is none.
	AndroidJar string
}

// ClassError is a class the reflector could not describe.
type ClassError struct {
	Class string
	// Code is unknown-class or not-public.
	Code        string
	Message     string
	Suggestions []string
}

func (e *ClassError) Error() string {
	msg := e.Message
	if len(e.Suggestions) > 0 {
		msg += "; did you mean " + strings.Join(e.Suggestions, ", ") + "?"
	}
	return msg
}

// IsAndroid says whether a class name is one of the Android framework's,
// which only android.jar holds on a host.
func IsAndroid(class string) bool { return strings.HasPrefix(class, "android.") }

// Describe runs the reflector on class. A class it cannot find or read is
// a *ClassError; an Android class without android.jar is refused before
// anything runs.
func Describe(ctx context.Context, class string, o Options) (*Description, error) {
	if IsAndroid(class) && o.AndroidJar == "" {
		return nil, fmt.Errorf("%s is an Android class, and droidstar init reads those from android.jar (API 23), which it did not find: "+
			"pass --android-jar PATH or set ANDROID_HOME to an SDK with platforms/android-23 "+
			"(in a clone of droidstar, make -C harness-apk android-tools fetches it into harness-apk/build/android/android.jar)", class)
	}
	args := []string{"-XX:-UsePerfData", "-cp", o.HarnessJar, MainClass}
	for _, j := range o.Jars {
		args = append(args, "--classpath", j)
	}
	if o.AndroidJar != "" {
		args = append(args, "--classpath", o.AndroidJar)
	}
	args = append(args, class)
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, o.Java, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("the class reader (%s -cp %s %s) failed: %w\n%s", o.Java, o.HarnessJar, MainClass, err, bytes.TrimSpace(stderr.Bytes()))
	}
	var reply struct {
		OK bool `json:"ok"`
		Description
		Error *struct {
			Code        string   `json:"code"`
			Message     string   `json:"message"`
			Suggestions []string `json:"suggestions"`
		} `json:"error"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &reply); err != nil {
		return nil, fmt.Errorf("the class reader's answer: %w: %q", err, stdout.String())
	}
	if !reply.OK {
		if reply.Error == nil {
			return nil, errors.New("the class reader answered neither a class nor an error")
		}
		return nil, &ClassError{Class: class, Code: reply.Error.Code, Message: reply.Error.Message, Suggestions: reply.Error.Suggestions}
	}
	d := reply.Description
	d.AndroidJar = o.AndroidJar
	if len(d.Class.Methods) == 0 && len(d.Class.Shim) == 0 {
		return nil, &ClassError{Class: class, Code: "no-methods",
			Message: fmt.Sprintf("%s has no public instance methods: a purpose's callins are methods called on an instance, and there are none to draft", d.Class.Name)}
	}
	return &d, nil
}
