package org.droidstar.harness.android;

import android.os.Handler;
import android.os.Looper;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import org.droidstar.harness.core.MainThread;

/**
 * Runs callins on the app's main looper, as an app's own code would call
 * them, and blocks the runner thread until the call returns. The task's
 * exception is rethrown as is (not wrapped), so that the runner reports the
 * callin's own exception.
 */
final class LooperMainThread implements MainThread {
    private final Handler handler = new Handler(Looper.getMainLooper());

    @Override
    @SuppressWarnings("unchecked")
    public <T> T call(final Callable<T> task) throws Exception {
        if (Looper.myLooper() == Looper.getMainLooper()) {
            return task.call();
        }
        final Object[] result = new Object[1];
        final Throwable[] failure = new Throwable[1];
        final CountDownLatch done = new CountDownLatch(1);
        boolean posted = handler.post(new Runnable() {
            @Override
            public void run() {
                try {
                    result[0] = task.call();
                } catch (Throwable t) {
                    failure[0] = t;
                } finally {
                    done.countDown();
                }
            }
        });
        if (!posted) {
            throw new IllegalStateException("the main looper is quitting");
        }
        done.await();
        Throwable t = failure[0];
        if (t == null) {
            return (T) result[0];
        }
        if (t instanceof Exception) {
            throw (Exception) t;
        }
        if (t instanceof Error) {
            throw (Error) t;
        }
        throw new RuntimeException(t);
    }
}
