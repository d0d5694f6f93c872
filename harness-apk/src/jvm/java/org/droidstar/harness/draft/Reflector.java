package org.droidstar.harness.draft;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.droidstar.harness.jvm.JvmShims;

/**
 * Reads what a purpose draft needs from a class by reflection: its public
 * constructors and static factories, its public instance methods (the
 * candidate callins), the callback objects it takes (listener
 * interfaces and callback classes that a registration method takes:
 * subscribe, set*Listener, set*Callback, register*, add*, open*; and the
 * abstract classes the harness has shims for, wherever a public method
 * takes one), and the types of the parameters, with what a purpose's
 * argument literals could make a value of each from (constants,
 * constructors, static factories). Nothing of the class runs: it is
 * loaded without initialisation, so that android.jar's stubs, whose
 * bodies only throw, can be read too.
 *
 * The description is a tree of maps and lists (for Json.write), sorted so
 * that the same class gives the same description on every run.
 */
public final class Reflector {
    /**
     * The framework classes the harness's shims stand in for, with the
     * callback names each shim reports (ShimContext.callback). The JVM's
     * are JvmPlatform's; the Android ones are AndroidPlatform's, whose shim
     * classes are not on the host: ShimTableTest checks this table against
     * both platforms' sources.
     */
    static final Map<String, List<String>> SHIMS;

    static {
        Map<String, List<String>> m = new TreeMap<String, List<String>>();
        m.put("java.util.TimerTask", Arrays.asList("run"));
        m.put("java.util.concurrent.FutureTask", Arrays.asList("done"));
        m.put("android.os.AsyncTask", Arrays.asList("onPreExecute", "onProgressUpdate", "onPostExecute", "onCancelled"));
        m.put("android.os.CountDownTimer", Arrays.asList("onTick", "onFinish"));
        m.put("android.os.FileObserver", Arrays.asList("onEvent"));
        m.put("android.database.sqlite.SQLiteOpenHelper",
                Arrays.asList("onConfigure", "onCreate", "onUpgrade", "onDowngrade", "onOpen"));
        m.put("android.media.MediaCodec$Callback", Arrays.asList("onInputBufferAvailable",
                "onOutputBufferAvailable", "onError", "onOutputFormatChanged"));
        m.put("android.content.BroadcastReceiver", Arrays.asList("onReceive"));
        SHIMS = Collections.unmodifiableMap(m);
    }

    /** The JVM's shim classes (in this jar), by the class each stands in for. */
    private static final Map<String, Class<?>> JVM_SHIM_CLASSES = new TreeMap<String, Class<?>>();

    static {
        JVM_SHIM_CLASSES.put("java.util.TimerTask", JvmShims.TimerTaskShim.class);
        JVM_SHIM_CLASSES.put("java.util.concurrent.FutureTask", JvmShims.FutureTaskShim.class);
    }

    private Reflector() {
    }

    /** The public and protected constructors: a shim, a subclass, may call either. */
    private static Constructor<?>[] visibleConstructors(Class<?> cls) {
        List<Constructor<?>> out = new ArrayList<Constructor<?>>();
        for (Constructor<?> c : cls.getDeclaredConstructors()) {
            if (Modifier.isPublic(c.getModifiers()) || Modifier.isProtected(c.getModifiers())) {
                out.add(c);
            }
        }
        return out.toArray(new Constructor<?>[0]);
    }

