package org.droidstar.harness.core;

import java.util.concurrent.Callable;

/**
 * Runs callins on the platform's main thread, as an app would call them, and
 * blocks the calling (runner) thread until the call returns, or until a
 * timeout: a call that blocks the main thread must not hang the harness
 * (PROTOCOL.md, "Timeouts"). PostingMainThread is the implementation; a
 * platform only says how to post to its main thread.
 */
public interface MainThread {
    /**
     * Runs task on the main thread and returns its result. An exception the
     * task throws is rethrown as is (not wrapped), so that the runner can
     * report the callin's own exception. When the task has not returned
     * after timeoutMs, throws MainThreadTimeout; the task may still be
     * running, and the main thread is then lost to the harness.
     */
    <T> T call(Callable<T> task, long timeoutMs) throws Exception;
}
