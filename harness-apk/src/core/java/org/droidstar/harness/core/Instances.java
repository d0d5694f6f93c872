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
    /**
     * The arguments of the latest call of each callback method (as
     * reported) that a wait of the query delivered ({"callback": [METHOD,
     * N]}). The runner thread writes it when a wait answers, and the main
     * thread reads it in a callin: guarded by its own lock, since the two
     * are different threads.
     */
    private final Map<String, Object[]> delivered = new HashMap<String, Object[]>();

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

    /** A wait delivered a call of method with these arguments (null when its reporter gives none). */
    void delivered(String method, Object[] args) {
        synchronized (delivered) {
            delivered.put(method, args == null ? NO_ARGS : args);
        }
    }

    private static final Object[] NO_ARGS = new Object[0];

    /**
     * The arguments of the latest delivered call of method; throws
     * NotDelivered when no wait of the query has delivered one.
     */
    Object[] deliveredArgs(String method, int arg) {
        synchronized (delivered) {
            Object[] a = delivered.get(method);
            if (a == null) {
                throw new NotDelivered(method, arg);
            }
            return a;
        }
    }

    /**
     * A {"callback": [METHOD, N]} literal used before a wait of the query
     * delivered METHOD: the callin answers err of kind no-callback
     * (PROTOCOL.md), which is the purpose's order of things, not the
     * class's exception.
     */
    static final class NotDelivered extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final String method;

        NotDelivered(String method, int arg) {
            super("needs argument " + arg + " of " + method + ", which no wait of this query has delivered");
            this.method = method;
        }
    }
}
