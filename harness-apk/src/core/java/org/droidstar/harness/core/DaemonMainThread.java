package org.droidstar.harness.core;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;

/**
 * A main thread for platforms without a framework looper (the host JVM,
 * the tests): one daemon thread that runs the posted calls in order, as a
 * looper would. A daemon, so that a callin blocked on it for good does not
 * keep the JVM from exiting.
 */
public final class DaemonMainThread extends PostingMainThread {
    private final ExecutorService executor;
    private volatile Thread thread;

    /** @param name the thread's name, which stack traces and the tests see */
    public DaemonMainThread(final String name) {
        executor = Executors.newSingleThreadExecutor(new ThreadFactory() {
            @Override
            public Thread newThread(Runnable r) {
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                thread = t;
                return t;
            }
        });
    }

    @Override
    protected boolean post(Runnable task) {
        try {
            executor.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    @Override
    protected boolean onMainThread() {
        return Thread.currentThread() == thread;
    }

    /** Stops the thread; calls posted after this fail (the platform is done). */
    public void shutdown() {
        executor.shutdownNow();
    }
}
