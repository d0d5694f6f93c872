package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/droidstar/droidstar/internal/atomicfile"
	"github.com/droidstar/droidstar/internal/compose"
)

func newInitCmd(e *env) *cobra.Command {
	var o compose.DraftOptions
	var out string
	c := &cobra.Command{
		Use:   "init CLASS",
		Short: "Draft a purpose for a class from its public API",
		Long: `Init reads CLASS by reflection on the host JVM (nothing of it runs) and writes
a purpose draft:
  - the --jar files as its jars;
  - its constructors and static factories as target.new or target.factory, the
    first one chosen and the others commented out (a class the harness has a
    shim for, such as TimerTask or AsyncTask, is drafted as its shim);
  - its public instance methods as callins, with a placeholder argument of each
    parameter's type, of the argument literal kinds of the purpose schema
    ({int: 0}, false, "text", {listener: T}, {constant: ...} of an enum,
    {new: [java.lang.IllegalStateException, boom]} for a Throwable, {new: ...}
    and {call: ...} of simple constructors and factories, {path: ...}, ...);
    those that take an object no argument literal makes (null), or a callback
    interface no registration method names ({listener: T}), and queries
    (get*, is*, has*, estimate*, size, toString, ...) are commented out,
    saying why;
  - the callback interfaces and classes its subscribe, set*Listener,
    set*Callback, register*, add* and open* methods take, the callback
    interfaces its submit, execute, schedule, post, offer ... methods take, and
    the classes with shims its methods take, as target.listeners, and their
    methods as callbacks;
  - advice in comments: restrictions on the methods that may be called without
    end, and how to call methods on objects the callbacks hand out.
Each entry is commented with its Java signature. The draft passes 'droidstar
check' as it is: delete what you do not want, pick the constructor, and put
values that mean something in place of the placeholders (examples/jvm/README.md
walks through java.util.Timer).

Classes come from the JDK, the --jar libraries, and, for android.* classes,
android.jar (API 23): --android-jar, else platforms/android-23/android.jar
under ANDROID_HOME or ANDROID_SDK_ROOT. The draft of an Android class runs on
the adb backend; of any other class on the jvm backend.

Exit 1 for an unknown class (the classes of the nearest names are suggested),
a class that is not public or has no public instance methods, an Android class
without android.jar, no java, or -o naming an existing file; 2 for a wrong
command line.`,
		Example: `  droidstar init java.util.Timer                      # the draft on standard output
  droidstar init java.util.Timer -o timer.yaml
  droidstar init android.media.MediaPlayer --android-jar harness-apk/build/android/android.jar
  droidstar init com.example.Gadget --jar libs/gadget.jar -o gadget.yaml`,
		Args: exactArgs(1, "one class name"),
		RunE: func(c *cobra.Command, args []string) error {
			if out != "" {
				// A draft is where the user's edits go: never over one.
				if _, err := os.Lstat(out); err == nil {
					return fmt.Errorf("%s exists, and init does not write over a purpose: remove it or give another -o", out)
				} else if !errors.Is(err, fs.ErrNotExist) {
					return fmt.Errorf("-o %s: %w", out, err)
				}
			}
			o.PurposeDir = "."
			if out != "" {
				o.PurposeDir = filepath.Dir(out)
			}
			data, err := compose.DraftPurpose(c.Context(), args[0], e.backendOptions(), o)
			if err != nil {
				return err
			}
			if out == "" {
				_, err := e.stdout.Write(data)
				return err
			}
			if err := atomicfile.Write(out, data); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "wrote %s\n", out)
			return nil
		},
	}
	c.Flags().StringArrayVar(&o.Jars, "jar", nil, "a library jar (or class folder) CLASS may come from; repeat for more")
	c.Flags().StringVar(&o.AndroidJar, "android-jar", "", "android.jar for android.* classes (default: $ANDROID_HOME's)")
	c.Flags().StringVarP(&out, "output", "o", "", "write the draft to this new file, not stdout")
	return c
}
