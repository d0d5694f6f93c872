package org.droidstar.harness.core;

import static org.droidstar.harness.core.PurposeFields.list;
import static org.droidstar.harness.core.PurposeFields.map;
import static org.droidstar.harness.core.PurposeFields.string;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A purpose of a configure request, resolved: classes loaded, constructors
 * and methods chosen, listener types checked, literals converted,
 * environment actions checked. Everything that can be wrong with a purpose
 * fails here, once, with the path of the field at fault.
 *
 * <p>The order of resolution stays here, in read, in one place, since
 * PROTOCOL.md fixes which complaint comes first; how each section of the
 * purpose is resolved lives in a file of its own (AdapterSection,
 * TargetSection, CallinSection, CallbackSection, TimeoutSection), which
 * fills in this object.
 */
public final class Configuration implements Literal.Scope {
    /** A listener made fresh for every query. */
    static final class ListenerSpec {
        final String typeName;
        final Class<?> type;
        /** The shim class, or null for a proxied interface. */
        final Class<?> shim;
        final Invocable.Choice shimConstructor;
        /** The name of the instance's method that takes the listener, or null. */
        final String registerName;
        /** The register call on the instance, or null. */
        Invocable.Choice register;
        /** The listener's name, which tells it from others of its type; null when it has none. */
        final String name;

        ListenerSpec(String typeName, Class<?> type, Class<?> shim, Invocable.Choice shimConstructor,
                String registerName, String name) {
            this.registerName = registerName;
            this.name = name;
            this.typeName = typeName;
            this.type = type;
            this.shim = shim;
            this.shimConstructor = shimConstructor;
        }

        /** The class methods on the listener are looked up on. */
        Class<?> lookup() {
            return shim != null ? shim : type;
        }

        /**
         * Whether its calls are reported and answered as a proxy's: a
         * proxied interface, or a shim that answers through
         * ShimContext.answer (ShimContext.Answering).
         */
        boolean answers() {
            return shim == null || ShimContext.Answering.class.isAssignableFrom(shim);
        }

        /**
         * The methods whose calls it reports as a proxy does (none for a
         * shim that does not answer as one): an interface's public
         * instance methods; an answering shim's own methods, each as the
         * listener type declares it (so messages name the type's
         * signature, not the shim's).
         */
        List<Method> answeredMethods() {
            List<Method> out = new ArrayList<Method>();
            if (shim == null) {
                for (Method m : type.getMethods()) {
                    if (!java.lang.reflect.Modifier.isStatic(m.getModifiers())) {
                        out.add(m);
                    }
                }
            } else if (answers()) {
                for (Method m : shim.getDeclaredMethods()) {
                    if (!java.lang.reflect.Modifier.isStatic(m.getModifiers()) && !m.isSynthetic()) {
                        out.add(declared(type, m));
                    }
                }
            }
            return out;
        }

        /** The method of type (or a supertype) that m overrides, else m. */
        private static Method declared(Class<?> type, Method m) {
            for (Class<?> k = type; k != null; k = k.getSuperclass()) {
                try {
                    return k.getDeclaredMethod(m.getName(), m.getParameterTypes());
                } catch (NoSuchMethodException e) {
                    // declared higher up
                }
            }
            try {
                return type.getMethod(m.getName(), m.getParameterTypes());
            } catch (NoSuchMethodException e) {
                return m;
            }
        }

        /** What {"listener": ...} calls it: its name, else its type as written. */
        String key() {
            return name != null ? name : typeName;
        }

        /** What its calls' method names are prefixed with: "NAME." for a named listener. */
        String prefix() {
            return name != null ? name + "." : "";
        }
    }

    /** A method call on a receiver (the instance, or the value of an "on" literal). */
    static final class Call {
        /** null: the instance under test. */
        final Literal on;
        final Invocable.Choice choice;

        Call(Literal on, Invocable.Choice choice) {
            this.on = on;
            this.choice = choice;
        }

        Object run(Instances q) throws Exception {
            Object receiver = on == null ? q.target() : on.value(Object.class, q);
            if (receiver == null) {
                throw new NullPointerException("the receiver " + (on == null ? "(the instance)" : on.describe())
                        + " of " + choice.describe() + " is null");
            }
            return choice.call(receiver, null, q);
        }
    }

