package org.droidstar.harness.core;

/**
 * Receives callbacks from listener proxies and shims, from any thread. The
 * generation says which query's objects fired; the buffer drops (and counts)
 * callbacks from generations other than the current one.
 */
public interface CallbackSink {
    void record(long generation, String method, String detail);
}
