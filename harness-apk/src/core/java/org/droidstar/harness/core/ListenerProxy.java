package org.droidstar.harness.core;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * A listener interface implemented with java.lang.reflect.Proxy: every call
 * of an interface method is reported to the sink with its arguments (the
 * detail is String.valueOf of the first argument, unless the purpose's
 * details take another) and returns false, zero or null, or what the
 * purpose's callback says it does (Answers: returns, throws, sleep_ms).
 * equals, hashCode and toString are answered locally (identity).
 */
public final class ListenerProxy implements InvocationHandler {
    private final CallbackSink sink;
    private final long generation;
    private final Class<?> type;
    private final Answers answers;
    /** "NAME." for a named listener, whose calls are reported as NAME.METHOD; else empty. */
    private final String prefix;

    /** What a proxy does once it has reported a call: the purpose's behaviour of that callback. */
    public interface Answers {
        /** The value the call returns (after waiting, or instead of throwing); reported is its name as reported. */
        Object answer(String reported, Method method, String reportedDetail, Object[] args) throws Throwable;
    }

    ListenerProxy(CallbackSink sink, long generation, Class<?> type, Answers answers, String prefix) {
        this.prefix = prefix;
        this.sink = sink;
        this.generation = generation;
        this.type = type;
        this.answers = answers;
    }

    /**
     * A fresh proxy of interface type reporting to sink with generation,
     * defined in loader (the purpose's class loader; the harness's when
     * null), never in the interface's own: a framework interface's loader is
     * Android's boot class loader, which would keep every proxy class for
     * the life of the process and sees none of the purpose's jars.
     */
    public static Object create(Class<?> type, CallbackSink sink, long generation, ClassLoader loader) {
        return create(type, sink, generation, loader, null, "");
    }

    /**
     * As create, with the purpose's answers (null: every call returns
     * false, zero or null), reporting calls as prefix + method.
     */
    public static Object create(Class<?> type, CallbackSink sink, long generation, ClassLoader loader,
            Answers answers, String prefix) {
        if (loader == null) {
            loader = ListenerProxy.class.getClassLoader();
        }
        return Proxy.newProxyInstance(loader, new Class<?>[] {type},
                new ListenerProxy(sink, generation, type, answers, prefix));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        String name = method.getName();
        if (method.getDeclaringClass() == Object.class) {
            if (name.equals("equals")) {
                return Boolean.valueOf(args != null && args.length == 1 && proxy == args[0]);
            }
            if (name.equals("hashCode")) {
                return Integer.valueOf(System.identityHashCode(proxy));
            }
            if (name.equals("toString")) {
                return "droidstar listener " + type.getName() + "@"
                        + Integer.toHexString(System.identityHashCode(proxy));
            }
        }
        return report(sink, generation, answers, prefix + name, method, args);
    }

    /**
     * What a proxy does with a call, once equals, hashCode and toString are
     * answered: reports it to sink as reported (its detail String.valueOf
     * of the first argument), then answers it as answers say (null: false,
     * zero or null). Generated shims call this too (ShimContext.answer), so
     * a shim's call and a proxy's are reported and answered alike.
     */
    static Object report(CallbackSink sink, long generation, Answers answers, String reported, Method method,
            Object[] args) throws Throwable {
        String detail = null;
        if (args != null && args.length > 0) {
            detail = detailOf(args[0]);
        }
        sink.record(generation, reported, detail, args);
        if (answers != null) {
            return answers.answer(reported, method, detail, args);
        }
        return defaultValue(method.getReturnType());
    }

    /** String.valueOf(v), or the class name when the value's toString fails. */
    static String detailOf(Object v) {
        try {
            return String.valueOf(v);
        } catch (RuntimeException e) {
            return v.getClass().getName();
        }
    }

    static Object defaultValue(Class<?> t) {
        if (!t.isPrimitive() || t == void.class) {
            return null;
        }
        if (t == boolean.class) {
            return Boolean.FALSE;
        }
        if (t == char.class) {
            return Character.valueOf('\0');
        }
        if (t == int.class) {
            return Integer.valueOf(0);
        }
        if (t == long.class) {
            return Long.valueOf(0);
        }
        if (t == short.class) {
            return Short.valueOf((short) 0);
        }
        if (t == byte.class) {
            return Byte.valueOf((byte) 0);
        }
        if (t == float.class) {
            return Float.valueOf(0);
        }
        return Double.valueOf(0);
    }
}
