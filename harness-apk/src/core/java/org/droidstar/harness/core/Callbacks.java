package org.droidstar.harness.core;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The callbacks a purpose declares, and how a reported call (method and
 * detail) matches them: a declared method/DETAIL matches only calls with that
 * detail and wins over a plain method name, which matches every call of the
 * method. The purpose's details say, per method, which parts of a call's
 * arguments make its detail instead of the one the proxy or shim gives.
 */
public final class Callbacks {
    /** One declared callback. */
    public static final class Declared {
        public final String name;
        public final String method;
        /** null for a plain method name. */
        public final String detail;
        public final boolean error;
        /** An environment callback: the environment failed, the query has no answer. */
        public final boolean environment;

        Declared(String name, boolean error, boolean environment) {
            this.name = name;
            this.error = error;
            this.environment = environment;
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

    /**
     * One part of a detail: argument arg of the call, or what the argument's
     * method call returns, or the argument's extra (through getExtras(), an
     * Intent's, then get(String), a Bundle's). The methods were looked up on
     * the parameter's type when the purpose was configured.
     */
    static final class Part {
        final int arg;
        /** The no-argument method whose result is the part, or null. */
        final Method call;
        /** getExtras() of the argument, or null when the argument itself has get(String). */
        final Method extras;
        /** get(String) of the extras (or of the argument), or null when the part has no extra. */
        final Method get;
        final String extra;

        Part(int arg, Method call, Method extras, Method get, String extra) {
            this.arg = arg;
            this.call = call;
            this.extras = extras;
            this.get = get;
            this.extra = extra;
        }

        /** The part's value, or null when it has none (a null argument, a missing extra). */
        Object value(Object[] args) throws Exception {
            if (args == null || arg >= args.length) {
                return null;
            }
            Object v = args[arg];
            if (v == null) {
                return null;
            }
            if (call != null) {
                return Invocable.unwrap(call, v, new Object[0]);
            }
            if (get != null) {
                Object holder = extras == null ? v : Invocable.unwrap(extras, v, new Object[0]);
                return holder == null ? null : Invocable.unwrap(get, holder, new Object[] {extra});
            }
            return v;
        }
    }

    private final List<Declared> all = new ArrayList<Declared>();
    private final Map<String, Declared> plain = new HashMap<String, Declared>();
    private final Map<String, Declared> detailed = new HashMap<String, Declared>();
    private final Map<String, List<Part>> details = new HashMap<String, List<Part>>();
    /** The methods some METHOD/DETAIL is declared of. */
    private final java.util.Set<String> split = new java.util.HashSet<String>();

    /** Adds a declared callback; false when the name is already declared. */
    public boolean add(String name, boolean error) {
        return add(name, error, false);
    }

    /** Adds a declared callback, maybe an environment one; false when the name is already declared. */
    public boolean add(String name, boolean error, boolean environment) {
        Declared d = new Declared(name, error, environment);
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
            split.add(d.method);
        }
        all.add(d);
        return true;
    }

    /** Takes the detail of method's calls from these parts of their arguments. */
    void setDetail(String method, List<Part> parts) {
        details.put(method, parts);
    }

    /**
     * The detail of a call: the purpose's parts for its method, joined with
     * '/' and leaving out parts that have no value (null when none has
     * one), or else the reporter's own detail. A part that cannot be read
     * (the argument's method throws) counts as having no value, and is
     * logged.
     */
    public String detail(String method, String reported, Object[] args) {
        List<Part> parts = details.get(method);
        int dot = method.lastIndexOf('.');
        if (parts == null && dot >= 0) {
            // a named listener's NAME.METHOD takes the details of METHOD
            parts = details.get(method.substring(dot + 1));
        }
        if (parts == null) {
            return reported;
        }
        StringBuilder sb = new StringBuilder();
        for (Part p : parts) {
            Object v;
            try {
                v = p.value(args);
            } catch (Throwable t) {
                Log.log("the detail of " + method + ": argument " + p.arg + " could not be read: " + t);
                v = null;
            }
            if (v == null) {
                continue;
            }
            if (sb.length() > 0) {
                sb.append('/');
            }
            sb.append(ListenerProxy.detailOf(v));
        }
        return sb.length() == 0 ? null : sb.toString();
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

    /**
     * Whether the purpose declares some METHOD/DETAIL of method: then the
     * detail of a call that matches nothing says which one is undeclared
     * (SpeechRecognizer's onError/12); of a method declared nowhere it
     * would only split one omission into many (onRmsChanged's levels).
     */
    public boolean splitsByDetail(String method) {
        return split.contains(method);
    }

    public List<Declared> all() {
        return Collections.unmodifiableList(all);
    }
}
