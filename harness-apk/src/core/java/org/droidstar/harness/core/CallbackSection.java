package org.droidstar.harness.core;

import static org.droidstar.harness.core.PurposeFields.list;
import static org.droidstar.harness.core.PurposeFields.quoted;
import static org.droidstar.harness.core.PurposeFields.string;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The purpose's callbacks and details: the names the harness matches and
 * reports, their returns, throws and sleep_ms, and the parts of a call's
 * arguments a detail is made of. Both are checked against the methods of
 * the purpose's listeners and shims, which the target section resolved.
 */
final class CallbackSection {
    private CallbackSection() {
    }

    /**
     * The callbacks: each symbol's from names (or the symbol itself when it
     * has none) are the names the harness matches and reports.
     */
    static void readCallbacks(Configuration c, List<?> cbs) throws ProtocolError {
        if (cbs == null) {
            return;
        }
        Set<String> known = knownCallbackMethods(c);
        for (int i = 0; i < cbs.size(); i++) {
            String w = "callbacks[" + i + "]";
            if (!(cbs.get(i) instanceof Map)) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w,
                        "a callback is an object with symbol, from and error, not " + Json.typeName(cbs.get(i)));
            }
            Map<?, ?> m = (Map<?, ?>) cbs.get(i);
            String symbol = string(m, "symbol", w + ".symbol", true);
            if (symbol.isEmpty()) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w + ".symbol", "a callback symbol cannot be empty");
            }
            Object e = m.get("error");
            if (e != null && !(e instanceof Boolean) && !"environment".equals(e)) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w + ".error",
                        "\"error\" must be a boolean or \"environment\", not "
                                + (e instanceof String ? quoted((String) e) : Json.describe(e)));
            }
            List<?> from = list(m, "from", w + ".from", false);
            List<String> names = new ArrayList<String>();
            List<String> wheres = new ArrayList<String>();
            if (from == null) {
                names.add(symbol);
                wheres.add(w + ".symbol");
            } else if (from.isEmpty()) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w + ".from",
                        "from lists at least one callback name; leave it out to use the symbol");
            } else {
                for (int k = 0; k < from.size(); k++) {
                    String wk = w + ".from[" + k + "]";
                    if (!(from.get(k) instanceof String)) {
                        throw new ProtocolError(ProtocolError.BAD_REQUEST, wk,
                                "a callback name is a string, not " + Json.typeName(from.get(k)));
                    }
                    names.add((String) from.get(k));
                    wheres.add(wk);
                }
            }
            for (int k = 0; k < names.size(); k++) {
                declareCallback(c, names.get(k), Boolean.TRUE.equals(e), "environment".equals(e), wheres.get(k), known);
            }
            Configuration.Behaviour b = readBehaviour(c, m, w, names);
            if (b != null) {
                for (String n : names) {
                    c.behaviours.put(n, b);
                }
            }
        }
    }

    /**
     * A callback's returns, throws and sleep_ms: what the proxy listeners
     * do on the calls that match it (an UncaughtExceptionHandler that
     * throws, a listener whose boolean answer the class acts on). Checked
     * against the return types of the proxied methods of those names.
     */
    private static Configuration.Behaviour readBehaviour(Configuration c, Map<?, ?> m, String w, List<String> names)
            throws ProtocolError {
        boolean hasReturns = m.get("returns") != null;
        boolean hasThrows = m.get("throws") != null;
        Object sleep = m.get("sleep_ms");
        if (!hasReturns && !hasThrows && sleep == null) {
            return null;
        }
        long sleepMs = 0;
        if (sleep != null) {
            if (!(sleep instanceof Long) || ((Long) sleep).longValue() < 0) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w + ".sleep_ms",
                        "sleep_ms is a non-negative integer of milliseconds, not " + Json.describe(sleep));
            }
            sleepMs = ((Long) sleep).longValue();
        }
        if (hasReturns && hasThrows) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, w + ".throws", "give returns or throws, not both");
        }
        String field = hasReturns ? "returns" : hasThrows ? "throws" : "sleep_ms";
        List<Method> proxied = new ArrayList<Method>();
        for (String n : names) {
            int slash = n.indexOf('/');
            String method = slash < 0 ? n : n.substring(0, slash);
            boolean found = false;
            for (Configuration.ListenerSpec l : c.listeners) {
                if (!l.answers() || !method.startsWith(l.prefix())) {
                    continue;
                }
                String plain = method.substring(l.prefix().length());
                for (Method pm : l.answeredMethods()) {
                    if (pm.getName().equals(plain)) {
                        proxied.add(pm);
                        found = true;
                    }
                }
            }
            if (!found) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w + "." + field, field + " acts on proxy listeners,"
                        + " and " + method + " is no method of a listener interface or generated shim of the purpose (a"
                        + " built-in shim's methods do what the shim does)");
            }
        }
        Literal returns = null;
        Literal throwsLit = null;
        if (hasReturns) {
            returns = Literal.parse(m.get("returns"), w + ".returns", c);
            for (Method pm : proxied) {
                Class<?> rt = pm.getReturnType();
                String sig = pm.getDeclaringClass().getName() + "." + pm.getName()
                        + Invocable.simpleParams(pm.getParameterTypes(), pm.isVarArgs());
                if (rt == void.class) {
                    throw new ProtocolError(ProtocolError.BAD_ARGUMENT, w + ".returns", sig
                            + " returns nothing: there is no result to give");
                }
                if (returns.cost(rt) < 0) {
                    throw new ProtocolError(ProtocolError.BAD_ARGUMENT, w + ".returns", returns.describe()
                            + " cannot be what " + sig + " returns (a " + rt.getName() + ")");
                }
            }
        }
        if (hasThrows) {
            throwsLit = Literal.parse(m.get("throws"), w + ".throws", c);
            Class<?> t = throwsLit.staticType();
            if (t == null || !Throwable.class.isAssignableFrom(t)) {
                throw new ProtocolError(ProtocolError.BAD_ARGUMENT, w + ".throws", throwsLit.describe()
                        + " is no Throwable: throws needs one, such as {\"new\": [java.lang.IllegalStateException, \"boom\"]}");
            }
        }
        return new Configuration.Behaviour(returns, throwsLit, sleepMs);
    }

    private static void declareCallback(Configuration c, String n, boolean error, boolean environment, String where,
            Set<String> known) throws ProtocolError {
        int slash = n.indexOf('/');
        String method = slash < 0 ? n : n.substring(0, slash);
        if (method.isEmpty() || (slash >= 0 && slash == n.length() - 1)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, where,
                    "a callback name is METHOD or METHOD/DETAIL, not \"" + n + "\"");
        }
        if (!known.contains(method)) {
            throw new ProtocolError(ProtocolError.UNKNOWN_CALLBACK, where, method
                    + " is no method of any listener or shim of the purpose" + describeKnown(known));
        }
        if (!c.callbacks.add(n, error, environment)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, where, "callback " + n + " is declared twice");
        }
    }

    /**
     * The purpose's details: per callback method, the parts of a call's
     * arguments its detail is made of. Each part is checked against the
     * parameter types of the methods of that name that the purpose's
     * listeners and shims have.
     */
    static void readDetails(Configuration c, Map<?, ?> ds) throws ProtocolError {
        if (ds == null) {
            return;
        }
        for (Map.Entry<?, ?> e : ds.entrySet()) {
            String method = (String) e.getKey();
            String w = "details." + method;
            List<Method> methods = callbackMethods(c, method);
            if (methods.isEmpty()) {
                throw new ProtocolError(ProtocolError.UNKNOWN_CALLBACK, w, method
                        + " is no method of any listener or shim of the purpose" + describeKnown(knownCallbackMethods(c)));
            }
            Object v = e.getValue();
            if (!(v instanceof List) || ((List<?>) v).isEmpty()) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w,
                        "a detail is a non-empty array of parts such as {\"arg\":1,\"extra\":\"KEY\"}, not "
                                + (v instanceof List ? "an empty array" : Json.typeName(v)));
            }
            List<?> items = (List<?>) v;
            List<Callbacks.Part> parts = new ArrayList<Callbacks.Part>();
            for (int k = 0; k < items.size(); k++) {
                parts.add(detailPart(items.get(k), w + "[" + k + "]", method, methods));
            }
            c.callbacks.setDetail(method, parts);
        }
    }

    private static Callbacks.Part detailPart(Object json, String w, String method, List<Method> methods)
            throws ProtocolError {
        if (!(json instanceof Map)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, w,
                    "a detail part is an object with arg and call or extra, not " + Json.typeName(json));
        }
        Map<?, ?> m = (Map<?, ?>) json;
        for (Object k : m.keySet()) {
            if (!Configuration.PART_KEYS.contains(k)) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w + "." + k,
                        "a detail part takes arg, call and extra, not \"" + k + "\"");
            }
        }
        int arg = 0;
        Object a = m.get("arg");
        if (a != null) {
            if (!(a instanceof Long) || (Long) a < 0 || (Long) a > Integer.MAX_VALUE) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w + ".arg",
                        "\"arg\" must be a non-negative integer, not " + Json.describe(a));
            }
            arg = ((Long) a).intValue();
        }
        String call = string(m, "call", w + ".call", false);
        String extra = string(m, "extra", w + ".extra", false);
        if (call != null && extra != null) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, w + ".extra", "give call or extra, not both");
        }
        if (extra != null && extra.isEmpty()) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, w + ".extra", "an extra is a key, not an empty string");
        }
        Class<?> t = argType(methods, method, arg, w + ".arg", "");
        if (call != null) {
            Method cm = noArgMethod(t, call);
            if (cm == null || cm.getReturnType() == void.class) {
                throw new ProtocolError(ProtocolError.UNKNOWN_METHOD, w + ".call", t.getName() + " has no public method "
                        + call + "() that returns a value (argument " + arg + " of " + method + ")");
            }
            return new Callbacks.Part(arg, cm, null, null, null);
        }
        if (extra != null) {
            Method extras = noArgMethod(t, "getExtras");
            Method get = extras == null ? null : getString(extras.getReturnType());
            if (get == null) {
                extras = null;
                get = getString(t);
            }
            if (get == null) {
                throw new ProtocolError(ProtocolError.UNKNOWN_METHOD, w + ".extra", t.getName()
                        + " has neither getExtras() (an Intent's) nor get(String) (a Bundle's) to read extra " + extra
                        + " from (argument " + arg + " of " + method + ")");
            }
            return new Callbacks.Part(arg, null, extras, get, extra);
        }
        return new Callbacks.Part(arg, null, null, null, null);
    }

    /** The public method name() of t, callable by reflection, or null. */
    private static Method noArgMethod(Class<?> t, String name) {
        if (t.isPrimitive()) {
            return null;
        }
        try {
            return Invocable.accessible(t.getMethod(name), t);
        } catch (NoSuchMethodException e) {
            return null;
        } catch (LinkageError e) {
            return null;
        }
    }

    /** The public get(String) of t, callable by reflection, or null. */
    private static Method getString(Class<?> t) {
        if (t.isPrimitive()) {
            return null;
        }
        try {
            return Invocable.accessible(t.getMethod("get", String.class), t);
        } catch (NoSuchMethodException e) {
            return null;
        } catch (LinkageError e) {
            return null;
        }
    }

    /**
     * The methods called name that may report callbacks, in the order of
     * knownCallbackMethods: the target's shim, then each listener's shim or
     * interface.
     */
    private static List<Method> callbackMethods(Configuration c, String name) {
        List<Method> out = new ArrayList<Method>();
        if (c.targetShim != null) {
            addNamed(out, c.targetShim, name);
        }
        for (Configuration.ListenerSpec l : c.listeners) {
            if (!l.answers()) {
                addNamed(out, l.shim, name);
            } else {
                for (Method m : l.answeredMethods()) {
                    if (m.getName().equals(name)) {
                        out.add(m);
                    }
                }
            }
        }
        return out;
    }

    private static void addNamed(List<Method> out, Class<?> k, String name) {
        for (; k != null && k != Object.class; k = k.getSuperclass()) {
            try {
                for (Method m : k.getDeclaredMethods()) {
                    if (m.getName().equals(name) && !Modifier.isStatic(m.getModifiers()) && !m.isSynthetic()) {
                        out.add(m);
                    }
                }
            } catch (LinkageError e) {
                // a framework class whose methods cannot all be resolved: skip it
            }
        }
    }

    /**
     * The type of argument arg of the callback method as reported (NAME.METHOD
     * for a named listener's): the parameter type of the methods of that
     * name of the listeners (and shims) whose calls are reported so, which
     * must agree. The static type of a {"callback": [METHOD, N]} literal,
     * which overloads are resolved with.
     */
    static Class<?> callbackArgType(Configuration c, String method, int arg, String where) throws ProtocolError {
        List<Method> methods = new ArrayList<Method>();
        for (Configuration.ListenerSpec l : c.listeners) {
            String p = l.prefix();
            if (l.shim != null) {
                if (p.isEmpty()) {
                    addNamed(methods, l.shim, method);
                }
            } else if (method.startsWith(p)) {
                String plain = method.substring(p.length());
                for (Method m : l.type.getMethods()) {
                    if (m.getName().equals(plain) && !Modifier.isStatic(m.getModifiers())) {
                        methods.add(m);
                    }
                }
            }
        }
        if (c.targetShim != null) {
            addNamed(methods, c.targetShim, method);
        }
        if (methods.isEmpty()) {
            throw new ProtocolError(ProtocolError.UNKNOWN_CALLBACK, where + "[0]", method
                    + " is no method of any listener or shim of the purpose" + describeKnown(knownCallbackMethods(c)));
        }
        return argType(methods, method, arg, where + "[1]", ", so {\"callback\": [METHOD, N]} has no one type");
    }

    /**
     * The one type of argument arg of methods (the callback methods of one
     * name), what a detail part or a {"callback": [METHOD, N]} literal reads;
     * refused at where when a method has no such argument or the methods
     * disagree on its type (why says what that leaves without a type).
     */
    private static Class<?> argType(List<Method> methods, String method, int arg, String where, String why)
            throws ProtocolError {
        Set<Class<?>> types = new LinkedHashSet<Class<?>>();
        Set<String> signatures = new TreeSet<String>();
        for (Method m : methods) {
            Class<?>[] ps = m.getParameterTypes();
            signatures.add(m.getDeclaringClass().getName() + "." + m.getName() + Invocable.simpleParams(ps, m.isVarArgs()));
            if (arg < ps.length) {
                types.add(ps[arg]);
            }
        }
        if (types.size() != 1) {
            StringBuilder sb = new StringBuilder();
            for (String sig : signatures) {
                sb.append(sb.length() == 0 ? "" : ", ").append(sig);
            }
            throw new ProtocolError(ProtocolError.UNKNOWN_METHOD, where, types.isEmpty()
                    ? method + " has no argument " + arg + " (arguments count from 0): " + sb
                    : "the methods " + method + " of the purpose's listeners and shims differ in the type of argument "
                            + arg + why + ": " + sb);
        }
        return types.iterator().next();
    }

    /**
     * The {"callback": [METHOD, N]} literals name methods that a declared
     * callback matches: the harness drops the calls of any other, so no wait
     * would deliver one and the literal would never have a value.
     */
    static void checkCallbackUses(Configuration c) throws ProtocolError {
        for (String[] use : c.callbackUses) {
            boolean declared = false;
            for (Callbacks.Declared d : c.callbacks.all()) {
                declared |= d.method.equals(use[0]);
            }
            if (!declared) {
                throw new ProtocolError(ProtocolError.UNKNOWN_CALLBACK, use[1], "no declared callback is " + use[0]
                        + ": {\"callback\": [METHOD, N]} takes an argument of a callback a wait delivers");
            }
        }
    }

    private static String describeKnown(Set<String> known) {
        if (known.isEmpty()) {
            return " (it has no listeners and no shims)";
        }
        StringBuilder sb = new StringBuilder(" (they have ");
        int i = 0;
        for (String k : known) {
            if (i == 12) {
                sb.append(", ...");
                break;
            }
            sb.append(i == 0 ? "" : ", ").append(k);
            i++;
        }
        return sb.append(')').toString();
    }

    /**
     * The methods that may report callbacks: those of the target's shim, then
     * of each listener (its shim, or its interface), each class's names
     * sorted, since reflection lists methods in no particular order and the
     * message that lists them should not change from run to run.
     */
    private static Set<String> knownCallbackMethods(Configuration c) {
        Set<String> out = new LinkedHashSet<String>();
        if (c.targetShim != null) {
            addHierarchy(out, c.targetShim);
        }
        for (Configuration.ListenerSpec l : c.listeners) {
            if (!l.answers()) {
                addHierarchy(out, l.shim);
            } else {
                Set<String> names = new TreeSet<String>();
                for (Method m : l.answeredMethods()) {
                    names.add(l.prefix() + m.getName());
                }
                out.addAll(names);
            }
        }
        return out;
    }

    private static void addHierarchy(Set<String> out, Class<?> k) {
        for (; k != null && k != Object.class; k = k.getSuperclass()) {
            Set<String> names = new TreeSet<String>();
            try {
                for (Method m : k.getDeclaredMethods()) {
                    if (!Modifier.isStatic(m.getModifiers()) && !m.isSynthetic()) {
                        names.add(m.getName());
                    }
                }
            } catch (LinkageError e) {
                // a framework class whose methods cannot all be resolved: skip it
            }
            out.addAll(names);
        }
    }

}
