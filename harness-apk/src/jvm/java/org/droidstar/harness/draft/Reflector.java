package org.droidstar.harness.draft;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.droidstar.harness.jvm.JvmShims;

/**
 * Reads what a purpose draft needs from a class by reflection: its public
 * constructors and static factories, its public instance methods (the
 * candidate callins), and the callback objects it takes (listener
 * interfaces registered through setOn*Listener, add*Listener or
 * register* methods, and the abstract classes the harness has shims for,
 * wherever a public method takes one). Nothing of the class runs: it is
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
            if (ps.length == 1 && isRegistration(m.getName()) && callbackType(ps[0])) {
                Map<String, Object> l = listeners.get(ps[0].getName());
                if (l == null) {
                    listeners.put(ps[0].getName(), listener(ps[0], m.getName()));
                }
                continue;
            }
            for (Class<?> p : ps) {
                if (SHIMS.containsKey(p.getName()) && !listeners.containsKey(p.getName())) {
                    listeners.put(p.getName(), listener(p, null));
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
        return out;
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

    /** Whether a method name registers a callback object. */
    static boolean isRegistration(String name) {
        return (name.startsWith("setOn") && name.endsWith("Listener"))
                || (name.startsWith("add") && name.endsWith("Listener"))
                || name.startsWith("register");
    }

    /** Whether the harness can make a callback object of type t: an interface, or a class it has a shim for. */
    static boolean callbackType(Class<?> t) {
        return t.isInterface() || SHIMS.containsKey(t.getName());
    }

    private static Map<String, Object> listener(Class<?> type, String register) {
        Map<String, Object> l = new LinkedHashMap<String, Object>();
        l.put("type", type.getName());
        l.put("register", register);
        l.put("shim", Boolean.valueOf(SHIMS.containsKey(type.getName())));
        List<Object> callbacks = new ArrayList<Object>();
        if (SHIMS.containsKey(type.getName())) {
            for (String name : SHIMS.get(type.getName())) {
                Map<String, Object> cb = new LinkedHashMap<String, Object>();
                cb.put("name", name);
                cb.put("signature", shimSignature(type, name));
                callbacks.add(cb);
            }
        } else {
            for (Method m : publicMethods(type)) {
                // A proxy answers every interface method; the abstract
                // ones are those an implementation must say something for.
                if (Modifier.isAbstract(m.getModifiers())) {
                    Map<String, Object> cb = new LinkedHashMap<String, Object>();
                    cb.put("name", m.getName());
                    cb.put("signature", signature(m));
                    callbacks.add(cb);
                }
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
            return n.substring("java.lang.".length());
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
