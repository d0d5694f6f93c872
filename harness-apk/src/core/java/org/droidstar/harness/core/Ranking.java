package org.droidstar.harness.core;

/**
 * Overload ranking: what passing a literal as a parameter of a given type
 * costs (Invocable adds the costs of a call's literals up, and the lowest
 * total wins; two equal totals are ambiguous), or {@link Literal#NO_FIT}.
 * Every literal ranks through one of these, so that the costs, which
 * decide between overloads in every purpose, are written down once.
 *
 * <p>A ranking is a table of the parameter types a literal converts to,
 * each with its cost, followed, for a literal whose value has a Java type,
 * by the rule of that type (Java's own: identity, boxing, widening,
 * subtyping). A plain JSON value has no Java type; its table says which
 * types it stands for, cheapest first, as javac would pick for a literal
 * written in Java.
 */
final class Ranking {
    /** Converts to nothing: the start of a table. */
    static final Ranking NONE = new Ranking(new Class<?>[0], new int[0], false, null);

    private final Class<?>[] types;
    private final int[] costs;
    /** Whether the rule of {@link #type} ranks what the table does not list. */
    private final boolean typed;
    /** The value's Java type; null for the null type. */
    private final Class<?> type;

    private Ranking(Class<?>[] types, int[] costs, boolean typed, Class<?> type) {
        this.types = types;
        this.costs = costs;
        this.typed = typed;
        this.type = type;
    }

    /**
     * The ranking of a value of Java type type: a primitive passes as
     * itself, its box or a wider primitive; a reference as itself or a
     * supertype; null (the null type) as any reference.
     */
    static Ranking of(Class<?> type) {
        return new Ranking(new Class<?>[0], new int[0], true, type);
    }

    /** This ranking, with each of more listed at cost (ahead of the type's rule). */
    Ranking at(int cost, Class<?>... more) {
        Class<?>[] t = new Class<?>[types.length + more.length];
        int[] c = new int[t.length];
        System.arraycopy(types, 0, t, 0, types.length);
        System.arraycopy(costs, 0, c, 0, costs.length);
        for (int i = 0; i < more.length; i++) {
            t[types.length + i] = more[i];
            c[types.length + i] = cost;
        }
        return new Ranking(t, c, typed, type);
    }

    int cost(Class<?> param) {
        for (int i = 0; i < types.length; i++) {
            if (types[i] == param) {
                return costs[i];
            }
        }
        if (!typed) {
            return Literal.NO_FIT;
        }
        if (type == null) {
            return param.isPrimitive() ? Literal.NO_FIT : 1;
        }
        return type.isPrimitive() ? primitive(param, type) : reference(param, type);
    }

    /** Passing a value of primitive type t, as Java would (boxing before widening to a reference). */
    private static int primitive(Class<?> param, Class<?> t) {
        if (param == t) {
            return 0;
        }
        Class<?> b = box(t);
        if (param == b) {
            return 1;
        }
        int w = widening(t, param);
        if (w >= 0) {
            return 2 + w;
        }
        if (!param.isPrimitive() && param.isAssignableFrom(b)) {
            return param == Object.class ? 12 : 10;
        }
        return Literal.NO_FIT;
    }

    /** Passing a reference of static type t: the nearer the supertype, the cheaper. */
    private static int reference(Class<?> param, Class<?> t) {
        if (param.isPrimitive()) {
            return Literal.NO_FIT;
        }
        if (param == t) {
            return 0;
        }
        if (!param.isAssignableFrom(t)) {
            return Literal.NO_FIT;
        }
        if (param == Object.class) {
            return 3;
        }
        return param.isInterface() ? 2 : 1;
    }

    // ---------------------------------------------------------------- conversions

    /** The box of a primitive type; any other type itself (null too). */
    static Class<?> box(Class<?> p) {
        if (p == int.class) {
            return Integer.class;
        }
        if (p == long.class) {
            return Long.class;
        }
        if (p == boolean.class) {
            return Boolean.class;
        }
        if (p == double.class) {
            return Double.class;
        }
        if (p == float.class) {
            return Float.class;
        }
        if (p == char.class) {
            return Character.class;
        }
        if (p == short.class) {
            return Short.class;
        }
        if (p == byte.class) {
            return Byte.class;
        }
        return p;
    }

    private static final Class<?>[] PRIMITIVES = {int.class, long.class, boolean.class, double.class, float.class,
        char.class, short.class, byte.class};

    /** The primitive type whose box b is, or null. */
    static Class<?> unbox(Class<?> b) {
        for (Class<?> p : PRIMITIVES) {
            if (box(p) == b) {
                return p;
            }
        }
        return null;
    }

    /** Java's widening primitive conversions: the rank of to among the targets of from, or -1. */
    static int widening(Class<?> from, Class<?> to) {
        Class<?>[] order;
        if (from == byte.class) {
            order = new Class<?>[] {short.class, int.class, long.class, float.class, double.class};
        } else if (from == short.class || from == char.class) {
            order = new Class<?>[] {int.class, long.class, float.class, double.class};
        } else if (from == int.class) {
            order = new Class<?>[] {long.class, float.class, double.class};
        } else if (from == long.class) {
            order = new Class<?>[] {float.class, double.class};
        } else if (from == float.class) {
            order = new Class<?>[] {double.class};
        } else {
            return -1;
        }
        for (int i = 0; i < order.length; i++) {
            if (order[i] == to) {
                return i;
            }
        }
        return -1;
    }

    /**
     * A value of Java type type as the parameter type param it was ranked
     * for. A wider primitive is made here rather than left to reflection,
     * which widens a call's arguments but not what a proxy returns.
     */
    static Object widen(Object v, Class<?> type, Class<?> param) {
        if (param.isPrimitive() && type.isPrimitive() && param != type) {
            return convertNumber(v instanceof Character ? (Number) Integer.valueOf(((Character) v).charValue())
                    : (Number) v, param);
        }
        return v;
    }

    /** Converts a number to the primitive (or boxed) type p. */
    static Object convertNumber(Number n, Class<?> p) {
        Class<?> b = box(p);
        if (b == Integer.class) {
            return Integer.valueOf(n.intValue());
        }
        if (b == Long.class) {
            return Long.valueOf(n.longValue());
        }
        if (b == Float.class) {
            return Float.valueOf(n.floatValue());
        }
        if (b == Double.class) {
            return Double.valueOf(n.doubleValue());
        }
        if (b == Short.class) {
            return Short.valueOf(n.shortValue());
        }
        if (b == Byte.class) {
            return Byte.valueOf(n.byteValue());
        }
        return n;
    }
}