    /** The description of cls (see the class comment; Main says how it is sent). */
    public static Map<String, Object> describe(Class<?> cls) {
        Map<String, Object> out = new LinkedHashMap<String, Object>();
        out.put("class", cls.getName());
        int mod = cls.getModifiers();
        out.put("kind", cls.isInterface() ? "interface" : Modifier.isAbstract(mod) ? "abstract" : "class");
        List<String> shim = SHIMS.get(cls.getName());
        if (shim == null) {
            out.put("shim", null);
        } else {
            List<Object> callbacks = new ArrayList<Object>();
            for (String name : shim) {
                Map<String, Object> cb = new LinkedHashMap<String, Object>();
                cb.put("name", name);
                cb.put("signature", shimSignature(cls, name));
                callbacks.add(cb);
            }
            out.put("shim", callbacks);
        }

        List<Object> constructors = new ArrayList<Object>();
        Class<?> jvmShim = JVM_SHIM_CLASSES.get(cls.getName());
        if (jvmShim != null) {
            // The shim makes the instance: its constructors, less the
            // ShimContext the harness passes first.
            for (Constructor<?> c : jvmShim.getConstructors()) {
                Class<?>[] ps = c.getParameterTypes();
                Class<?>[] rest = Arrays.copyOfRange(ps, 1, ps.length);
                Map<String, Object> m = new LinkedHashMap<String, Object>();
                m.put("params", names(rest));
                m.put("signature", "new " + typeName(cls) + "(" + join(rest) + ")");
                constructors.add(m);
            }
        } else if (!cls.isInterface() && (!Modifier.isAbstract(mod) || SHIMS.containsKey(cls.getName()))) {
            // An Android shim, not on the host, takes the constructor
            // arguments of the class it stands in for.
            Constructor<?>[] cs = SHIMS.containsKey(cls.getName()) ? visibleConstructors(cls) : cls.getConstructors();
            Arrays.sort(cs, new Comparator<Constructor<?>>() {
                @Override
                public int compare(Constructor<?> a, Constructor<?> b) {
                    return compareParams(a.getParameterTypes(), b.getParameterTypes());
                }
            });
            for (Constructor<?> c : cs) {
                Map<String, Object> m = new LinkedHashMap<String, Object>();
                m.put("params", names(c.getParameterTypes()));
                m.put("signature", "new " + typeName(cls) + "(" + join(c.getParameterTypes()) + ")");
                constructors.add(m);
            }
        }
        out.put("constructors", constructors);

        List<Method> methods = publicMethods(cls);
        List<Object> factories = new ArrayList<Object>();
        List<Object> callins = new ArrayList<Object>();
        Map<String, Map<String, Object>> listeners = new TreeMap<String, Map<String, Object>>();
        Map<String, Map<String, Object>> interfaces = new TreeMap<String, Map<String, Object>>();
        for (Method m : methods) {
            if (Modifier.isStatic(m.getModifiers())) {
                if (cls.isAssignableFrom(m.getReturnType())) {
                    factories.add(method(m));
                }
                continue;
            }
            if (shim != null && shim.contains(m.getName())) {
                continue; // the shim's callback, not a callin
            }
            Class<?>[] ps = m.getParameterTypes();
            boolean registration = isRegistration(m.getName());
            if (ps.length == 1 && registration && callbackType(ps[0])) {
                Map<String, Object> l = listeners.get(ps[0].getName());
                if (l == null || l.get("register") == null) {
                    listeners.put(ps[0].getName(), listener(ps[0], m.getName()));
                }
                continue;
            }
            for (Class<?> p : ps) {
                if (SHIMS.containsKey(p.getName()) || (registration && callbackType(p))) {
                    // openCamera(String, StateCallback, Handler): the
                    // listener is declared, and passed by the callin.
                    if (!listeners.containsKey(p.getName())) {
                        listeners.put(p.getName(), listener(p, null));
                    }
                } else if (p.isInterface() && !interfaces.containsKey(p.getName())) {
                    Map<String, Object> l = listener(p, null);
                    // A callback interface has a method or three to
                    // implement (BiConsumer); CompletionStage's thirty-odd
                    // make it an object of its own, no listener.
                    int n = ((List<?>) l.get("callbacks")).size();
                    if (n >= 1 && n <= 3) {
                        interfaces.put(p.getName(), l);
                    }
                }
            }
            callins.add(method(m));
        }
        // Interfaces the methods take that no registration names: a proxy
        // could stand for each, if the purpose declares it.
        for (String registered : listeners.keySet()) {
            interfaces.remove(registered);
        }

        out.put("factories", factories);
        out.put("methods", callins);
        out.put("listeners", new ArrayList<Object>(listeners.values()));
        out.put("interfaces", new ArrayList<Object>(interfaces.values()));
        out.put("types", types(cls, methods, listeners.values()));
        scrub(out);
        return out;
    }

