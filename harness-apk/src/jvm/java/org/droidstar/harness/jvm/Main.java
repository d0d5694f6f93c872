package org.droidstar.harness.jvm;

import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;

import org.droidstar.harness.core.Log;
import org.droidstar.harness.core.Server;
import org.droidstar.harness.core.Workspace;

/**
 * The JVM harness: serves the wire protocol on standard input and output
 * and logs to standard error.
 *
 * <pre>
 * java -cp droidstar-harness.jar org.droidstar.harness.jvm.Main [--files DIR]
 * java -cp droidstar-harness.jar org.droidstar.harness.jvm.Main --staging DIR --app-files DIR --app-code-cache DIR --run ID
 * </pre>
 *
 * With --files, DIR is the files directory of {"file": ...} literals,
 * environment actions and relative jar paths (created when missing);
 * without any option, a fresh temporary directory. The second form lays
 * the folders out as the harness does on a device (see Workspace): the
 * staging folder is copied into the run's folders under the app's files
 * folder and code cache, which a bye removes; droidstar's fake devices run
 * it so. Whatever the classes under test print to System.out goes to
 * standard error, so that standard output carries replies only.
 */
public final class Main {
    private static final String USAGE = "usage: java -cp droidstar-harness.jar org.droidstar.harness.jvm.Main"
            + " [--files DIR | --staging DIR --app-files DIR --app-code-cache DIR --run ID]";

    private Main() {
    }

    public static void main(String[] args) {
        Map<String, String> opts = new HashMap<String, String>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--version")) {
                System.out.println("droidstar-harness " + Server.HARNESS_VERSION + " (protocol "
                        + Server.PROTOCOL_VERSION + ")");
                return;
            }
            int eq = a.indexOf('=');
            String name = eq > 0 ? a.substring(0, eq) : a;
            if (!OPTIONS.contains(name)) {
                usage("unknown option " + a);
            }
            String value;
            if (eq > 0) {
                value = a.substring(eq + 1);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                usage(name + " needs a value");
                return;
            }
            opts.put(name, value);
        }
        boolean device = opts.containsKey("--staging") || opts.containsKey("--app-files")
                || opts.containsKey("--app-code-cache") || opts.containsKey("--run");
        if (device && (opts.containsKey("--files") || opts.size() != 4)) {
            usage("--staging, --app-files, --app-code-cache and --run go together, without --files");
        }
        OutputStream protocolOut = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out));
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
        int status = 0;
        File temp = null;
        Workspace workspace = null;
        boolean bye = false;
        try {
            if (device) {
                workspace = Workspace.open(new File(opts.get("--staging")), new File(opts.get("--app-files")),
                        new File(opts.get("--app-code-cache")), opts.get("--run"));
                for (String r : workspace.removed()) {
                    Log.log("removed the earlier run's " + r);
                }
                Log.log("copied " + workspace.copied() + " staged files into " + workspace.files() + " and "
                        + workspace.code());
            } else {
                File files = opts.containsKey("--files") ? new File(opts.get("--files")) : null;
                if (files == null) {
                    files = Files.createTempDirectory("droidstar-files").toFile();
                    temp = files;
                } else if (!files.isDirectory() && !files.mkdirs()) {
                    throw new IOException("cannot create the files directory " + files);
                }
                workspace = Workspace.direct(files.getAbsoluteFile());
                Log.log("files directory " + workspace.files());
            }
            JvmPlatform platform = new JvmPlatform(workspace);
            bye = new Server(platform).serve(System.in, protocolOut);
            protocolOut.flush();
            platform.shutdown();
        } catch (IOException e) {
            Log.log("stopped: " + e);
            status = 1;
        }
        // As on a device, only a bye ends the run: a dropped connection
        // leaves the folders for the host's next one.
        if (device && bye && workspace != null) {
            for (String f : workspace.close()) {
                Log.log("cannot remove " + f);
            }
        }
        if (temp != null) {
            deleteTree(temp);
        }
        System.exit(status);
    }

    private static final java.util.List<String> OPTIONS = java.util.Arrays.asList("--files", "--staging",
            "--app-files", "--app-code-cache", "--run");

    private static void usage(String why) {
        System.err.println(why);
        System.err.println(USAGE);
        System.exit(2);
    }
    private static void deleteTree(File f) {
        // never follow a symbolic link out of the directory
        File[] children = f.isDirectory() && !Files.isSymbolicLink(f.toPath()) ? f.listFiles() : null;
        if (children != null) {
            for (File c : children) {
                deleteTree(c);
            }
        }
        if (!f.delete()) {
            Log.log("cannot delete " + f);
        }
    }
}
