package org.droidstar.harness.core;

import java.lang.reflect.Method;
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
    /** The purpose's answers (returns, throws, sleep_ms); null: false, zero or null. */
    private final ListenerProxy.Answers answers;
    /** "NAME." for a named listener, whose calls answer() reports as NAME.METHOD; else empty. */
    private final String prefix;

    /**
     * A shim whose callback methods report and answer through
     * {@link ShimContext#answer}, as a proxy's do (the shims droidstar
     * generates for abstract listener classes): like a proxied interface,
     * it may have a name, and the purpose's returns, throws and sleep_ms
     * act on its calls. Its declared methods are the callbacks it reports.
     */
    public interface Answering {
    }

    public ShimContext(CallbackSink sink, long generation, Map<String, String> options) {
        this(sink, generation, options, null, "");
    }

    /** As above, with the purpose's answers and the listener's prefix, for answer(). */
    public ShimContext(CallbackSink sink, long generation, Map<String, String> options, ListenerProxy.Answers answers,
            String prefix) {
        this.sink = sink;
        this.generation = generation;
        this.options = options;
        this.answers = answers;
        this.prefix = prefix == null ? "" : prefix;
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

    /**
     * Reports a call of the shim's method m (named method) and answers it
     * exactly as a proxy listener would (ListenerProxy.report): the same
     * report, then the purpose's returns, throws or sleep_ms, else false,
     * zero or null. The caller rethrows what this throws as the method
     * declares it (a checked exception it does not declare wrapped in an
     * UndeclaredThrowableException, as a proxy's is).
     */
    public Object answer(String method, Method m, Object[] args) throws Throwable {
        return ListenerProxy.report(sink, generation, answers, prefix + method, m, args);
    }

    /**
     * The method of k called name with exactly params, for a generated
     * shim's static fields (the Method that answer() takes).
     */
    public static Method method(Class<?> k, String name, Class<?>... params) {
        try {
            return k.getDeclaredMethod(name, params);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(k.getName() + " has no method " + name + ": " + e.getMessage(), e);
        }
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