    /**
     * The parameter types of the class's constructors, factories and
     * methods and of its listeners' callbacks, and, one level further, of
     * those types' own constructors and factories (a {"new": ...} takes
     * literals too): each described by describeType. Primitives, arrays,
     * String and Object are left out: no literal map makes them.
     */
    private static Map<String, Object> types(Class<?> cls, List<Method> methods, java.util.Collection<Map<String, Object>> listeners) {
        Set<Class<?>> first = new java.util.LinkedHashSet<Class<?>>();
        for (Constructor<?> c : cls.getConstructors()) {
            first.addAll(Arrays.asList(c.getParameterTypes()));
        }
        for (Method m : methods) {
            first.addAll(Arrays.asList(m.getParameterTypes()));
        }
        for (Map<String, Object> l : listeners) {
            for (Object cb : (List<?>) l.get("callbacks")) {
                Object types = ((Map<?, ?>) cb).get("types");
                if (types != null) {
                    first.addAll(((ParamTypes) types).types);
                }
            }
        }
        Map<String, Object> out = new TreeMap<String, Object>();
        Set<Class<?>> second = new java.util.LinkedHashSet<Class<?>>();
        for (Class<?> t : first) {
            Map<String, Object> d = describeType(t);
            if (d != null) {
                out.put(t.getName(), d);
                for (Object k : (List<?>) d.get("constructors")) {
                    second.addAll(((ParamTypes) ((Map<?, ?>) k).get("types")).types);
                }
                for (Object f : (List<?>) d.get("factories")) {
                    second.addAll(((ParamTypes) ((Map<?, ?>) f).get("types")).types);
                }
            }
        }
        for (Class<?> t : second) {
            if (!out.containsKey(t.getName())) {
                Map<String, Object> d = describeType(t);
                if (d != null) {
                    out.put(t.getName(), d);
                }
            }
        }
        return out;
    }

    /** Drops the ParamTypes the walk of types() used from a description: Json writes names, not classes. */
    private static void scrub(Object o) {
        if (o instanceof Map) {
            java.util.Iterator<?> it = ((Map<?, ?>) o).values().iterator();
            while (it.hasNext()) {
                Object v = it.next();
                if (v instanceof ParamTypes) {
                    it.remove();
                } else {
                    scrub(v);
                }
            }
        } else if (o instanceof List) {
            for (Object v : (List<?>) o) {
                scrub(v);
            }
        }
    }

    /** Parameter types carried through the description until types() has walked them. */
    private static final class ParamTypes {
        final List<Class<?>> types;

        ParamTypes(Class<?>[] types) {
            this.types = Arrays.asList(types);
        }
    }

    /**
     * What a literal could make a value of t from: its kind (enum,
     * interface, abstract, class), whether it is a Throwable, its
     * constants (enum constants, and public static final fields of its own
     * type declared in it, in declaration order), its public constructors
     * and static factories (by parameters), and its public instance
     * methods' names (what a callin on one would call). Null for what no
     * literal map makes, and for a type whose API names a class the class
     * path lacks: that type is left out, not the whole description.
     */
    static Map<String, Object> describeType(Class<?> t) {
        if (t.isPrimitive() || t.isArray() || t == String.class || t == Object.class || !Modifier.isPublic(t.getModifiers())) {
            return null;
        }
        try {
            Map<String, Object> d = new LinkedHashMap<String, Object>();
            int mod = t.getModifiers();
            d.put("kind", t.isEnum() ? "enum" : t.isInterface() ? "interface" : Modifier.isAbstract(mod) ? "abstract" : "class");
            d.put("throwable", Boolean.valueOf(Throwable.class.isAssignableFrom(t)));
            List<Object> constants = new ArrayList<Object>();
            for (Field f : t.getDeclaredFields()) {
                int fm = f.getModifiers();
                if (Modifier.isPublic(fm) && Modifier.isStatic(fm) && Modifier.isFinal(fm) && t.isAssignableFrom(f.getType())) {
                    constants.add(f.getName());
                }
            }
            d.put("constants", constants);
            List<Object> constructors = new ArrayList<Object>();
            if (!t.isInterface() && !Modifier.isAbstract(mod)) {
                Constructor<?>[] cs = t.getConstructors();
                Arrays.sort(cs, new Comparator<Constructor<?>>() {
                    @Override
                    public int compare(Constructor<?> a, Constructor<?> b) {
                        return compareParams(a.getParameterTypes(), b.getParameterTypes());
                    }
                });
                for (Constructor<?> c : cs) {
                    Map<String, Object> k = new LinkedHashMap<String, Object>();
                    k.put("params", names(c.getParameterTypes()));
                    k.put("types", new ParamTypes(c.getParameterTypes()));
                    constructors.add(k);
                }
            }
            d.put("constructors", constructors);
            List<Object> factories = new ArrayList<Object>();
            Set<String> methods = new TreeSet<String>();
            for (Method m : publicMethods(t)) {
                if (Modifier.isStatic(m.getModifiers())) {
                    if (m.getDeclaringClass() == t && t.isAssignableFrom(m.getReturnType())) {
                        Map<String, Object> f = new LinkedHashMap<String, Object>();
                        f.put("name", m.getName());
                        f.put("params", names(m.getParameterTypes()));
                        f.put("types", new ParamTypes(m.getParameterTypes()));
                        factories.add(f);
                    }
                } else {
                    methods.add(m.getName());
                }
            }
            d.put("factories", factories);
            d.put("methods", new ArrayList<Object>(methods));
            return d;
        } catch (LinkageError e) {
            return null;
        }
    }

