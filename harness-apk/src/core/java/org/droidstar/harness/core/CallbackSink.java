package org.droidstar.harness.core;

/**
 * Receives callbacks from listener proxies and shims, from any thread. The
 * generation says which query's objects fired; the buffer drops (and counts)
 * callbacks from generations other than the current one. detail is the
 * reporter's own (a proxy's first argument, the event a shim names); args
 * are the call's arguments (null when the reporter does not give them), from
 * which the purpose's details may take another.
 */
public interface CallbackSink {
    void record(long generation, String method, String detail, Object[] args);
}
