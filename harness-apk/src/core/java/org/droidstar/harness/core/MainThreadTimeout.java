package org.droidstar.harness.core;

/**
 * A call on the main thread that did not return within its timeout
 * (MainThread.call): the main thread is still in it, so the harness can run
 * nothing more on it (PROTOCOL.md, "Timeouts").
 */
public final class MainThreadTimeout extends Exception {
    private static final long serialVersionUID = 1L;

    private final long timeoutMs;

    public MainThreadTimeout(long timeoutMs) {
        super("did not return within " + timeoutMs + " ms on the main thread");
        this.timeoutMs = timeoutMs;
    }

    /** How long the caller waited. */
    public long timeoutMs() {
        return timeoutMs;
    }
}