    /**
     * The public methods of cls that are its own API: not Object's, not
     * bridges, one per signature, sorted by name, then by parameters.
     */
    static List<Method> publicMethods(Class<?> cls) {
        Map<String, Method> bySignature = new TreeMap<String, Method>();
        for (Method m : cls.getMethods()) {
            if (m.isBridge() || m.isSynthetic() || m.getDeclaringClass() == Object.class) {
                continue;
            }
            String key = m.getName() + "(" + join(m.getParameterTypes()) + ")";
            Method prev = bySignature.get(key);
            // An override with a narrower return type wins.
            if (prev == null || prev.getReturnType().isAssignableFrom(m.getReturnType())) {
                bySignature.put(key, m);
            }
        }
        List<Method> out = new ArrayList<Method>(bySignature.values());
        Collections.sort(out, new Comparator<Method>() {
            @Override
            public int compare(Method a, Method b) {
                int c = a.getName().compareTo(b.getName());
                return c != 0 ? c : compareParams(a.getParameterTypes(), b.getParameterTypes());
            }
        });
        return out;
    }

    /**
     * Whether a method name registers a callback object, when it takes
     * one (callbackType): subscribe, set*Listener, set*Callback,
     * register*, add*, open*.
     */
    static boolean isRegistration(String name) {
        return name.startsWith("subscribe")
                || (name.startsWith("set") && (name.endsWith("Listener") || name.endsWith("Callback")))
                || name.startsWith("register") || word(name, "add") || word(name, "open");
    }

    /** Whether name is the verb v, or v and a capitalised rest (addX, not address). */
    private static boolean word(String name, String v) {
        return name.equals(v) || (name.startsWith(v) && Character.isUpperCase(name.charAt(v.length())));
    }