    /**
     * A callin symbol: environment actions, then a call (or none), whose
     * result may become the instance under test (result: target) or count as
     * err (error_if).
     */
    static final class Callin {
        final String symbol;
        final List<EnvAction> actions;
        final Call call;
        final boolean makesTarget;
        /** The result that counts as err, or null. */
        final Literal errorIf;
        /** errorIf as the request wrote it, for the err object. */
        final Object errorIfJson;

        Callin(String symbol, List<EnvAction> actions, Call call, boolean makesTarget, Literal errorIf,
                Object errorIfJson) {
            this.symbol = symbol;
            this.actions = actions;
            this.call = call;
            this.makesTarget = makesTarget;
            this.errorIf = errorIf;
            this.errorIfJson = errorIfJson;
        }

        /** Whether result is the one error_if counts as err. */
        boolean isError(Object result, Instances q) throws Exception {
            if (errorIf == null) {
                return false;
            }
            Object want = errorIf.value(call.choice.returnType(), q);
            return want == null ? result == null : want.equals(result);
        }
    }

    /**
     * What a proxy listener does when a call matches a declared callback
     * with returns, throws or sleep_ms: it sleeps, then throws or returns.
     */
    static final class Behaviour {
        /** The value returned, or null for false, zero or null. */
        final Literal returns;
        /** The Throwable thrown, or null. */
        final Literal throwsLit;
        final long sleepMs;

        Behaviour(Literal returns, Literal throwsLit, long sleepMs) {
            this.returns = returns;
            this.throwsLit = throwsLit;
            this.sleepMs = sleepMs;
        }
    }

    final Platform platform;
    String name;
    ClassLoader loader;
    ShimRegistry registry;
    Class<?> targetClass;
    Class<?> targetShim;
    /** Static factory, or null. */
    Invocable.Choice factory;
    /** Constructor (the shim's when targetShim is set), used when factory is null. */
    Invocable.Choice constructor;
    Map<String, String> shimOptions = new LinkedHashMap<String, String>();
    final List<ListenerSpec> listeners = new ArrayList<ListenerSpec>();
    final List<Call> init = new ArrayList<Call>();
    Call dispose;
    final List<EnvAction> setup = new ArrayList<EnvAction>();
    final Map<String, Callin> callins = new LinkedHashMap<String, Callin>();
    final Callbacks callbacks = new Callbacks();
    /** The behaviour of proxy calls, by the declared callback name they match. */
    final Map<String, Behaviour> behaviours = new HashMap<String, Behaviour>();
    final List<String> shims = new ArrayList<String>();
    long quiescenceMs;
    long settleMs;
    long postResetMs;
    /** Whether a {"target": true} literal may stand here: once the target is resolved. */
    boolean targetAllowed;
    /**
     * Whether a {"callback": ...} literal may stand here: in dispose and the
     * callins, which run after waits; not at the reset nor in a callback's
     * behaviour.
     */
    boolean callbacksAllowed;
    /** The {"callback": ...} literals read: method and where, checked once the callbacks are. */
    final List<String[]> callbackUses = new ArrayList<String[]>();
    /**
     * "callins[K] (SYMBOL)", the first callin whose result becomes the
     * instance, when neither new nor factory makes one at the reset: then a
     * query starts without an instance. null when the reset makes one.
     */
    String madeBy;
    /** Set by {@link #resolve}: nothing of the purpose may run. */
    private boolean resolveOnly;
    /** The context's type when resolving (there is no context object then). */
    private Class<?> resolveContext;

    private Configuration(Platform platform) {
        this.platform = platform;
    }

    public String name() {
        return name;
    }

    public List<String> callinSymbols() {
        return new ArrayList<String>(callins.keySet());
    }

    public List<String> callbackNames() {
        List<String> out = new ArrayList<String>();
        for (Callbacks.Declared d : callbacks.all()) {
            out.add(d.name);
        }
        return out;
    }

    /** The framework classes of this purpose that shims stand in for. */
    public List<String> shims() {
        return Collections.unmodifiableList(shims);
    }

    // ---------------------------------------------------------------- Literal.Scope

