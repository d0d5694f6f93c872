package org.droidstar.harness.android;

import android.app.Instrumentation;
import android.content.Context;
import android.net.LocalServerSocket;
import android.net.LocalSocket;
import android.os.Bundle;
import android.os.Process;
import android.util.Log;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

import org.droidstar.harness.core.Connections;
import org.droidstar.harness.core.Server;
import org.droidstar.harness.core.Workspace;

/**
 * The harness on a device. The host starts it with
 * <pre>
 * am instrument -w -e socket NAME -e staging DIR -e run ID org.droidstar.harness/.HarnessInstrumentation
 * </pre>
 * It copies the staging folder DIR (which the adb shell filled and the app
 * may only read) into its own folders (Workspace), listens on the abstract
 * local socket NAME (default droidstar-harness), serves one connection after
 * another (Connections: the peer-uid policy and one Server across them), and
 * finishes after a bye, removing its folders. Every step is logged to logcat
 * with tag droidstar-harness, so that the host can show why a session failed.
 *
 * This layer cannot run on the build machines (no device, emulator or ART),
 * which is why it does no more than wire the core to the framework.
 */
public class HarnessInstrumentation extends Instrumentation {
    static final String TAG = "droidstar-harness";
    public static final String DEFAULT_SOCKET = "droidstar-harness";

    private String socketName = DEFAULT_SOCKET;
    private File staging;
    private String run = "default";

    @Override
    public void onCreate(Bundle arguments) {
        super.onCreate(arguments);
        if (arguments != null) {
            String s = arguments.getString("socket");
            if (s != null && s.length() > 0) {
                socketName = s;
            }
            String f = arguments.getString("staging");
            if (f != null && f.length() > 0) {
                staging = new File(f);
            }
            String r = arguments.getString("run");
            if (r != null && r.length() > 0) {
                run = r;
            }
        }
        org.droidstar.harness.core.Log.setSink(new org.droidstar.harness.core.Log.Sink() {
            @Override
            public void log(String line) {
                Log.i(TAG, line);
            }
        });
        Log.i(TAG, "starting: socket " + socketName + ", run " + run + ", staging "
                + (staging != null ? staging.getPath() : "(none)"));
        start();
    }

    @Override
    public void onStart() {
        super.onStart();
        Bundle results = new Bundle();
        int code = 0;
        LocalServerSocket server = null;
        Workspace workspace = null;
        SessionWakeLock wake = null;
        try {
            Context context = getTargetContext();
            workspace = Workspace.open(staging, context.getFilesDir(), context.getCodeCacheDir(), run);
            for (String r : workspace.removed()) {
                Log.i(TAG, "removed the earlier run's " + r);
            }
            AndroidPlatform platform = new AndroidPlatform(context, workspace);
            server = new LocalServerSocket(socketName);
            wake = new SessionWakeLock(context);
            wake.acquire();
            Log.i(TAG, "listening on localabstract:" + socketName + " (sdk " + platform.sdk() + ", "
                    + workspace.copied() + " staged files in " + workspace.files() + ")");
            Server protocol = new Server(platform);
            protocol.setLogRequests(true);
            new Connections(protocol, Process.myUid()).serve(new SocketListener(server));
            results.putString("droidstar-harness", "bye");
        } catch (Throwable t) {
            Log.e(TAG, "harness failed: " + t, t);
            results.putString("droidstar-harness", "error: " + t);
            code = 1;
        } finally {
            if (wake != null) {
                wake.release();
            }
            if (server != null) {
                try {
                    server.close();
                } catch (IOException e) {
                    Log.w(TAG, "closing the server socket: " + e);
                }
            }
            if (workspace != null && code == 0) {
                for (String f : workspace.close()) {
                    Log.w(TAG, "cannot remove " + f);
                }
            }
        }
        finish(code, results);
    }

    /** The local server socket as the core's Listener. */
    private static final class SocketListener implements Connections.Listener {
        private final LocalServerSocket server;

        SocketListener(LocalServerSocket server) {
            this.server = server;
        }

        @Override
        public Connections.Connection accept() throws IOException {
            final LocalSocket socket = server.accept();
            return new Connections.Connection() {
                @Override
                public int peerUid() {
                    try {
                        return socket.getPeerCredentials().getUid();
                    } catch (IOException e) {
                        return -1;
                    }
                }

                @Override
                public InputStream in() throws IOException {
                    return socket.getInputStream();
                }

                @Override
                public OutputStream out() throws IOException {
                    return socket.getOutputStream();
                }

                @Override
                public void close() {
                    try {
                        socket.close();
                    } catch (IOException e) {
                        Log.w(TAG, "closing a connection: " + e);
                    }
                }
            };
        }
    }
}