    /**
     * Whether the harness can make a callback object of type t: a class
     * it has a built-in shim for; an interface whose methods to implement
     * are callbacks (each returns void or boolean, or is named on*:
     * Collection, whose size() answers, is no listener); or a class that
     * can be subclassed with callback methods to override (an abstract
     * class whose abstract methods are such, or any with on* methods:
     * CameraDevice.StateCallback), for which droidstar generates a shim.
     */
    static boolean callbackType(Class<?> t) {
        if (SHIMS.containsKey(t.getName())) {
            return true;
        }
        if (t.isPrimitive() || t.isArray() || Modifier.isFinal(t.getModifiers()) || t == Object.class) {
            return false;
        }
        List<Method> cbs = callbackMethods(t);
        if (cbs.isEmpty()) {
            return false;
        }
        for (Method m : cbs) {
            if (!(m.getReturnType() == void.class || m.getReturnType() == boolean.class || onName(m.getName()))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The methods of a callback type that report: an interface's abstract
     * methods (a proxy answers every one); a class's abstract methods and
     * its overridable on* methods.
     */
    static List<Method> callbackMethods(Class<?> t) {
        List<Method> out = new ArrayList<Method>();
        for (Method m : publicMethods(t)) {
            int mod = m.getModifiers();
            if (Modifier.isStatic(mod)) {
                continue;
            }
            if (Modifier.isAbstract(mod) || (!t.isInterface() && !Modifier.isFinal(mod) && onName(m.getName()))) {
                out.add(m);
            }
        }
        return out;
    }

    private static boolean onName(String name) {
        return name.length() > 2 && name.startsWith("on") && Character.isUpperCase(name.charAt(2));
    }

    private static Map<String, Object> listener(Class<?> type, String register) {
        Map<String, Object> l = new LinkedHashMap<String, Object>();
        l.put("type", type.getName());
        l.put("register", register);
        l.put("shim", Boolean.valueOf(SHIMS.containsKey(type.getName())));
        l.put("kind", type.isInterface() ? "interface" : Modifier.isAbstract(type.getModifiers()) ? "abstract" : "class");
        List<Object> callbacks = new ArrayList<Object>();
        if (SHIMS.containsKey(type.getName())) {
            for (String name : SHIMS.get(type.getName())) {
                Map<String, Object> cb = new LinkedHashMap<String, Object>();
                cb.put("name", name);
                cb.put("signature", shimSignature(type, name));
                callbacks.add(cb);
            }
        } else {
            // A proxy answers every interface method; the abstract ones are
            // those an implementation must say something for. A generated
            // shim overrides a class's callback methods.
            for (Method m : callbackMethods(type)) {
                Map<String, Object> cb = new LinkedHashMap<String, Object>();
                cb.put("name", m.getName());
                cb.put("signature", signature(m));
                cb.put("params", names(m.getParameterTypes()));
                cb.put("types", new ParamTypes(m.getParameterTypes()));
                callbacks.add(cb);
            }
        }
        l.put("callbacks", callbacks);
        // A shim is an object of the class's own too: its other public
        // methods (TimerTask.cancel) are callins on it.
        List<Object> callins = new ArrayList<Object>();
        if (SHIMS.containsKey(type.getName())) {
            for (Method m : publicMethods(type)) {
                if (!Modifier.isStatic(m.getModifiers()) && !SHIMS.get(type.getName()).contains(m.getName())) {
                    callins.add(method(m));
                }
            }
        }
        l.put("callins", callins);
        return l;
    }

    /** The signature of the framework method a shim reports as name, or the bare name when the class lacks it. */
    private static String shimSignature(Class<?> type, String name) {
        List<String> found = new ArrayList<String>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                int mod = m.getModifiers();
                if (m.getName().equals(name) && !m.isBridge() && !Modifier.isStatic(mod) && !Modifier.isPrivate(mod)) {
                    String s = signature(m);
                    if (!found.contains(s)) {
                        found.add(s);
                    }
                }
            }
            if (!found.isEmpty()) {
                break;
            }
        }
        Collections.sort(found);
        return found.isEmpty() ? name + "(...)" : join(found, "; ");
    }

    private static Map<String, Object> method(Method m) {
        Map<String, Object> out = new LinkedHashMap<String, Object>();
        out.put("name", m.getName());
        out.put("params", names(m.getParameterTypes()));
        out.put("returns", m.getReturnType().getTypeName());
        out.put("signature", signature(m));
        return out;
    }

    static String signature(Method m) {
        StringBuilder sb = new StringBuilder();
        if (Modifier.isStatic(m.getModifiers())) {
            sb.append("static ");
        }
        sb.append(typeName(m.getReturnType())).append(' ').append(m.getName())
                .append('(').append(join(m.getParameterTypes())).append(')');
        return sb.toString();
    }

    /** A type as Java source writes it, without java.lang. for its own classes. */
    static String typeName(Class<?> t) {
        String n = t.getTypeName();
        if (n.startsWith("java.lang.") && n.indexOf('.', "java.lang.".length()) < 0) {
            return n.substring("java.lang.".length()).replace('$', '.');
        }
        return n.replace('$', '.');
    }

    private static List<Object> names(Class<?>[] types) {
        List<Object> out = new ArrayList<Object>();
        for (Class<?> t : types) {
            out.add(t.getTypeName());
        }
        return out;
    }

    private static String join(Class<?>[] types) {
        List<String> parts = new ArrayList<String>();
        for (Class<?> t : types) {
            parts.add(typeName(t));
        }
        return join(parts, ", ");
    }

    private static String join(List<String> parts, String sep) {
        StringBuilder sb = new StringBuilder();
        for (String p : parts) {
            if (sb.length() > 0) {
                sb.append(sep);
            }
            sb.append(p);
        }
        return sb.toString();
    }

    private static int compareParams(Class<?>[] a, Class<?>[] b) {
        if (a.length != b.length) {
            return a.length < b.length ? -1 : 1;
        }
        return join(a).compareTo(join(b));
    }
}
