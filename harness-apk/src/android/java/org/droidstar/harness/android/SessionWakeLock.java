package org.droidstar.harness.android;

import android.content.Context;
import android.os.PowerManager;
import android.util.Log;

/**
 * A partial wake lock held while the harness serves: a phone left alone
 * for a run of minutes or hours would otherwise suspend its CPU, and a
 * suspended CPU delivers callbacks late or never, which looks like
 * non-determinism. The screen may still go off; the host keeps it on with
 * svc power stayon (--keep-awake). WAKE_LOCK is a normal permission,
 * granted at install.
 */
final class SessionWakeLock {
    /** "app:what", the form PowerManager's documentation asks for. */
    private static final String TAG = "droidstar:session";

    private final PowerManager.WakeLock lock;

    SessionWakeLock(Context context) {
        PowerManager power = (PowerManager) context.getSystemService(Context.POWER_SERVICE);
        lock = power.newWakeLock(PowerManager.PARTIAL_WAKE_LOCK, TAG);
        // One acquire, one release, whatever happened in between.
        lock.setReferenceCounted(false);
    }

    void acquire() {
        lock.acquire();
        Log.i(HarnessInstrumentation.TAG, "holding a partial wake lock for the session");
    }

    void release() {
        if (lock.isHeld()) {
            lock.release();
            Log.i(HarnessInstrumentation.TAG, "released the wake lock");
        }
    }
}