    @Override
    public Class<?> loadClass(String className, String where) throws ProtocolError {
        if (className.isEmpty()) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, where, "a class name cannot be empty");
        }
        Throwable[] cause = new Throwable[1];
        Class<?> k = ClassNames.load(className, loader, cause);
        if (k != null) {
            return k;
        }
        throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, where, "cannot load class " + className
                + (cause[0] != null ? " (" + cause[0] + ")" : ""));
    }

    @Override
    public Class<?> listenerType(String key) {
        ListenerSpec l = listener(key);
        return l == null ? null : l.lookup();
    }

    /** The listener {"listener": key} names, or null. */
    ListenerSpec listener(String key) {
        for (ListenerSpec l : listeners) {
            if (l.key().equals(key)) {
                return l;
            }
        }
        return null;
    }

    @Override
    public Class<?> targetType() {
        return targetAllowed ? targetLookup() : null;
    }

    @Override
    public Class<?> contextType() {
        if (resolveOnly) {
            return resolveContext;
        }
        Object c = platform.context();
        return c == null ? null : c.getClass();
    }

    @Override
    public Class<?> resultType(String symbol, String where) throws ProtocolError {
        Callin c = callins.get(symbol);
        if (c == null) {
            throw new ProtocolError(ProtocolError.BAD_ARGUMENT, where, "no callin " + symbol
                    + " is declared before this literal: {\"result\": SYMBOL} names an earlier callin");
        }
        if (c.call == null || c.call.choice.returnType() == void.class) {
            throw new ProtocolError(ProtocolError.BAD_ARGUMENT, where, "callin " + symbol + " returns nothing"
                    + (c.call == null ? " (it calls no method)" : " (" + c.call.choice.describe() + " is void)")
                    + ": {\"result\": SYMBOL} needs a callin whose call returns a value");
        }
        return c.call.choice.returnType();
    }

    @Override
    public Class<?> callbackArgType(String method, int arg, String where) throws ProtocolError {
        if (!callbacksAllowed) {
            throw new ProtocolError(ProtocolError.BAD_ARGUMENT, where, "a callback's argument exists only once a wait"
                    + " of the query has delivered the callback: {\"callback\": [METHOD, N]} stands in callins and in"
                    + " target.dispose, not here");
        }
        Class<?> t = CallbackSection.callbackArgType(this, method, arg, where);
        callbackUses.add(new String[] {method, where + "[0]"});
        return t;
    }

    @Override
    public boolean resolveOnly() {
        return resolveOnly;
    }

    /** The class callins on the instance are looked up on. */
    Class<?> targetLookup() {
        return targetShim != null ? targetShim : targetClass;
    }

    void addShim(String framework) {
        if (!shims.contains(framework)) {
            shims.add(framework);
        }
    }

    // ---------------------------------------------------------------- parsing

    /** Resolves the purpose object of a configure request. */
    public static Configuration parse(Object json, Platform platform) throws ProtocolError {
        if (!(json instanceof Map)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, null,
                    "configure needs \"purpose\": an object, not " + Json.typeName(json));
        }
        Configuration c = new Configuration(platform);
        c.read((Map<?, ?>) json);
        return c;
    }

    /**
     * Resolves a purpose as {@link #parse} does, with the same errors at the
     * same paths, but runs none of it, so that a host JVM can check a device
     * purpose against android.jar's stubs: classes are loaded without being
     * initialised, constants are checked for their type but not read (that
     * would run static initialisers; so a constant declared Object fits
     * Object parameters only), and contextType stands for the context. Only the purpose's adapters are instantiated and registered,
     * since their shims are part of what is resolved. The result is for
     * reading (shims, symbols), never for running queries.
     */
    public static Configuration resolve(Object json, Platform platform, Class<?> contextType) throws ProtocolError {
        if (!(json instanceof Map)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, null,
                    "configure needs \"purpose\": an object, not " + Json.typeName(json));
        }
        Configuration c = new Configuration(platform);
        c.resolveOnly = true;
        c.resolveContext = contextType;
        c.read((Map<?, ?>) json);
        return c;
    }

    /**
     * The fields of the purpose object: the purpose file's own names
     * (PROTOCOL.md), so that every path in an error is a purpose path.
     */
    static final List<String> KEYS = PurposeFields.keys("name", "class", "target", "setup", "callins", "callbacks",
            "details", "timeouts", "jars", "jar_sha256", "adapters");
    /** The fields of target. */
    static final List<String> TARGET_KEYS = PurposeFields.keys("new", "factory", "shim", "listeners", "init",
            "dispose");
    /** The fields of a part of a detail (details.METHOD[k]). */
    static final List<String> PART_KEYS = PurposeFields.keys("arg", "call", "extra");

    /**
     * Every key set configure checks, named by where it appears, in
     * declaration order: unknown purpose and target fields are logged,
     * unknown keys of the others refused. Tests hold these against the
     * host's purpose schema, so that the two cannot drift apart unseen.
     */
    static Map<String, List<String>> acceptedKeys() {
        Map<String, List<String>> out = new LinkedHashMap<String, List<String>>();
        out.put("top", KEYS);
        out.put("target", TARGET_KEYS);
        out.put("details.part", PART_KEYS);
        out.put("literal", Literal.KINDS);
        out.put("action", EnvAction.KINDS);
        out.put("action.write", EnvAction.WRITE_KEYS);
        out.put("action.append", EnvAction.WRITE_KEYS);
        out.put("action.sqlite", EnvAction.SQLITE_KEYS);
        return Collections.unmodifiableMap(out);
    }

    /**
     * Resolves the purpose in the order PROTOCOL.md gives, so that a purpose
     * with several faults gets the same first complaint from every harness:
     * the fields' types, the jars and adapters, the class, the target, setup,
     * callins, callbacks, timeouts.
     */
    private void read(Map<?, ?> p) throws ProtocolError {
        for (Object k : p.keySet()) {
            if (!KEYS.contains(k)) {
                Log.log("configure: ignoring the unknown purpose field \"" + k + "\"");
            }
        }
        name = string(p, "name", "name", true);
        String className = string(p, "class", "class", true);
        Map<?, ?> targetJson = map(p, "target", "target", false);
        List<?> setupList = list(p, "setup", "setup", false);
        List<?> callinList = list(p, "callins", "callins", true);
        List<?> callbackList = list(p, "callbacks", "callbacks", false);
        Map<?, ?> details = map(p, "details", "details", false);
        Map<?, ?> timeouts = map(p, "timeouts", "timeouts", true);
        List<?> jars = list(p, "jars", "jars", false);
        // the host's digests of the jars it staged; not a purpose field, so
        // complaints about them point at the jars
        List<?> jarSums = list(p, "jar_sha256", "jars", false);
        List<?> adapters = list(p, "adapters", "adapters", false);
        TargetSection target = new TargetSection(targetJson);

        // adapters first: their jars may hold the classes of everything below
        loader = Configuration.class.getClassLoader();
        registry = new ShimRegistry();
        platform.registerShims(registry);
        AdapterSection.read(this, jars, jarSums, adapters);

        target.resolve(this, className, callinList);
        if (setupList != null) {
            for (int i = 0; i < setupList.size(); i++) {
                setup.add(EnvAction.parse(setupList.get(i), "setup[" + i + "]"));
            }
        }
        CallinSection.read(this, callinList);
        callbacksAllowed = false;
        CallbackSection.readCallbacks(this, callbackList);
        CallbackSection.checkCallbackUses(this);
        CallbackSection.readDetails(this, details);
        TimeoutSection.read(this, timeouts);
    }

    /** The answers of this purpose's proxies in the query q, or null when no callback has a behaviour. */
    ListenerProxy.Answers answers(final Instances q) {
        if (behaviours.isEmpty()) {
            return null;
        }
        return new ListenerProxy.Answers() {
            @Override
            public Object answer(String name, Method method, String reportedDetail, Object[] args) throws Throwable {
                Callbacks.Declared d = callbacks.match(name, callbacks.detail(name, reportedDetail, args));
                Behaviour b = d == null ? null : behaviours.get(d.name);
                Class<?> rt = method.getReturnType();
                if (b == null) {
                    return ListenerProxy.defaultValue(rt);
                }
                if (b.sleepMs > 0) {
                    try {
                        Thread.sleep(b.sleepMs);
                    } catch (InterruptedException e) {
                        // the caller's interrupt is its own: keep it and answer now
                        Thread.currentThread().interrupt();
                    }
                }
                if (b.throwsLit != null) {
                    throw (Throwable) b.throwsLit.value(Throwable.class, q);
                }
                return b.returns == null ? ListenerProxy.defaultValue(rt) : b.returns.value(rt, q);
            }
        };
    }
}
