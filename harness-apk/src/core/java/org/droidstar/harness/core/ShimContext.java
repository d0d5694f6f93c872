package org.droidstar.harness.core;

import java.util.Map;

/**
 * Handed to every shim's constructor as its first argument: where to report
 * callbacks (tagged with the generation of the query that made the shim) and
 * the purpose's shim options.
 */
public final class ShimContext {
    private final CallbackSink sink;
    private final long generation;
    private final Map<String, String> options;

    public ShimContext(CallbackSink sink, long generation, Map<String, String> options) {
        this.sink = sink;
        this.generation = generation;
        this.options = options;
    }

    /** The generation of the query that made the shim. */
    public long generation() {
        return generation;
    }

    /** Reports a callback with no detail. Safe from any thread. */
    public void callback(String method) {
        sink.record(generation, method, null, null);
    }

    /** Reports a callback with a detail (an event name, an argument value). */
    public void callback(String method, String detail) {
        sink.record(generation, method, detail, null);
    }

    /**
     * Reports a callback with its detail and the method's arguments, in
     * order, so that the purpose's details can take the detail from an
     * argument instead (a broadcast's extra, a response's code).
     */
    public void callback(String method, String detail, Object[] args) {
        sink.record(generation, method, detail, args);
    }

    /** A shim option, or fallback when the purpose does not set it. */
    public String option(String key, String fallback) {
        String v = options.get(key);
        return v == null ? fallback : v;
    }

    /** A numeric shim option (such as sleep_ms), or fallback. */
    public long longOption(String key, long fallback) {
        String v = options.get(key);
        if (v == null) {
            return fallback;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("shim option " + key + " is not a number: " + v);
        }
    }
}
