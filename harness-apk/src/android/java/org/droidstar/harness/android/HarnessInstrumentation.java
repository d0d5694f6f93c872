package org.droidstar.harness.android;

import android.app.Instrumentation;
import android.net.LocalServerSocket;
import android.net.LocalSocket;
import android.os.Bundle;
import android.os.Process;
import android.util.Log;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.droidstar.harness.core.Server;

/**
 * The harness on a device. The host starts it with
 * <pre>
 * am instrument -w [-e socket NAME] [-e files DIR] org.droidstar.harness/.HarnessInstrumentation
 * </pre>
 * It listens on the abstract local socket NAME (default droidstar-harness),
 * serves one connection after another with the pure-Java core's Server
 * (PROTOCOL.md), and finishes after a bye. Only adbd (uid shell or root) and
 * the harness's own uid may connect: the abstract namespace is open to every
 * app on the device. Every step is logged to logcat
 * with tag droidstar-harness, so that the host can show why a session failed.
 *
 * This layer cannot run on the build machines (no device, emulator or ART),
 * which is why it does no more than wire the core to the framework.
 */
public class HarnessInstrumentation extends Instrumentation {
    static final String TAG = "droidstar-harness";
    public static final String DEFAULT_SOCKET = "droidstar-harness";
    /** adbd's uid (AID_SHELL): the host's ADB streams arrive from it (or from root). */
    private static final int SHELL_UID = 2000;

    private static final Pattern OP = Pattern.compile("\"op\"\\s*:\\s*\"([^\"]*)\"");
    private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*(-?\\d+)");

    private String socketName = DEFAULT_SOCKET;
    private File filesDir;

    /** The op of the last request read on the current connection. */
    private volatile String lastOp = "";

    @Override
    public void onCreate(Bundle arguments) {
        super.onCreate(arguments);
        if (arguments != null) {
            String s = arguments.getString("socket");
            if (s != null && s.length() > 0) {
                socketName = s;
            }
            String f = arguments.getString("files");
            if (f != null && f.length() > 0) {
                filesDir = new File(f);
            }
        }
        org.droidstar.harness.core.Log.setSink(new org.droidstar.harness.core.Log.Sink() {
            @Override
            public void log(String line) {
                Log.i(TAG, line);
            }
        });
        Log.i(TAG, "starting: socket " + socketName + ", files "
                + (filesDir != null ? filesDir.getPath() : "(target files dir)"));
        start();
    }

    @Override
    public void onStart() {
        super.onStart();
        Bundle results = new Bundle();
        int code = 0;
        LocalServerSocket server = null;
        try {
            AndroidPlatform platform = new AndroidPlatform(getTargetContext(), filesDir);
            // One Server for every connection: a host that reconnects finds
            // its configuration, and a wedged harness stays wedged.
            Server harness = new Server(platform);
            File files = platform.filesDir();
            if (!files.isDirectory() && !files.mkdirs()) {
                Log.w(TAG, "cannot create the files dir " + files);
            }
            server = new LocalServerSocket(socketName);
            Log.i(TAG, "listening on localabstract:" + socketName + " (sdk " + platform.sdk()
                    + ", files " + files + ")");
            for (int n = 1;; n++) {
                LocalSocket socket = server.accept();
                int uid;
                try {
                    uid = socket.getPeerCredentials().getUid();
                } catch (IOException e) {
                    uid = -1;
                }
                if (uid != 0 && uid != SHELL_UID && uid != Process.myUid()) {
                    Log.w(TAG, "connection " + n + " from uid " + uid + " refused (only adb's shell or root)");
                    socket.close();
                    continue;
                }
                Log.i(TAG, "connection " + n + " accepted (uid " + uid + ")");
                boolean bye = serve(harness, socket, n);
                if (bye) {
                    Log.i(TAG, "bye on connection " + n + ": finishing");
                    results.putString("droidstar-harness", "bye");
                    break;
                }
                Log.i(TAG, "connection " + n + " closed without bye; listening again");
            }
        } catch (Throwable t) {
            Log.e(TAG, "harness failed: " + t, t);
            results.putString("droidstar-harness", "error: " + t);
            code = 1;
        } finally {
            if (server != null) {
                try {
                    server.close();
                } catch (IOException e) {
                    Log.w(TAG, "closing the server socket: " + e);
                }
            }
        }
        finish(code, results);
    }

    /** Serves one connection; true when it ended with a bye. */
    private boolean serve(Server harness, LocalSocket socket, final int n) {
        lastOp = "";
        LineTap requests = new LineTap(new LineTap.Listener() {
            @Override
            public void line(String line) {
                String op = find(OP, line);
                lastOp = op;
                Log.i(TAG, "connection " + n + ": request " + op + " id " + find(ID, line));
            }
        });
        LineTap replies = new LineTap(new LineTap.Listener() {
            @Override
            public void line(String line) {
                if (line.contains("\"ok\":false")) {
                    Log.w(TAG, "connection " + n + ": error reply " + line);
                } else if ("configure".equals(lastOp) || "hello".equals(lastOp)) {
                    Log.i(TAG, "connection " + n + ": " + lastOp + " reply " + line);
                }
            }
        });
        try {
            InputStream in = requests.in(socket.getInputStream());
            OutputStream out = replies.out(socket.getOutputStream());
            harness.serve(in, out);
            out.flush();
        } catch (Throwable t) {
            Log.e(TAG, "connection " + n + " failed: " + t, t);
        } finally {
            try {
                socket.close();
            } catch (IOException e) {
                Log.w(TAG, "closing connection " + n + ": " + e);
            }
        }
        return "bye".equals(lastOp);
    }

    private static String find(Pattern p, String line) {
        Matcher m = p.matcher(line);
        return m.find() ? m.group(1) : "?";
    }
}
