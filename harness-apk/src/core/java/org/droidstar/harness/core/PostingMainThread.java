package org.droidstar.harness.core;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A MainThread that posts each call to the platform's main thread (the main
 * looper's Handler on Android, a single-thread executor on the JVM) and
 * waits for it at most its timeout. The waiting lives here, in the core, so
 * that every platform waits alike and the JUnit tests cover it; a platform
 * says only how to post a task and which thread is the main one.
 */
public abstract class PostingMainThread implements MainThread {
    /** Posts task to run on the main thread; false when it takes no more tasks. */
    protected abstract boolean post(Runnable task);

    /** Whether the calling thread is the main thread itself. */
    protected abstract boolean onMainThread();

    @Override
    @SuppressWarnings("unchecked")
    public final <T> T call(final Callable<T> task, long timeoutMs) throws Exception {
        if (onMainThread()) {
            // waiting for itself would never end
            return task.call();
        }
        final Object[] result = new Object[1];
        final Throwable[] failure = new Throwable[1];
        final CountDownLatch done = new CountDownLatch(1);
        boolean posted = post(new Runnable() {
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
            throw new IllegalStateException("the main thread takes no more tasks");
        }
        if (!done.await(timeoutMs, TimeUnit.MILLISECONDS)) {
            throw new MainThreadTimeout(timeoutMs);
        }
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
