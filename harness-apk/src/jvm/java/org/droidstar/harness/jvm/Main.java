package org.droidstar.harness.jvm;

import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;

import org.droidstar.harness.core.Log;
import org.droidstar.harness.core.Server;

/**
 * The JVM harness: serves the wire protocol on standard input and output
 * and logs to standard error.
 *
 * <pre>java -cp droidstar-harness.jar org.droidstar.harness.jvm.Main [--files DIR]</pre>
 *
 * DIR is the files directory of {"file": ...} literals and environment
 * actions (created when missing); without it, a fresh temporary directory.
 * Whatever the classes under test print to System.out goes to standard
 * error, so that standard output carries replies only.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        File files = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--files") && i + 1 < args.length) {
                files = new File(args[++i]);
            } else if (args[i].startsWith("--files=")) {
                files = new File(args[i].substring("--files=".length()));
            } else if (args[i].equals("--version")) {
                System.out.println("droidstar-harness " + Server.HARNESS_VERSION + " (protocol "
                        + Server.PROTOCOL_VERSION + ")");
                return;
            } else {
                System.err.println("usage: java -cp droidstar-harness.jar org.droidstar.harness.jvm.Main [--files DIR]");
                System.exit(2);
            }
        }
        OutputStream protocolOut = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out));
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
        int status = 0;
        File temp = null;
        try {
            if (files == null) {
                files = Files.createTempDirectory("droidstar-files").toFile();
                temp = files;
            } else if (!files.isDirectory() && !files.mkdirs()) {
                throw new IOException("cannot create the files directory " + files);
            }
            files = files.getAbsoluteFile();
            Log.log("files directory " + files);
            JvmPlatform platform = new JvmPlatform(files);
            new Server(platform).serve(System.in, protocolOut);
            protocolOut.flush();
            platform.shutdown();
        } catch (IOException e) {
            Log.log("stopped: " + e);
            status = 1;
        }
        if (temp != null) {
            deleteTree(temp);
        }
        System.exit(status);
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
