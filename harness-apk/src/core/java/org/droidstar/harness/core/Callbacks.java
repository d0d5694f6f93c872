package org.droidstar.harness.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The callbacks a purpose declares, and how a reported call (method and
 * detail) matches them: a declared method/DETAIL matches only calls with that
 * detail and wins over a plain method name, which matches every call of the
 * method.
 */
public final class Callbacks {
    /** One declared callback. */
    public static final class Declared {
        public final String name;
        public final String method;
        /** null for a plain method name. */
        public final String detail;
        public final boolean error;

        Declared(String name, boolean error) {
            this.name = name;
            this.error = error;
            int slash = name.indexOf('/');
            if (slash < 0) {
                this.method = name;
                this.detail = null;
            } else {
                this.method = name.substring(0, slash);
                this.detail = name.substring(slash + 1);
            }
        }
    }

    private final List<Declared> all = new ArrayList<Declared>();
    private final Map<String, Declared> plain = new HashMap<String, Declared>();
    private final Map<String, Declared> detailed = new HashMap<String, Declared>();

    /** Adds a declared callback; false when the name is already declared. */
    public boolean add(String name, boolean error) {
        Declared d = new Declared(name, error);
        if (d.detail == null) {
            if (plain.containsKey(d.method)) {
                return false;
            }
            plain.put(d.method, d);
        } else {
            String key = d.method + "/" + d.detail;
            if (detailed.containsKey(key)) {
                return false;
            }
            detailed.put(key, d);
        }
        all.add(d);
        return true;
    }

    /** The declared callback a call matches, or null when it matches none. */
    public Declared match(String method, String detail) {
        if (detail != null) {
            Declared d = detailed.get(method + "/" + detail);
            if (d != null) {
                return d;
            }
        }
        return plain.get(method);
    }

    public List<Declared> all() {
        return Collections.unmodifiableList(all);
    }
}
