package org.droidstar.harness.core;

import static org.droidstar.harness.core.PurposeFields.isIdentifier;
import static org.droidstar.harness.core.PurposeFields.list;
import static org.droidstar.harness.core.PurposeFields.map;
import static org.droidstar.harness.core.PurposeFields.quoted;
import static org.droidstar.harness.core.PurposeFields.string;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The purpose's class and target: the class under test and its shim, the
 * listeners, how the reset makes the instance (new, a factory, or a callin
 * with result: target), init and dispose. The target's fields are
 * type-checked with the purpose's others, before the jars load (the
 * constructor); what they name is resolved once the adapters are in
 * (resolve).
 */
final class TargetSection {
    private final Object newJson;
    private final Map<?, ?> factoryJson;
    private final Map<?, ?> shimJson;
    private final List<?> listenerList;
    private final List<?> initList;
    private final Map<?, ?> disposeJson;

    /** Checks the types of the target's fields; target is null when the purpose has none. */
    TargetSection(Map<?, ?> target) throws ProtocolError {
        if (target == null) {
            target = Collections.emptyMap();
        }
        for (Object k : target.keySet()) {
            if (!Configuration.TARGET_KEYS.contains(k)) {
                Log.log("configure: ignoring the unknown target field \"" + k + "\"");
            }
        }
        newJson = target.get("new");
        if (newJson != null && !(newJson instanceof List)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, "target.new",
                    "\"new\" must be an array, not " + Json.typeName(newJson));
        }
        factoryJson = map(target, "factory", "target.factory", false);
        shimJson = map(target, "shim", "target.shim", false);
        listenerList = list(target, "listeners", "target.listeners", false);
        initList = list(target, "init", "target.init", false);
        disposeJson = map(target, "dispose", "target.dispose", false);
    }

    /**
     * Resolves the class, the target and the listeners into c; callinList
     * tells whether a callin makes the instance.
     */
    void resolve(Configuration c, String className, List<?> callinList) throws ProtocolError {
        c.targetClass = c.loadClass(className, "class");
        Class<?> shim = c.registry.lookup(c.targetClass.getName());
        if (shim == null && !className.equals(c.targetClass.getName())) {
            shim = c.registry.lookup(className);
        }
        c.targetShim = shim;

        readShimOptions(c, shimJson);
        readListeners(c, listenerList);

        // the instance: factory, shim constructor or constructor, or none
        // when a callin makes it
        if (newJson != null && factoryJson != null) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, "target.factory", "give new or factory, not both");
        }
        if (newJson == null && factoryJson == null) {
            c.madeBy = CallinSection.instanceMaker(callinList);
        }
        if (c.madeBy != null) {
            // no instance at the reset: callins before the maker act on null
        } else if (factoryJson != null) {
            readFactory(c, factoryJson);
        } else {
            List<Literal> args = PurposeFields.args(newJson, "target.new", c);
            String owner = "class " + c.targetClass.getName();
            if (c.targetShim != null) {
                if (!c.targetClass.isAssignableFrom(c.targetShim)) {
                    throw new ProtocolError(ProtocolError.INTERNAL, "class",
                            "the shim " + c.targetShim.getName() + " is no " + c.targetClass.getName());
                }
                c.constructor = Invocable.choose(Invocable.constructors(c.targetShim, true), args,
                        "the shim of " + c.targetClass.getName(), "new " + c.targetClass.getName(), "target.new");
            } else {
                int mod = c.targetClass.getModifiers();
                if (c.targetClass.isInterface() || Modifier.isAbstract(mod)) {
                    throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, "class", c.targetClass.getName() + " is "
                            + (c.targetClass.isInterface() ? "an interface" : "abstract")
                            + " and has no shim: give a factory, or a shim in an adapter");
                }
                c.constructor = Invocable.choose(Invocable.constructors(c.targetClass, false), args, owner,
                        "new " + c.targetClass.getName(), "target.new");
            }
        }
        if (c.targetShim != null) {
            c.addShim(c.targetClass.getName());
        }
        c.targetAllowed = true;

        readRegistrations(c);
        if (initList != null) {
            if (c.madeBy != null && !initList.isEmpty()) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, "target.init[0]",
                        "no instance exists at the reset to call init on: " + c.madeBy + " makes it (result: target)");
            }
            for (int i = 0; i < initList.size(); i++) {
                c.init.add(call(c, initList.get(i), "target.init[" + i + "]"));
            }
        }
        // dispose and the callins run after the query's waits
        c.callbacksAllowed = true;
        if (disposeJson != null) {
            c.dispose = call(c, disposeJson, "target.dispose");
        }
    }

    private static void readShimOptions(Configuration c, Map<?, ?> m) throws ProtocolError {
        if (m == null) {
            return;
        }
        for (Map.Entry<?, ?> e : m.entrySet()) {
            Object v = e.getValue();
            if (v instanceof String) {
                c.shimOptions.put((String) e.getKey(), (String) v);
            } else if (v instanceof Number || v instanceof Boolean) {
                c.shimOptions.put((String) e.getKey(), String.valueOf(v));
            } else {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, "target.shim." + e.getKey(),
                        "a shim option is a string, a number or a boolean, not " + Json.typeName(v));
            }
        }
    }

    private static void readListeners(Configuration c, List<?> ls) throws ProtocolError {
        if (ls == null) {
            return;
        }
        for (int i = 0; i < ls.size(); i++) {
            String w = "target.listeners[" + i + "]";
            if (!(ls.get(i) instanceof Map)) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w,
                        "a listener is an object with type and register, not " + Json.typeName(ls.get(i)));
            }
            Map<?, ?> l = (Map<?, ?>) ls.get(i);
            String typeName = string(l, "type", w + ".type", true);
            String register = string(l, "register", w + ".register", false);
            String name = string(l, "name", w + ".name", false);
            if (name != null && !isIdentifier(name)) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w + ".name",
                        "a listener name is a Java identifier such as second, not " + quoted(name));
            }
            if (name != null && c.listener(name) != null) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w + ".name", "listener " + name + " is declared twice");
            }
            if (name == null && c.listener(typeName) != null) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w + ".type", "listener type " + typeName
                        + " is declared twice: give each listener of a type a name (name: NAME) to tell them apart");
            }
            Class<?> type = c.loadClass(typeName, w + ".type");
            Class<?> shim = c.registry.lookup(type.getName());
            if (shim == null) {
                shim = c.registry.lookup(typeName);
            }
            if (shim != null && name != null && !ShimContext.Answering.class.isAssignableFrom(shim)) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w + ".name", "only proxied interfaces have names:"
                        + " the shim of " + type.getName() + " reports its calls under their own names");
            }
            if (shim != null) {
                Invocable.Choice ctor = Invocable.choose(Invocable.constructors(shim, true),
                        new ArrayList<Literal>(), "the shim of " + type.getName(), "new " + type.getName(), w + ".type");
                c.listeners.add(new Configuration.ListenerSpec(typeName, type, shim, ctor, register, name));
                c.addShim(type.getName());
            } else if (type.isInterface()) {
                c.listeners.add(new Configuration.ListenerSpec(typeName, type, null, null, register, name));
            } else {
                throw new ProtocolError(ProtocolError.UNKNOWN_LISTENER, w + ".type", type.getName()
                        + " is neither an interface nor a class with a shim");
            }
        }
    }

    /** The register calls, once the instance's class is known. */
    private static void readRegistrations(Configuration c) throws ProtocolError {
        for (int i = 0; i < c.listeners.size(); i++) {
            Configuration.ListenerSpec l = c.listeners.get(i);
            if (l.registerName == null) {
                continue;
            }
            String w = "target.listeners[" + i + "].register";
            if (c.madeBy != null) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w,
                        "no instance exists at the reset to register the listener on: " + c.madeBy
                                + " makes it (result: target); pass the listener to a callin as an argument instead");
            }
            List<Invocable> candidates = new ArrayList<Invocable>();
            for (Invocable inv : Invocable.methods(c.targetLookup(), l.registerName, false)) {
                if (inv.params.length == 1) {
                    candidates.add(inv);
                }
            }
            if (candidates.isEmpty()) {
                throw new ProtocolError(ProtocolError.UNKNOWN_METHOD, w, "class " + c.targetClass.getName()
                        + " has no method " + l.registerName + " with one parameter");
            }
            List<Literal> args = new ArrayList<Literal>();
            args.add(new InstanceLiterals.ListenerLit(w, l.key(), l.lookup()));
            boolean fits = false;
            for (Invocable inv : candidates) {
                fits |= Invocable.fit(inv, args) != null;
            }
            if (!fits) {
                throw new ProtocolError(ProtocolError.UNKNOWN_LISTENER, w, c.targetClass.getName() + "."
                        + l.registerName + " takes no " + l.type.getName());
            }
            l.register = Invocable.choose(candidates, args, "class " + c.targetClass.getName(), l.registerName, w);
        }
    }

    private static void readFactory(Configuration c, Map<?, ?> f) throws ProtocolError {
        String cls = string(f, "class", "target.factory.class", false);
        String method = string(f, "method", "target.factory.method", true);
        Class<?> k = cls == null ? c.targetClass : c.loadClass(cls, "target.factory.class");
        List<Literal> args = PurposeFields.args(f.get("args"), "target.factory.args", c);
        c.factory = Invocable.choose(Invocable.methods(k, method, true), args, "class " + k.getName(), method,
                "target.factory.method");
        Method m = ((Invocable.MethodInv) c.factory.inv).method;
        if (m.getReturnType().isPrimitive()) {
            throw new ProtocolError(ProtocolError.UNKNOWN_METHOD, "target.factory.method",
                    c.factory.describe() + " returns a " + m.getReturnType() + ", not an instance");
        }
    }

    /** A call on the instance: {"call":M,"args":[...]}. */
    private static Configuration.Call call(Configuration c, Object json, String where) throws ProtocolError {
        if (!(json instanceof Map)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, where,
                    "a call is an object with call and args, not " + Json.typeName(json));
        }
        Map<?, ?> m = (Map<?, ?>) json;
        String method = string(m, "call", where + ".call", true);
        List<Literal> args = PurposeFields.args(m.get("args"), where + ".args", c);
        return new Configuration.Call(null, Invocable.choose(Invocable.methods(c.targetLookup(), method, false), args,
                "class " + c.targetClass.getName(), method, where + ".call"));
    }
}
