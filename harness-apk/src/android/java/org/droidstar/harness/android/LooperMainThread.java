package org.droidstar.harness.android;

import android.os.Handler;
import android.os.Looper;

import org.droidstar.harness.core.PostingMainThread;

/**
 * Runs callins on the app's main looper, as an app's own code would call
 * them. Waiting for a call, with its timeout, is the core's
 * (PostingMainThread); this class only posts to the looper.
 */
final class LooperMainThread extends PostingMainThread {
    private final Handler handler = new Handler(Looper.getMainLooper());

    @Override
    protected boolean post(Runnable task) {
        // false when the looper is quitting
        return handler.post(task);
    }

    @Override
    protected boolean onMainThread() {
        return Looper.myLooper() == Looper.getMainLooper();
    }
}
