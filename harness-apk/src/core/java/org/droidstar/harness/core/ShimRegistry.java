package org.droidstar.harness.core;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Maps framework classes (usually abstract, such as android.os.AsyncTask or
 * java.util.TimerTask) to shim subclasses that report their callbacks.
 *
 * A shim class extends or implements the framework class and has public
 * constructors whose first parameter is a {@link ShimContext}; the rest are
 * the framework class's own constructor parameters, filled from the
 * purpose's arguments. Its overridden callback methods call
 * {@link ShimContext#callback}.
 */
public final class ShimRegistry {
    private final Map<String, Class<?>> shims = new LinkedHashMap<String, Class<?>>();

    public void register(String frameworkClass, Class<?> shimClass) {
        shims.put(frameworkClass, shimClass);
    }

    /** The shim class for a framework class name, or null. */
    public Class<?> lookup(String frameworkClass) {
        return shims.get(frameworkClass);
    }

    public Iterable<String> classes() {
        return shims.keySet();
    }
}
