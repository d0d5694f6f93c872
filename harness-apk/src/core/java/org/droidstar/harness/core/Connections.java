package org.droidstar.harness.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The harness's accept loop on a device: one Server serves one connection
 * after another, so that a host that reconnects finds the configuration it
 * sent, until a connection ends with bye.
 *
 * <p>The abstract socket namespace is open to every app on the device, so
 * only adbd (uid shell, or root on userdebug builds) and the harness's own
 * uid may talk to it; other peers are closed at once.
 */
public final class Connections {
    /** adbd's uid (AID_SHELL in AOSP system/core/libcutils/include/private/android_filesystem_config.h). */
    public static final int SHELL_UID = 2000;
    /** root (AID_ROOT): adbd after `adb root`. */
    public static final int ROOT_UID = 0;

    /** A listening socket. */
    public interface Listener {
        Connection accept() throws IOException;
    }

    /** One accepted connection. */
    public interface Connection {
        /** The peer's uid, or -1 when the platform cannot tell. */
        int peerUid();

        InputStream in() throws IOException;

        OutputStream out() throws IOException;

        void close();
    }

    private final Server server;
    private final int ownUid;

    public Connections(Server server, int ownUid) {
        this.server = server;
        this.ownUid = ownUid;
    }

    /** Whether a peer may use the harness. */
    public boolean allowed(int uid) {
        return uid == ROOT_UID || uid == SHELL_UID || uid == ownUid;
    }

    /**
     * Accepts and serves connections until one ends with bye, and returns
     * how many were accepted (refused ones included). An accept that fails
     * ends the loop with its exception.
     */
    public int serve(Listener listener) throws IOException {
        for (int n = 1;; n++) {
            Connection c = listener.accept();
            int uid = c.peerUid();
            if (!allowed(uid)) {
                Log.log("connection " + n + " from uid " + uid + " refused (only adb's shell, root or uid "
                        + ownUid + ")");
                c.close();
                continue;
            }
            Log.log("connection " + n + " accepted (uid " + uid + ")");
            boolean bye = false;
            try {
                OutputStream out = c.out();
                bye = server.serve(c.in(), out);
                out.flush();
            } catch (IOException e) {
                Log.log("connection " + n + " failed: " + e);
            } finally {
                c.close();
            }
            if (bye) {
                Log.log("bye on connection " + n + ": finishing");
                return n;
            }
            Log.log("connection " + n + " closed without bye; listening again");
        }
    }
}
