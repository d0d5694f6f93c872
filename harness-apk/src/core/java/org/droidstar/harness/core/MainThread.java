package org.droidstar.harness.core;

import java.util.concurrent.Callable;

/**
 * Runs callins on the platform's main thread, as an app would call them, and
 * blocks the calling (runner) thread until the call returns.
 */
public interface MainThread {
    /**
     * Runs task on the main thread and returns its result. An exception the
     * task throws is rethrown as is (not wrapped), so that the runner can
     * report the callin's own exception.
     */
    <T> T call(Callable<T> task) throws Exception;
}
