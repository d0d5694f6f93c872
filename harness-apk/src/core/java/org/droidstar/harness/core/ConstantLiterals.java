package org.droidstar.harness.core;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;

/**
 * Values fixed when the purpose is configured: the typed numbers ({"int":
 * N}, {"long": N}, {"float": N}, {"double": N}), which pick an overload a
 * plain number would not, and {"constant": CLASS.FIELD} (or a list of int
 * or long flags to OR together).
 */
final class ConstantLiterals {
    private ConstantLiterals() {
    }

    static Literal parse(String key, Object v, String where, Literal.Scope scope) throws ProtocolError {
        if (key.equals("constant")) {
            return constant(v, where, scope);
        }
        return typed(key, v, where);
    }

    private static Literal typed(String key, Object v, String where) throws ProtocolError {
        String w = where + "." + key;
        if (!(v instanceof Number)) {
            throw Literal.bad(w, "{\"" + key + "\": N} needs a number, not " + Json.typeName(v));
        }
        if (key.equals("int")) {
            if (!(v instanceof Long) || ((Long) v).longValue() != (int) ((Long) v).longValue()) {
                throw Literal.bad(w, v + " is not an int");
            }
            return new PrimitiveLit(where, int.class, Integer.valueOf(((Long) v).intValue()), "{\"int\":" + v + "}");
        }
        if (key.equals("long")) {
            if (!(v instanceof Long)) {
                throw Literal.bad(w, v + " is not a long");
            }
            return new PrimitiveLit(where, long.class, v, "{\"long\":" + v + "}");
        }
        double d = ((Number) v).doubleValue();
        if (key.equals("float")) {
            float f = (float) d;
            if (Float.isInfinite(f)) {
                throw Literal.bad(w, v + " does not fit a float");
            }
            return new PrimitiveLit(where, float.class, Float.valueOf(f), "{\"float\":" + v + "}");
        }
        return new PrimitiveLit(where, double.class, Double.valueOf(d), "{\"double\":" + v + "}");
    }

    private static Literal constant(Object v, String where, Literal.Scope scope) throws ProtocolError {
        String w = where + ".constant";
        if (v instanceof String) {
            Field f = field((String) v, w, scope);
            if (scope.resolveOnly()) {
                Class<?> t = f.getType();
                return t.isPrimitive() ? new PrimitiveLit(where, t, null, (String) v)
                        : new ObjectLit(where, t, null, (String) v, false);
            }
            Object value;
            try {
                value = f.get(null);
            } catch (Exception e) {
                throw Literal.bad(w, "cannot read " + v + ": " + e);
            } catch (LinkageError e) {
                throw Literal.bad(w, "cannot read " + v + ": " + e);
            }
            Class<?> t = f.getType();
            if (t.isPrimitive()) {
                return new PrimitiveLit(where, t, value, (String) v);
            }
            if (t == Object.class && value != null) {
                t = value.getClass();
            }
            return new ObjectLit(where, t, value, (String) v);
        }
        if (!(v instanceof List) || ((List<?>) v).isEmpty()) {
            throw Literal.bad(w, "{\"constant\": ...} needs CLASS.FIELD or a non-empty list of them, not " + Json.typeName(v));
        }
        List<?> names = (List<?>) v;
        long acc = 0;
        boolean isLong = false;
        StringBuilder desc = new StringBuilder();
        for (int i = 0; i < names.size(); i++) {
            Object n = names.get(i);
            String wi = w + "[" + i + "]";
            if (!(n instanceof String)) {
                throw Literal.bad(wi, "a constant is CLASS.FIELD, not " + Json.typeName(n));
            }
            Field f = field((String) n, wi, scope);
            Class<?> t = f.getType();
            if (t != int.class && t != long.class && t != short.class && t != byte.class) {
                throw Literal.bad(wi, n + " is a " + t.getName() + "; only int and long flags can be OR-ed");
            }
            if (!scope.resolveOnly()) {
                try {
                    acc |= ((Number) f.get(null)).longValue();
                } catch (Exception e) {
                    throw Literal.bad(wi, "cannot read " + n + ": " + e);
                }
            }
            if (t == long.class) {
                isLong = true;
            }
            if (i > 0) {
                desc.append('|');
            }
            desc.append(n);
        }
        if (isLong) {
            return new PrimitiveLit(where, long.class, Long.valueOf(acc), desc.toString());
        }
        return new PrimitiveLit(where, int.class, Integer.valueOf((int) acc), desc.toString());
    }

    private static Field field(String name, String where, Literal.Scope scope) throws ProtocolError {
        int dot = name.lastIndexOf('.');
        if (dot <= 0 || dot == name.length() - 1) {
            throw Literal.bad(where, "a constant is CLASS.FIELD, not \"" + name + "\"");
        }
        Class<?> c = scope.loadClass(name.substring(0, dot), where);
        String fieldName = name.substring(dot + 1);
        Field f;
        try {
            f = c.getField(fieldName);
        } catch (NoSuchFieldException e) {
            throw Literal.bad(where, "class " + c.getName() + " has no public field " + fieldName);
        } catch (LinkageError e) {
            throw Literal.bad(where, "cannot load the fields of " + c.getName() + ": " + e);
        }
        if (!Modifier.isStatic(f.getModifiers())) {
            throw Literal.bad(where, name + " is not a static field");
        }
        try {
            f.setAccessible(true);
        } catch (RuntimeException e) {
            // public fields of public classes need no help
        }
        return f;
    }

    /**
     * A value of exactly one primitive type: {"int": N} and friends, or a
     * primitive constant. It passes as that type, its box, or a wider
     * primitive, as Java would pass it.
     */
    static final class PrimitiveLit extends Literal.Typed {
        final Object value;

        PrimitiveLit(String where, Class<?> type, Object value, String desc) {
            super(where, type, desc);
            this.value = value;
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            return Ranking.widen(value, type, param);
        }
    }

    /** A reference value fixed when the purpose is configured (a constant). */
    static final class ObjectLit extends Literal.Typed {
        final Object value;

        ObjectLit(String where, Class<?> type, Object value, String desc) {
            this(where, type, value, desc, true);
        }

        /** read is false when the constant was only resolved, not read: its value is unknown. */
        ObjectLit(String where, Class<?> type, Object value, String desc, boolean read) {
            super(where, type, ranking(type, value, read), desc);
            this.value = value;
        }

        /**
         * Its type's, and an unboxing conversion (an Integer constant to
         * int) unless the value is null; an unread constant may be null,
         * which only a query can tell.
         */
        private static Ranking ranking(Class<?> type, Object value, boolean read) {
            Class<?> p = Ranking.unbox(type);
            return p != null && (value != null || !read) ? Ranking.of(type).at(4, p) : Ranking.of(type);
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            return value;
        }
    }
}
