package org.droidstar.harness.android;

import android.os.FileObserver;

import org.droidstar.harness.core.InotifyEvents;
import org.droidstar.harness.core.ShimContext;

/**
 * Shim for android.os.FileObserver(path[, mask]): reports onEvent with the
 * event's name as its detail (InotifyEvents: MODIFY, DELETE_SELF, ...), so
 * that a purpose can declare onEvent/MODIFY.
 */
public class FileObserverShim extends FileObserver {
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
        ctx.callback("onEvent", InotifyEvents.name(event), new Object[] {Integer.valueOf(event), path});
    }
}
