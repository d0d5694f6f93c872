package org.droidstar.harness.core;

import java.io.File;
import java.util.HashMap;
import java.util.Map;

/**
 * The objects of one query that argument literals refer to: the instance
 * under test, the listeners by declared type, the callins' results, the
 * platform's context and files directory.
 */
public final class Instances {
    final File filesDir;
    final Object context;
    Object target;
    final Map<String, Object> listeners = new HashMap<String, Object>();
    /** What each callin of the query returned last, by symbol ({"result": SYMBOL}). */
    final Map<String, Object> results = new HashMap<String, Object>();

    public Instances(File filesDir, Object context) {
        this.filesDir = filesDir;
        this.context = context;
    }

    public Object target() {
        return target;
    }

    public Object listener(String type) {
        return listeners.get(type);
    }
}
