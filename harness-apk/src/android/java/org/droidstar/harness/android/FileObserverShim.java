package org.droidstar.harness.android;

import android.os.FileObserver;

import org.droidstar.harness.core.ShimContext;

/**
 * Shim for android.os.FileObserver(path[, mask]): reports onEvent with the
 * event's name as its detail (ACCESS, MODIFY, ATTRIB, CLOSE_WRITE,
 * CLOSE_NOWRITE, OPEN, MOVED_FROM, MOVED_TO, CREATE, DELETE, DELETE_SELF,
 * MOVE_SELF), so that a purpose can declare onEvent/MODIFY. Bits outside
 * FileObserver.ALL_EVENTS (inotify's IN_ISDIR and the like) are ignored; an
 * event with several bits gets its names joined with '|'; an event with no
 * known bit gets its decimal number.
 */
public class FileObserverShim extends FileObserver {
    private static final int[] BITS = {
        ACCESS, MODIFY, ATTRIB, CLOSE_WRITE, CLOSE_NOWRITE, OPEN,
        MOVED_FROM, MOVED_TO, CREATE, DELETE, DELETE_SELF, MOVE_SELF,
    };
    private static final String[] NAMES = {
        "ACCESS", "MODIFY", "ATTRIB", "CLOSE_WRITE", "CLOSE_NOWRITE", "OPEN",
        "MOVED_FROM", "MOVED_TO", "CREATE", "DELETE", "DELETE_SELF", "MOVE_SELF",
    };

    private final ShimContext ctx;

    public FileObserverShim(ShimContext ctx, String path) {
        super(path);
        this.ctx = ctx;
    }

    public FileObserverShim(ShimContext ctx, String path, int mask) {
        super(path, mask);
        this.ctx = ctx;
    }

    @Override
    public void onEvent(int event, String path) {
        ctx.callback("onEvent", eventName(event), new Object[] {Integer.valueOf(event), path});
    }

    /** The name of an inotify event mask, as described in the class comment. */
    public static String eventName(int event) {
        int known = event & ALL_EVENTS;
        StringBuilder name = new StringBuilder();
        for (int i = 0; i < BITS.length; i++) {
            if ((known & BITS[i]) != 0) {
                if (name.length() > 0) {
                    name.append('|');
                }
                name.append(NAMES[i]);
            }
        }
        return name.length() > 0 ? name.toString() : Integer.toString(event);
    }
}
