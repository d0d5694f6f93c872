package org.droidstar.harness.core;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A purpose of a configure request, resolved: classes loaded, constructors
 * and methods chosen, listener types checked, literals converted,
 * environment actions checked. Everything that can be wrong with a purpose
 * fails here, once, with the path of the field at fault.
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
    private boolean targetAllowed;
    /**
     * "callins[K] (SYMBOL)", the first callin whose result becomes the
     * instance, when neither new nor factory makes one at the reset: then a
     * query starts without an instance. null when the reset makes one.
     */
    private String madeBy;
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
        String n = className;
        Throwable cause = null;
        while (true) {
            try {
                return Class.forName(n, false, loader);
            } catch (ClassNotFoundException e) {
                // try the next spelling
            } catch (LinkageError e) {
                cause = e;
            }
            // a nested class written with dots: android.media.MediaPlayer.OnPreparedListener
            int dot = n.lastIndexOf('.');
            if (dot <= 0) {
                break;
            }
            n = n.substring(0, dot) + "$" + n.substring(dot + 1);
        }
        throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, where, "cannot load class " + className
                + (cause != null ? " (" + cause + ")" : ""));
    }

    @Override
    public Class<?> listenerType(String key) {
        ListenerSpec l = listener(key);
        return l == null ? null : l.lookup();
    }

    /** The listener {"listener": key} names, or null. */
    private ListenerSpec listener(String key) {
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
    public boolean resolveOnly() {
        return resolveOnly;
    }

    /** The class callins on the instance are looked up on. */
    Class<?> targetLookup() {
        return targetShim != null ? targetShim : targetClass;
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
    private static final Set<String> KEYS = new LinkedHashSet<String>();
    private static final Set<String> TARGET_KEYS = new LinkedHashSet<String>();

    static {
        Collections.addAll(KEYS, "name", "class", "target", "setup", "callins", "callbacks", "details", "timeouts",
                "jars", "jar_sha256", "adapters");
        Collections.addAll(TARGET_KEYS, "new", "factory", "shim", "listeners", "init", "dispose");
    }

    /**
     * The key sets configure checks, each in declaration order: "top" (the
     * purpose object), "target" and "details.part". SchemaKeysTest holds them
     * to the corpus's schema-keys.json, which the purpose schema generates.
     */
    static Map<String, List<String>> acceptedKeys() {
        Map<String, List<String>> keys = new LinkedHashMap<String, List<String>>();
        keys.put("top", new ArrayList<String>(KEYS));
        keys.put("target", new ArrayList<String>(TARGET_KEYS));
        keys.put("details.part", new ArrayList<String>(PART_KEYS));
        return keys;
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
        Map<?, ?> target = map(p, "target", "target", false);
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
        if (target == null) {
            target = Collections.emptyMap();
        }
        for (Object k : target.keySet()) {
            if (!TARGET_KEYS.contains(k)) {
                Log.log("configure: ignoring the unknown target field \"" + k + "\"");
            }
        }
        Object newJson = target.get("new");
        if (newJson != null && !(newJson instanceof List)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, "target.new",
                    "\"new\" must be an array, not " + Json.typeName(newJson));
        }
        Map<?, ?> factoryJson = map(target, "factory", "target.factory", false);
        Map<?, ?> shimJson = map(target, "shim", "target.shim", false);
        List<?> listenerList = list(target, "listeners", "target.listeners", false);
        List<?> initList = list(target, "init", "target.init", false);
        Map<?, ?> disposeJson = map(target, "dispose", "target.dispose", false);

        // adapters first: their jars may hold the classes of everything below
        loader = Configuration.class.getClassLoader();
        registry = new ShimRegistry();
        platform.registerShims(registry);
        readAdapters(jars, jarSums, adapters);

        targetClass = loadClass(className, "class");
        Class<?> shim = registry.lookup(targetClass.getName());
        if (shim == null && !className.equals(targetClass.getName())) {
            shim = registry.lookup(className);
        }
        targetShim = shim;

        readShimOptions(shimJson);
        readListeners(listenerList);

        // the instance: factory, shim constructor or constructor, or none
        // when a callin makes it
        if (newJson != null && factoryJson != null) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, "target.factory", "give new or factory, not both");
        }
        if (newJson == null && factoryJson == null) {
            madeBy = instanceMaker(callinList);
        }
        if (madeBy != null) {
            // no instance at the reset: callins before the maker act on null
        } else if (factoryJson != null) {
            readFactory(factoryJson);
        } else {
            List<Literal> args = args(newJson, "target.new");
            String owner = "class " + targetClass.getName();
            if (targetShim != null) {
                if (!targetClass.isAssignableFrom(targetShim)) {
                    throw new ProtocolError(ProtocolError.INTERNAL, "class",
                            "the shim " + targetShim.getName() + " is no " + targetClass.getName());
                }
                constructor = Invocable.choose(Invocable.constructors(targetShim, true), args,
                        "the shim of " + targetClass.getName(), "new " + targetClass.getName(), "target.new");
            } else {
                int mod = targetClass.getModifiers();
                if (targetClass.isInterface() || Modifier.isAbstract(mod)) {
                    throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, "class", targetClass.getName() + " is "
                            + (targetClass.isInterface() ? "an interface" : "abstract")
                            + " and has no shim: give a factory, or a shim in an adapter");
                }
                constructor = Invocable.choose(Invocable.constructors(targetClass, false), args, owner,
                        "new " + targetClass.getName(), "target.new");
            }
        }
        if (targetShim != null) {
            addShim(targetClass.getName());
        }
        targetAllowed = true;

        readRegistrations();
        if (initList != null) {
            if (madeBy != null && !initList.isEmpty()) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, "target.init[0]",
                        "no instance exists at the reset to call init on: " + madeBy + " makes it (result: target)");
            }
            for (int i = 0; i < initList.size(); i++) {
                init.add(call(initList.get(i), "target.init[" + i + "]"));
            }
        }
        if (disposeJson != null) {
            dispose = call(disposeJson, "target.dispose");
        }
        if (setupList != null) {
            for (int i = 0; i < setupList.size(); i++) {
                setup.add(EnvAction.parse(setupList.get(i), "setup[" + i + "]"));
            }
        }
        for (int i = 0; i < callinList.size(); i++) {
            readCallin(callinList.get(i), "callins[" + i + "]");
        }
        readCallbacks(callbackList);
        readDetails(details);
        quiescenceMs = millis(timeouts, "quiescence", true);
        settleMs = millis(timeouts, "settle", false);
        postResetMs = millis(timeouts, "post_reset", false);
    }

    /**
     * A first look at the callins, before they are resolved: the first one
     * whose result becomes the instance, as "callins[K] (SYMBOL)", or null.
     * What is wrong with them is reported later, in the resolution order.
     */
    private static String instanceMaker(List<?> callinList) {
        for (int i = 0; i < callinList.size(); i++) {
            Object c = callinList.get(i);
            if (c instanceof Map && "target".equals(((Map<?, ?>) c).get("result"))) {
                Object sym = ((Map<?, ?>) c).get("symbol");
                return "callins[" + i + "] (" + (sym instanceof String ? sym : "?") + ")";
            }
        }
        return null;
    }

    private static boolean isIdentifier(String s) {
        if (s.isEmpty() || !Character.isJavaIdentifierStart(s.charAt(0))) {
            return false;
        }
        for (int i = 1; i < s.length(); i++) {
            if (!Character.isJavaIdentifierPart(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isSha256(String s) {
        if (s.length() != 64) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    /** The SHA-256 of a staged jar in lowercase hex, read before it is loaded. */
    private static String sha256(File f, String where) throws ProtocolError {
        InputStream in = null;
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            in = new FileInputStream(f);
            byte[] buf = new byte[8192];
            for (int n; (n = in.read(buf)) > 0; ) {
                md.update(buf, 0, n);
            }
            StringBuilder b = new StringBuilder();
            for (byte x : md.digest()) {
                b.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
            }
            return b.toString();
        } catch (IOException e) {
            throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, where, "cannot read the jar " + f + ": " + e);
        } catch (NoSuchAlgorithmException e) {
            throw new ProtocolError(ProtocolError.INTERNAL, where, "no SHA-256: " + e);
        } finally {
            if (in != null) {
                try {
                    in.close();
                } catch (IOException e) {
                    // read already; nothing to lose
                }
            }
        }
    }

    private void addShim(String framework) {
        if (!shims.contains(framework)) {
            shims.add(framework);
        }
    }

    private void readAdapters(List<?> jars, List<?> jarSums, List<?> adapters) throws ProtocolError {
        int njars = jars == null ? 0 : jars.size();
        if (jarSums != null && jarSums.size() != njars) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, "jars", "\"jar_sha256\" has " + jarSums.size()
                    + " digests for " + njars + " jars");
        }
        if (jars != null && !jars.isEmpty()) {
            List<File> files = new ArrayList<File>();
            for (int i = 0; i < jars.size(); i++) {
                String w = "jars[" + i + "]";
                Object j = jars.get(i);
                if (!(j instanceof String) || ((String) j).isEmpty()) {
                    throw new ProtocolError(ProtocolError.BAD_REQUEST, w, "a jar is a path, not "
                            + (j instanceof String ? "an empty string" : Json.typeName(j)));
                }
                String sum = null;
                if (jarSums != null) {
                    Object s = jarSums.get(i);
                    if (!(s instanceof String) || !isSha256((String) s)) {
                        throw new ProtocolError(ProtocolError.BAD_REQUEST, w, "jar_sha256[" + i
                                + "] must be a SHA-256 in 64 lowercase hex digits, not "
                                + (s instanceof String ? Json.write(s) : Json.typeName(s)));
                    }
                    sum = (String) s;
                }
                File f = new File((String) j);
                if (!f.isAbsolute()) {
                    f = new File(platform.codeDir(), (String) j);
                }
                if (!f.isFile()) {
                    throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, w, "the jar " + j + " does not exist");
                }
                if (sum != null) {
                    String have = sha256(f, w);
                    if (!have.equals(sum)) {
                        throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, w, "the jar " + j
                                + " is not the one the host staged: its SHA-256 is " + have + ", the host's " + sum);
                    }
                }
                files.add(f);
            }
            try {
                loader = platform.loadJars(files, loader);
            } catch (Exception e) {
                throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, "jars", "cannot load the jars: " + e);
            }
        }
        if (adapters == null) {
            return;
        }
        for (int i = 0; i < adapters.size(); i++) {
            String w = "adapters[" + i + "]";
            Object a = adapters.get(i);
            if (!(a instanceof String)) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w, "an adapter is a class name, not " + Json.typeName(a));
            }
            Class<?> c = loadClass((String) a, w);
            if (!Adapter.class.isAssignableFrom(c)) {
                throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, w,
                        c.getName() + " does not implement " + Adapter.class.getName());
            }
            Adapter adapter;
            try {
                adapter = (Adapter) c.getConstructor().newInstance();
            } catch (Exception e) {
                throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, w,
                        "cannot make an instance of " + c.getName() + " with its public no-argument constructor: " + e);
            } catch (LinkageError e) {
                throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, w, "cannot initialise " + c.getName() + ": " + e);
            }
            try {
                adapter.register(registry, platform);
            } catch (RuntimeException e) {
                throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, w, c.getName() + ".register failed: " + e);
            } catch (LinkageError e) {
                throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, w, c.getName() + ".register failed: " + e);
            }
        }
    }

    private void readShimOptions(Map<?, ?> m) throws ProtocolError {
        if (m == null) {
            return;
        }
        for (Map.Entry<?, ?> e : m.entrySet()) {
            Object v = e.getValue();
            if (v instanceof String) {
                shimOptions.put((String) e.getKey(), (String) v);
            } else if (v instanceof Number || v instanceof Boolean) {
                shimOptions.put((String) e.getKey(), String.valueOf(v));
            } else {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, "target.shim." + e.getKey(),
                        "a shim option is a string, a number or a boolean, not " + Json.typeName(v));
            }
        }
    }

    private void readListeners(List<?> ls) throws ProtocolError {
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
            if (name != null && listener(name) != null) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w + ".name", "listener " + name + " is declared twice");
            }
            if (name == null && listener(typeName) != null) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w + ".type", "listener type " + typeName
                        + " is declared twice: give each listener of a type a name (name: NAME) to tell them apart");
            }
            Class<?> type = loadClass(typeName, w + ".type");
            Class<?> shim = registry.lookup(type.getName());
            if (shim == null) {
                shim = registry.lookup(typeName);
            }
            if (shim != null && name != null) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w + ".name", "only proxied interfaces have names:"
                        + " the shim of " + type.getName() + " reports its calls under their own names");
            }
            if (shim != null) {
                Invocable.Choice ctor = Invocable.choose(Invocable.constructors(shim, true),
                        new ArrayList<Literal>(), "the shim of " + type.getName(), "new " + type.getName(), w + ".type");
                listeners.add(new ListenerSpec(typeName, type, shim, ctor, register, null));
                addShim(type.getName());
            } else if (type.isInterface()) {
                listeners.add(new ListenerSpec(typeName, type, null, null, register, name));
            } else {
                throw new ProtocolError(ProtocolError.UNKNOWN_LISTENER, w + ".type", type.getName()
                        + " is neither an interface nor a class with a shim");
            }
        }
    }

    /** The register calls, once the instance's class is known. */
    private void readRegistrations() throws ProtocolError {
        for (int i = 0; i < listeners.size(); i++) {
            ListenerSpec l = listeners.get(i);
            if (l.registerName == null) {
                continue;
            }
            String w = "target.listeners[" + i + "].register";
            if (madeBy != null) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w,
                        "no instance exists at the reset to register the listener on: " + madeBy
                                + " makes it (result: target); pass the listener to a callin as an argument instead");
            }
            List<Invocable> candidates = new ArrayList<Invocable>();
            for (Invocable inv : Invocable.methods(targetLookup(), l.registerName, false)) {
                if (inv.params.length == 1) {
                    candidates.add(inv);
                }
            }
            if (candidates.isEmpty()) {
                throw new ProtocolError(ProtocolError.UNKNOWN_METHOD, w, "class " + targetClass.getName()
                        + " has no method " + l.registerName + " with one parameter");
            }
            List<Literal> args = new ArrayList<Literal>();
            args.add(new Literal.ListenerLit(w, l.key(), l.lookup()));
            boolean fits = false;
            for (Invocable inv : candidates) {
                fits |= Invocable.fit(inv, args) != null;
            }
            if (!fits) {
                throw new ProtocolError(ProtocolError.UNKNOWN_LISTENER, w, targetClass.getName() + "."
                        + l.registerName + " takes no " + l.type.getName());
            }
            l.register = Invocable.choose(candidates, args, "class " + targetClass.getName(), l.registerName, w);
        }
    }

    private void readFactory(Map<?, ?> f) throws ProtocolError {
        String cls = string(f, "class", "target.factory.class", false);
        String method = string(f, "method", "target.factory.method", true);
        Class<?> c = cls == null ? targetClass : loadClass(cls, "target.factory.class");
        List<Literal> args = args(f.get("args"), "target.factory.args");
        factory = Invocable.choose(Invocable.methods(c, method, true), args, "class " + c.getName(), method,
                "target.factory.method");
        Method m = ((Invocable.MethodInv) factory.inv).method;
        if (m.getReturnType().isPrimitive()) {
            throw new ProtocolError(ProtocolError.UNKNOWN_METHOD, "target.factory.method",
                    factory.describe() + " returns a " + m.getReturnType() + ", not an instance");
        }
    }

    /** A call on the instance: {"call":M,"args":[...]}. */
    private Call call(Object json, String where) throws ProtocolError {
        if (!(json instanceof Map)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, where,
                    "a call is an object with call and args, not " + Json.typeName(json));
        }
        Map<?, ?> m = (Map<?, ?>) json;
        String method = string(m, "call", where + ".call", true);
        List<Literal> args = args(m.get("args"), where + ".args");
        return new Call(null, Invocable.choose(Invocable.methods(targetLookup(), method, false), args,
                "class " + targetClass.getName(), method, where + ".call"));
    }

    private void readCallin(Object json, String w) throws ProtocolError {
        if (!(json instanceof Map)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, w,
                    "a callin is an object with symbol, call, on, args and do, not " + Json.typeName(json));
        }
        Map<?, ?> m = (Map<?, ?>) json;
        String symbol = string(m, "symbol", w + ".symbol", true);
        if (symbol.isEmpty() || symbol.equals(QueryRunner.WAIT)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, w + ".symbol",
                    symbol.isEmpty() ? "a callin symbol cannot be empty" : "wait is not a callin: it is the waiting input");
        }
        if (callins.containsKey(symbol)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, w + ".symbol", "callin " + symbol + " is declared twice");
        }
        List<EnvAction> actions = new ArrayList<EnvAction>();
        List<?> as = list(m, "do", w + ".do", false);
        if (as != null) {
            for (int i = 0; i < as.size(); i++) {
                actions.add(EnvAction.parse(as.get(i), w + ".do[" + i + "]"));
            }
        }
        String method = string(m, "call", w + ".call", false);
        List<Literal> args = args(m.get("args"), w + ".args");
        Object onJson = m.get("on");
        Call call = null;
        if (method == null) {
            if (!args.isEmpty() || onJson != null) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w + ".call",
                        "callin " + symbol + " has arguments or a receiver but no call");
            }
        } else if (onJson == null) {
            call = new Call(null, Invocable.choose(Invocable.methods(targetLookup(), method, false), args,
                    "class " + targetClass.getName(), method, w + ".call"));
        } else {
            Literal on = Literal.parse(onJson, w + ".on", this);
            Class<?> t = on.staticType();
            if (t == null || on instanceof Literal.NullLit) {
                throw new ProtocolError(ProtocolError.BAD_ARGUMENT, w + ".on",
                        on.describe() + " has no type to call " + method + " on");
            }
            call = new Call(on, Invocable.choose(Invocable.methods(t, method, false), args,
                    (t.isInterface() ? "interface " : "class ") + t.getName(), method, w + ".call"));
        }
        boolean makesTarget = readResult(m, w, call);
        Object errorIfJson = m.get("error_if");
        Literal errorIf = m.containsKey("error_if") ? readErrorIf(errorIfJson, w, call) : null;
        callins.put(symbol, new Callin(symbol, actions, call, makesTarget, errorIf, errorIfJson));
    }

    /** A callin's result: "target" makes the call's result the instance under test. */
    private boolean readResult(Map<?, ?> m, String w, Call call) throws ProtocolError {
        Object r = m.get("result");
        if (r == null) {
            return false;
        }
        String wr = w + ".result";
        if (!(r instanceof String)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, wr, "\"result\" must be a string, not " + Json.typeName(r));
        }
        if (!r.equals("target")) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, wr, "unknown result " + quoted((String) r)
                    + ": the one place a result can go is target (the call's result becomes the instance under test)");
        }
        if (call == null) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, wr,
                    "a callin with do calls no method unless it says which: add call: METHOD");
        }
        if (targetShim != null) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, wr, "the instance of " + targetClass.getName()
                    + " is its shim, made at the reset: result: target cannot replace it");
        }
        Class<?> rt = call.choice.returnType();
        if (!targetClass.isAssignableFrom(rt)) {
            throw new ProtocolError(ProtocolError.UNKNOWN_METHOD, wr, call.choice.describe() + " returns " + rt.getName()
                    + ", not " + targetClass.getName() + ": result: target needs an instance of the class under test");
        }
        return true;
    }

    /** A callin's error_if: the result (a JSON scalar) that counts as err. */
    private Literal readErrorIf(Object v, String w, Call call) throws ProtocolError {
        String we = w + ".error_if";
        if (call == null) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, we,
                    "a callin with do calls no method unless it says which: add call: METHOD");
        }
        if (v instanceof Map || v instanceof List) {
            throw new ProtocolError(ProtocolError.BAD_ARGUMENT, we,
                    "error_if is the result that counts as err: null, a boolean, a number or a string, not "
                            + Json.typeName(v));
        }
        Literal lit = Literal.parse(v, we, this);
        Class<?> rt = call.choice.returnType();
        if (rt == void.class) {
            throw new ProtocolError(ProtocolError.BAD_ARGUMENT, we, call.choice.describe()
                    + " returns nothing: there is no result to compare with " + lit.describe());
        }
        if (lit.cost(rt) < 0) {
            throw new ProtocolError(ProtocolError.BAD_ARGUMENT, we, lit.describe() + " can never be what "
                    + call.choice.describe() + " returns (a " + rt.getName() + ")");
        }
        return lit;
    }

    /**
     * The callbacks: each symbol's from names (or the symbol itself when it
     * has none) are the names the harness matches and reports.
     */
    private void readCallbacks(List<?> cbs) throws ProtocolError {
        if (cbs == null) {
            return;
        }
        Set<String> known = knownCallbackMethods();
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
                declareCallback(names.get(k), Boolean.TRUE.equals(e), "environment".equals(e), wheres.get(k), known);
            }
            Behaviour b = readBehaviour(m, w, names);
            if (b != null) {
                for (String n : names) {
                    behaviours.put(n, b);
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
    private Behaviour readBehaviour(Map<?, ?> m, String w, List<String> names) throws ProtocolError {
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
            for (ListenerSpec l : listeners) {
                if (l.shim != null || !method.startsWith(l.prefix())) {
                    continue;
                }
                String plain = method.substring(l.prefix().length());
                for (Method pm : l.type.getMethods()) {
                    if (pm.getName().equals(plain) && !Modifier.isStatic(pm.getModifiers())) {
                        proxied.add(pm);
                        found = true;
                    }
                }
            }
            if (!found) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w + "." + field, field + " acts on proxy listeners,"
                        + " and " + method + " is no method of a listener interface of the purpose (a shim's"
                        + " methods do what the shim does)");
            }
        }
        Literal returns = null;
        Literal throwsLit = null;
        if (hasReturns) {
            returns = Literal.parse(m.get("returns"), w + ".returns", this);
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
            throwsLit = Literal.parse(m.get("throws"), w + ".throws", this);
            Class<?> t = throwsLit.staticType();
            if (t == null || !Throwable.class.isAssignableFrom(t)) {
                throw new ProtocolError(ProtocolError.BAD_ARGUMENT, w + ".throws", throwsLit.describe()
                        + " is no Throwable: throws needs one, such as {\"new\": [java.lang.IllegalStateException, \"boom\"]}");
            }
        }
        return new Behaviour(returns, throwsLit, sleepMs);
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

    private void declareCallback(String n, boolean error, boolean environment, String where, Set<String> known)
            throws ProtocolError {
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
        if (!callbacks.add(n, error, environment)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, where, "callback " + n + " is declared twice");
        }
    }

    /**
     * The purpose's details: per callback method, the parts of a call's
     * arguments its detail is made of. Each part is checked against the
     * parameter types of the methods of that name that the purpose's
     * listeners and shims have.
     */
    private void readDetails(Map<?, ?> ds) throws ProtocolError {
        if (ds == null) {
            return;
        }
        for (Map.Entry<?, ?> e : ds.entrySet()) {
            String method = (String) e.getKey();
            String w = "details." + method;
            List<Method> methods = callbackMethods(method);
            if (methods.isEmpty()) {
                throw new ProtocolError(ProtocolError.UNKNOWN_CALLBACK, w, method
                        + " is no method of any listener or shim of the purpose" + describeKnown(knownCallbackMethods()));
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
            callbacks.setDetail(method, parts);
        }
    }

    private static final Set<String> PART_KEYS = new LinkedHashSet<String>();

    static {
        Collections.addAll(PART_KEYS, "arg", "call", "extra");
    }

    private static Callbacks.Part detailPart(Object json, String w, String method, List<Method> methods)
            throws ProtocolError {
        if (!(json instanceof Map)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, w,
                    "a detail part is an object with arg and call or extra, not " + Json.typeName(json));
        }
        Map<?, ?> m = (Map<?, ?>) json;
        for (Object k : m.keySet()) {
            if (!PART_KEYS.contains(k)) {
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
        Set<Class<?>> types = new LinkedHashSet<Class<?>>();
        Set<String> signatures = new TreeSet<String>();
        for (Method mm : methods) {
            Class<?>[] ps = mm.getParameterTypes();
            signatures.add(mm.getDeclaringClass().getName() + "." + mm.getName() + Invocable.simpleParams(ps, mm.isVarArgs()));
            if (arg < ps.length) {
                types.add(ps[arg]);
            }
        }
        if (types.size() != 1) {
            StringBuilder sb = new StringBuilder();
            for (String sig : signatures) {
                sb.append(sb.length() == 0 ? "" : ", ").append(sig);
            }
            throw new ProtocolError(ProtocolError.UNKNOWN_METHOD, w + ".arg", types.isEmpty()
                    ? method + " has no argument " + arg + " (arguments count from 0): " + sb
                    : "the methods " + method + " of the purpose's listeners and shims differ in the type of argument "
                            + arg + ": " + sb);
        }
        Class<?> t = types.iterator().next();
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
    private List<Method> callbackMethods(String name) {
        List<Method> out = new ArrayList<Method>();
        if (targetShim != null) {
            addNamed(out, targetShim, name);
        }
        for (ListenerSpec l : listeners) {
            if (l.shim != null) {
                addNamed(out, l.shim, name);
            } else {
                for (Method m : l.type.getMethods()) {
                    if (m.getName().equals(name) && !Modifier.isStatic(m.getModifiers())) {
                        out.add(m);
                    }
                }
            }
        }
        return out;
    }

    private static void addNamed(List<Method> out, Class<?> c, String name) {
        for (; c != null && c != Object.class; c = c.getSuperclass()) {
            try {
                for (Method m : c.getDeclaredMethods()) {
                    if (m.getName().equals(name) && !Modifier.isStatic(m.getModifiers()) && !m.isSynthetic()) {
                        out.add(m);
                    }
                }
            } catch (LinkageError e) {
                // a framework class whose methods cannot all be resolved: skip it
            }
        }
    }

    private static String quoted(String s) {
        StringBuilder sb = new StringBuilder();
        Json.quote(sb, s);
        return sb.toString();
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
    private Set<String> knownCallbackMethods() {
        Set<String> out = new LinkedHashSet<String>();
        if (targetShim != null) {
            addHierarchy(out, targetShim);
        }
        for (ListenerSpec l : listeners) {
            if (l.shim != null) {
                addHierarchy(out, l.shim);
            } else {
                Set<String> names = new TreeSet<String>();
                for (Method m : l.type.getMethods()) {
                    if (!Modifier.isStatic(m.getModifiers())) {
                        names.add(l.prefix() + m.getName());
                    }
                }
                out.addAll(names);
            }
        }
        return out;
    }

    private static void addHierarchy(Set<String> out, Class<?> c) {
        for (; c != null && c != Object.class; c = c.getSuperclass()) {
            Set<String> names = new TreeSet<String>();
            try {
                for (Method m : c.getDeclaredMethods()) {
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

    // ---------------------------------------------------------------- field helpers

    private List<Literal> args(Object json, String where) throws ProtocolError {
        List<Literal> out = new ArrayList<Literal>();
        if (json == null) {
            return out;
        }
        if (!(json instanceof List)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, where,
                    "arguments are an array of literals, not " + Json.typeName(json));
        }
        List<?> l = (List<?>) json;
        for (int i = 0; i < l.size(); i++) {
            out.add(Literal.parse(l.get(i), where + "[" + i + "]", this));
        }
        return out;
    }

    private static String string(Map<?, ?> m, String key, String where, boolean required) throws ProtocolError {
        Object v = m.get(key);
        if (v == null) {
            if (required) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, where, "\"" + key + "\" is required");
            }
            return null;
        }
        if (!(v instanceof String)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, where,
                    "\"" + key + "\" must be a string, not " + Json.typeName(v));
        }
        return (String) v;
    }

    private static List<?> list(Map<?, ?> m, String key, String where, boolean required) throws ProtocolError {
        Object v = m.get(key);
        if (v == null) {
            if (required) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, where, "\"" + key + "\" is required");
            }
            return null;
        }
        if (!(v instanceof List)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, where,
                    "\"" + key + "\" must be an array, not " + Json.typeName(v));
        }
        return (List<?>) v;
    }

    private static Map<?, ?> map(Map<?, ?> m, String key, String where, boolean required) throws ProtocolError {
        Object v = m.get(key);
        if (v == null) {
            if (required) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, where, "\"" + key + "\" is required");
            }
            return null;
        }
        if (!(v instanceof Map)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, where,
                    "\"" + key + "\" must be an object, not " + Json.typeName(v));
        }
        return (Map<?, ?>) v;
    }

    /** A timeout: a non-negative integer of milliseconds. */
    private static long millis(Map<?, ?> m, String key, boolean required) throws ProtocolError {
        Object v = m.get(key);
        String where = "timeouts." + key;
        if (v == null) {
            if (required) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, where, "\"" + key + "\" is required");
            }
            return 0;
        }
        if (!(v instanceof Long) || ((Long) v).longValue() < 0) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, where,
                    "\"" + key + "\" must be a non-negative integer of milliseconds, not " + Json.describe(v));
        }
        return ((Long) v).longValue();
    }
}
