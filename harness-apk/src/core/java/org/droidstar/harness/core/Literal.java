package org.droidstar.harness.core;

import java.io.File;
import java.io.Serializable;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;

/**
 * An argument literal of a purpose (PROTOCOL.md), checked when the purpose
 * is configured. A literal says how well it fits a parameter type (the cost
 * that overload resolution adds up; -1 when it does not fit) and gives its
 * value for a parameter type in a query.
 */
public abstract class Literal {
    /** The keys of object literals, in the order messages list them. */
    static final List<String> KINDS = PurposeFields.keys("file", "path", "listener", "target", "context", "constant",
            "new", "call", "result", "int", "long", "float", "double", "string");
    private static final String KIND_NAMES = PurposeFields.names(KINDS);

    /** The cost of a fit that the literal does not allow. */
    public static final int NO_FIT = -1;

    final String where;

    Literal(String where) {
        this.where = where;
    }

    /** How well the literal fits a parameter of type param; NO_FIT when it cannot be converted. */
    public abstract int cost(Class<?> param);

    /** The value passed for a parameter of type param. */
    public abstract Object value(Class<?> param, Instances q) throws Exception;

    /** The type methods are looked up on when the literal is a receiver ("on"); null when unknown. */
    public abstract Class<?> staticType();

    /** A short description for error messages. */
    public abstract String describe();

    /** What a literal may refer to while it is being checked. */
    public interface Scope {
        Class<?> loadClass(String name, String where) throws ProtocolError;

        /** The lookup class of a declared listener type (its shim, or the interface); null when not declared. */
        Class<?> listenerType(String name);

        /** The lookup class of the instance under test; null where a target literal is not allowed. */
        Class<?> targetType();

        /** The class of the platform's context, or null when there is none. */
        Class<?> contextType();

        /**
         * What the callin symbol, declared before the literal, returns: the
         * static type of a {"result": SYMBOL} literal. Throws when there is no
         * such callin or it returns nothing.
         */
        Class<?> resultType(String symbol, String where) throws ProtocolError;

        /**
         * Whether the purpose is only being resolved (Configuration.resolve):
         * then a constant is not read, since reading a static field runs its
         * class's static initialiser.
         */
        boolean resolveOnly();
    }

    // ---------------------------------------------------------------- parsing

    /** Reads a literal from its JSON form; where is its path for errors. */
    public static Literal parse(Object json, String where, Scope scope) throws ProtocolError {
        if (json == null) {
            return new NullLit(where, null);
        }
        if (json instanceof String) {
            return new StringLit(where, (String) json);
        }
        if (json instanceof Boolean) {
            return new BoolLit(where, ((Boolean) json).booleanValue());
        }
        if (json instanceof Long) {
            return new IntegerLit(where, ((Long) json).longValue());
        }
        if (json instanceof Double) {
            return new DoubleLit(where, ((Double) json).doubleValue());
        }
        if (json instanceof List) {
            throw bad(where, "an argument literal cannot be an array (a list of constants is written {\"constant\":[...]})");
        }
        Map<?, ?> m = (Map<?, ?>) json;
        if (m.size() != 1) {
            throw bad(where, "an object literal has exactly one key (" + KIND_NAMES + "), not "
                    + m.size());
        }
        String key = (String) m.keySet().iterator().next();
        Object v = m.get(key);
        if (key.equals("file")) {
            if (!(v instanceof String) || ((String) v).isEmpty()) {
                throw bad(where + ".file", "{\"file\": NAME} needs a file name, not "
                        + (v instanceof String ? "an empty string" : Json.typeName(v)));
            }
            try {
                EnvAction.checkRelative((String) v, where + ".file");
            } catch (ProtocolError e) {
                throw bad(e.where(), e.getMessage());
            }
            return new FileLit(where, (String) v);
        }
        if (key.equals("path")) {
            if (!(v instanceof String) || ((String) v).isEmpty()) {
                throw bad(where + ".path", "{\"path\": NAME} needs a file name, not "
                        + (v instanceof String ? "an empty string" : Json.typeName(v)));
            }
            try {
                EnvAction.checkRelative((String) v, where + ".path");
            } catch (ProtocolError e) {
                throw bad(e.where(), e.getMessage());
            }
            return PathLit.make(where, (String) v);
        }
        if (key.equals("new") || key.equals("call")) {
            return MadeLit.parse(key, v, where, scope);
        }
        if (key.equals("result")) {
            if (!(v instanceof String) || ((String) v).isEmpty()) {
                throw bad(where + ".result", "{\"result\": SYMBOL} needs the symbol of an earlier callin, not "
                        + (v instanceof String ? "an empty string" : Json.typeName(v)));
            }
            return new ResultLit(where, (String) v, scope.resultType((String) v, where + ".result"));
        }
        if (key.equals("listener")) {
            if (!(v instanceof String)) {
                throw bad(where + ".listener", "{\"listener\": TYPE} needs a type name, not " + Json.typeName(v));
            }
            Class<?> t = scope.listenerType((String) v);
            if (t == null) {
                throw new ProtocolError(ProtocolError.UNKNOWN_LISTENER, where,
                        "no listener of type " + v + " is declared in listeners");
            }
            return new ListenerLit(where, (String) v, t);
        }
        if (key.equals("target")) {
            if (!Boolean.TRUE.equals(v)) {
                throw bad(where + ".target", "write {\"target\": true}");
            }
            Class<?> t = scope.targetType();
            if (t == null) {
                throw bad(where, "the instance under test does not exist yet where {\"target\": true} is used");
            }
            return new TargetLit(where, t);
        }
        if (key.equals("context")) {
            if (!Boolean.TRUE.equals(v)) {
                throw bad(where + ".context", "write {\"context\": true}");
            }
            return new ContextLit(where, scope.contextType());
        }
        if (key.equals("constant")) {
            return constant(v, where, scope);
        }
        if (key.equals("string")) {
            if (!(v instanceof String)) {
                throw bad(where + ".string", "{\"string\": S} needs a string, not " + Json.typeName(v));
            }
            return new StringLit(where, (String) v);
        }
        if (key.equals("int") || key.equals("long") || key.equals("float") || key.equals("double")) {
            return typed(key, v, where);
        }
        throw bad(where, "unknown literal {\"" + key + "\": ...} (" + KIND_NAMES + ")");
    }

    static ProtocolError bad(String where, String message) {
        return new ProtocolError(ProtocolError.BAD_ARGUMENT, where, message);
    }

    private static Literal typed(String key, Object v, String where) throws ProtocolError {
        String w = where + "." + key;
        if (!(v instanceof Number)) {
            throw bad(w, "{\"" + key + "\": N} needs a number, not " + Json.typeName(v));
        }
        if (key.equals("int")) {
            if (!(v instanceof Long) || ((Long) v).longValue() != (int) ((Long) v).longValue()) {
                throw bad(w, v + " is not an int");
            }
            return new PrimitiveLit(where, int.class, Integer.valueOf(((Long) v).intValue()), "{\"int\":" + v + "}");
        }
        if (key.equals("long")) {
            if (!(v instanceof Long)) {
                throw bad(w, v + " is not a long");
            }
            return new PrimitiveLit(where, long.class, v, "{\"long\":" + v + "}");
        }
        double d = ((Number) v).doubleValue();
        if (key.equals("float")) {
            float f = (float) d;
            if (Float.isInfinite(f)) {
                throw bad(w, v + " does not fit a float");
            }
            return new PrimitiveLit(where, float.class, Float.valueOf(f), "{\"float\":" + v + "}");
        }
        return new PrimitiveLit(where, double.class, Double.valueOf(d), "{\"double\":" + v + "}");
    }

    private static Literal constant(Object v, String where, Scope scope) throws ProtocolError {
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
                throw bad(w, "cannot read " + v + ": " + e);
            } catch (LinkageError e) {
                throw bad(w, "cannot read " + v + ": " + e);
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
            throw bad(w, "{\"constant\": ...} needs CLASS.FIELD or a non-empty list of them, not " + Json.typeName(v));
        }
        List<?> names = (List<?>) v;
        long acc = 0;
        boolean isLong = false;
        StringBuilder desc = new StringBuilder();
        for (int i = 0; i < names.size(); i++) {
            Object n = names.get(i);
            String wi = w + "[" + i + "]";
            if (!(n instanceof String)) {
                throw bad(wi, "a constant is CLASS.FIELD, not " + Json.typeName(n));
            }
            Field f = field((String) n, wi, scope);
            Class<?> t = f.getType();
            if (t != int.class && t != long.class && t != short.class && t != byte.class) {
                throw bad(wi, n + " is a " + t.getName() + "; only int and long flags can be OR-ed");
            }
            if (!scope.resolveOnly()) {
                try {
                    acc |= ((Number) f.get(null)).longValue();
                } catch (Exception e) {
                    throw bad(wi, "cannot read " + n + ": " + e);
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

    private static Field field(String name, String where, Scope scope) throws ProtocolError {
        int dot = name.lastIndexOf('.');
        if (dot <= 0 || dot == name.length() - 1) {
            throw bad(where, "a constant is CLASS.FIELD, not \"" + name + "\"");
        }
        Class<?> c = scope.loadClass(name.substring(0, dot), where);
        String fieldName = name.substring(dot + 1);
        Field f;
        try {
            f = c.getField(fieldName);
        } catch (NoSuchFieldException e) {
            throw bad(where, "class " + c.getName() + " has no public field " + fieldName);
        } catch (LinkageError e) {
            throw bad(where, "cannot load the fields of " + c.getName() + ": " + e);
        }
        if (!Modifier.isStatic(f.getModifiers())) {
            throw bad(where, name + " is not a static field");
        }
        try {
            f.setAccessible(true);
        } catch (RuntimeException e) {
            // public fields of public classes need no help
        }
        return f;
    }

    // ---------------------------------------------------------------- costs

    /** The cost of passing a reference of static type t as param. */
    static int refCost(Class<?> param, Class<?> t) {
        if (param.isPrimitive()) {
            return NO_FIT;
        }
        if (param == t) {
            return 0;
        }
        if (!param.isAssignableFrom(t)) {
            return NO_FIT;
        }
        if (param == Object.class) {
            return 3;
        }
        return param.isInterface() ? 2 : 1;
    }

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

    // ---------------------------------------------------------------- kinds

    static final class NullLit extends Literal {
        private final Class<?> type;

        NullLit(String where, Class<?> type) {
            super(where);
            this.type = type;
        }

        @Override
        public int cost(Class<?> param) {
            return param.isPrimitive() ? NO_FIT : 1;
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            return null;
        }

        @Override
        public Class<?> staticType() {
            return type;
        }

        @Override
        public String describe() {
            return "null";
        }
    }

    static final class StringLit extends Literal {
        final String s;

        StringLit(String where, String s) {
            super(where);
            this.s = s;
        }

        @Override
        public int cost(Class<?> param) {
            if (param == String.class) {
                return 0;
            }
            if (param == CharSequence.class || param == Comparable.class || param == Serializable.class) {
                return 2;
            }
            if (param == Object.class) {
                return 3;
            }
            if ((param == char.class || param == Character.class) && s.length() == 1) {
                return param == char.class ? 4 : 5;
            }
            return NO_FIT;
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            if (param == char.class || param == Character.class) {
                return Character.valueOf(s.charAt(0));
            }
            return s;
        }

        @Override
        public Class<?> staticType() {
            return String.class;
        }

        @Override
        public String describe() {
            StringBuilder sb = new StringBuilder();
            Json.quote(sb, s);
            return sb.toString();
        }
    }

    static final class BoolLit extends Literal {
        final boolean b;

        BoolLit(String where, boolean b) {
            super(where);
            this.b = b;
        }

        @Override
        public int cost(Class<?> param) {
            if (param == boolean.class) {
                return 0;
            }
            if (param == Boolean.class) {
                return 1;
            }
            if (param == Serializable.class || param == Comparable.class) {
                return 2;
            }
            return param == Object.class ? 3 : NO_FIT;
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            return Boolean.valueOf(b);
        }

        @Override
        public Class<?> staticType() {
            return Boolean.class;
        }

        @Override
        public String describe() {
            return Boolean.toString(b);
        }
    }

    /** A plain JSON integer: any numeric type it fits, Java's int preferred. */
    static final class IntegerLit extends Literal {
        final long v;

        IntegerLit(String where, long v) {
            super(where);
            this.v = v;
        }

        private boolean fitsInt() {
            return v == (int) v;
        }

        @Override
        public int cost(Class<?> param) {
            if (param == int.class) {
                return fitsInt() ? 0 : NO_FIT;
            }
            if (param == long.class) {
                return 1;
            }
            if (param == float.class) {
                return 2;
            }
            if (param == double.class) {
                return 3;
            }
            if (param == Integer.class) {
                return fitsInt() ? 4 : NO_FIT;
            }
            if (param == Long.class) {
                return 5;
            }
            if (param == Float.class) {
                return 6;
            }
            if (param == Double.class) {
                return 7;
            }
            if (param == short.class || param == Short.class) {
                return v == (short) v ? (param == short.class ? 8 : 9) : NO_FIT;
            }
            if (param == byte.class || param == Byte.class) {
                return v == (byte) v ? (param == byte.class ? 10 : 11) : NO_FIT;
            }
            if (param == Number.class || param == Serializable.class || param == Comparable.class) {
                return 12;
            }
            if (param == Object.class) {
                return 13;
            }
            return NO_FIT;
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            if (param == Object.class || param == Number.class || param == Serializable.class
                    || param == Comparable.class) {
                return fitsInt() ? (Object) Integer.valueOf((int) v) : (Object) Long.valueOf(v);
            }
            return convertNumber(Long.valueOf(v), param);
        }

        @Override
        public Class<?> staticType() {
            return fitsInt() ? Integer.class : Long.class;
        }

        @Override
        public String describe() {
            return Long.toString(v);
        }
    }

    /** A plain JSON number with a fraction or an exponent: double preferred, float when it fits. */
    static final class DoubleLit extends Literal {
        final double v;

        DoubleLit(String where, double v) {
            super(where);
            this.v = v;
        }

        @Override
        public int cost(Class<?> param) {
            if (param == double.class) {
                return 0;
            }
            if (param == float.class) {
                return Float.isInfinite((float) v) ? NO_FIT : 1;
            }
            if (param == Double.class) {
                return 2;
            }
            if (param == Float.class) {
                return Float.isInfinite((float) v) ? NO_FIT : 3;
            }
            if (param == Number.class || param == Serializable.class || param == Comparable.class) {
                return 4;
            }
            return param == Object.class ? 5 : NO_FIT;
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            if (param == float.class || param == Float.class) {
                return Float.valueOf((float) v);
            }
            return Double.valueOf(v);
        }

        @Override
        public Class<?> staticType() {
            return Double.class;
        }

        @Override
        public String describe() {
            return Double.toString(v);
        }
    }

    /**
     * A value of exactly one primitive type: {"int": N} and friends, or a
     * primitive constant. It passes as that type, its box, or a wider
     * primitive, as Java would pass it.
     */
    static final class PrimitiveLit extends Literal {
        final Class<?> type;
        final Object value;
        final String desc;

        PrimitiveLit(String where, Class<?> type, Object value, String desc) {
            super(where);
            this.type = type;
            this.value = value;
            this.desc = desc;
        }

        @Override
        public int cost(Class<?> param) {
            if (param == type) {
                return 0;
            }
            Class<?> b = box(type);
            if (param == b) {
                return 1;
            }
            int w = widening(type, param);
            if (w >= 0) {
                return 2 + w;
            }
            if (!param.isPrimitive() && param.isAssignableFrom(b)) {
                return param == Object.class ? 12 : 10;
            }
            return NO_FIT;
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            if (param.isPrimitive() && param != type) {
                // a widening primitive conversion
                Number n = value instanceof Character ? (Number) Integer.valueOf(((Character) value).charValue())
                        : (Number) value;
                return convertNumber(n, param);
            }
            return value;
        }

        @Override
        public Class<?> staticType() {
            return box(type);
        }

        @Override
        public String describe() {
            return desc;
        }
    }

    /** A reference value fixed when the purpose is configured (a constant). */
    static final class ObjectLit extends Literal {
        final Class<?> type;
        final Object value;
        final String desc;
        /** False when the constant was only resolved, not read: its value is unknown. */
        final boolean read;

        ObjectLit(String where, Class<?> type, Object value, String desc) {
            this(where, type, value, desc, true);
        }

        ObjectLit(String where, Class<?> type, Object value, String desc, boolean read) {
            super(where);
            this.type = type;
            this.value = value;
            this.desc = desc;
            this.read = read;
        }

        @Override
        public int cost(Class<?> param) {
            if (param.isPrimitive()) {
                // an unboxing conversion (Integer constant to int); an unread
                // constant may be null, which only a query can tell
                return box(param) == type && (value != null || !read) ? 4 : NO_FIT;
            }
            return refCost(param, type);
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            return value;
        }

        @Override
        public Class<?> staticType() {
            return type;
        }

        @Override
        public String describe() {
            return desc;
        }
    }

    /** {"file": NAME}: an absolute path as a String, or a File where the parameter wants one. */
    static final class FileLit extends Literal {
        final String name;

        FileLit(String where, String name) {
            super(where);
            this.name = name;
        }

        @Override
        public int cost(Class<?> param) {
            if (param == String.class) {
                return 0;
            }
            if (param == File.class) {
                return 1;
            }
            if (param == CharSequence.class || param == Comparable.class || param == Serializable.class) {
                return 2;
            }
            return param == Object.class ? 3 : NO_FIT;
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            File f = new File(q.filesDir, name);
            if (param == File.class) {
                return f;
            }
            return f.getAbsolutePath();
        }

        @Override
        public Class<?> staticType() {
            return String.class;
        }

        @Override
        public String describe() {
            return "{\"file\":\"" + name + "\"}";
        }
    }

    static final class ListenerLit extends Literal {
        final String typeName;
        final Class<?> type;

        ListenerLit(String where, String typeName, Class<?> type) {
            super(where);
            this.typeName = typeName;
            this.type = type;
        }

        @Override
        public int cost(Class<?> param) {
            return refCost(param, type);
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            return q.listener(typeName);
        }

        @Override
        public Class<?> staticType() {
            return type;
        }

        @Override
        public String describe() {
            return "{\"listener\":\"" + typeName + "\"}";
        }
    }

    static final class TargetLit extends Literal {
        final Class<?> type;

        TargetLit(String where, Class<?> type) {
            super(where);
            this.type = type;
        }

        @Override
        public int cost(Class<?> param) {
            return refCost(param, type);
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            return q.target();
        }

        @Override
        public Class<?> staticType() {
            return type;
        }

        @Override
        public String describe() {
            return "{\"target\":true}";
        }
    }

    static final class ContextLit extends Literal {
        final Class<?> type;

        ContextLit(String where, Class<?> type) {
            super(where);
            this.type = type;
        }

        @Override
        public int cost(Class<?> param) {
            if (type == null) {
                return param.isPrimitive() ? NO_FIT : 1;
            }
            return refCost(param, type);
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            return q.context;
        }

        @Override
        public Class<?> staticType() {
            return type;
        }

        @Override
        public String describe() {
            return "{\"context\":true}";
        }
    }

    /**
     * {"path": NAME}: a java.nio.file.Path to NAME in the files directory.
     * java.nio.file is looked up by name: Android has it from API 26 on,
     * and the harness is built against API 23.
     */
    static final class PathLit extends Literal {
        final String name;
        final Class<?> type;
        final java.lang.reflect.Method toPath;

        private PathLit(String where, String name, Class<?> type, java.lang.reflect.Method toPath) {
            super(where);
            this.name = name;
            this.type = type;
            this.toPath = toPath;
        }

        static PathLit make(String where, String name) throws ProtocolError {
            try {
                Class<?> type = Class.forName("java.nio.file.Path");
                return new PathLit(where, name, type, File.class.getMethod("toPath"));
            } catch (ClassNotFoundException e) {
                throw bad(where + ".path", "this platform has no java.nio.file.Path (Android has it from 8.0, API 26): "
                        + "write {\"file\": \"" + name + "\"} for a String or a java.io.File");
            } catch (NoSuchMethodException e) {
                throw bad(where + ".path", "this platform has no java.io.File.toPath(): " + e);
            }
        }

        @Override
        public int cost(Class<?> param) {
            return refCost(param, type);
        }

        @Override
        public Object value(Class<?> param, Instances q) throws Exception {
            return Invocable.unwrap(toPath, new File(q.filesDir, name), new Object[0]);
        }

        @Override
        public Class<?> staticType() {
            return type;
        }

        @Override
        public String describe() {
            return "{\"path\":\"" + name + "\"}";
        }
    }

    /**
     * {"new": [CLASS, ARGS...]} and {"call": [CLASS, METHOD, ARGS...]}: an
     * object made by a constructor or a static method, afresh each time the
     * literal is used (every query gets its own ByteBuffer), so that no
     * query sees what an earlier one did to it.
     */
    static final class MadeLit extends Literal {
        final Invocable.Choice choice;
        final Class<?> type;
        final String desc;

        private MadeLit(String where, Invocable.Choice choice, String desc) {
            super(where);
            this.choice = choice;
            this.type = choice.returnType();
            this.desc = desc;
        }

        static MadeLit parse(String key, Object v, String where, Scope scope) throws ProtocolError {
            boolean isNew = key.equals("new");
            String w = where + "." + key;
            String shape = isNew ? "{\"new\": [CLASS, ARGS...]}" : "{\"call\": [CLASS, METHOD, ARGS...]}";
            int names = isNew ? 1 : 2;
            if (!(v instanceof List)) {
                throw bad(w, shape + " needs an array, not " + Json.typeName(v));
            }
            List<?> l = (List<?>) v;
            if (l.size() < names) {
                throw bad(w, shape + " needs " + (isNew ? "a class name" : "a class and a method name")
                        + " first, not an array of " + l.size());
            }
            for (int i = 0; i < names; i++) {
                if (!(l.get(i) instanceof String) || ((String) l.get(i)).isEmpty()) {
                    throw bad(w + "[" + i + "]", shape + " needs " + (i == 0 ? "a class name" : "a method name")
                            + " here, not " + (l.get(i) instanceof String ? "an empty string" : Json.typeName(l.get(i))));
                }
            }
            Class<?> c = scope.loadClass((String) l.get(0), w + "[0]");
            List<Literal> args = new java.util.ArrayList<Literal>();
            for (int i = names; i < l.size(); i++) {
                args.add(parse(l.get(i), w + "[" + i + "]", scope));
            }
            Invocable.Choice choice;
            StringBuilder desc = new StringBuilder("{\"").append(key).append("\":[\"").append(l.get(0)).append('"');
            if (!isNew) {
                desc.append(",\"").append(l.get(1)).append('"');
            }
            for (Literal a : args) {
                desc.append(',').append(a.describe());
            }
            desc.append("]}");
            String owner = (c.isInterface() ? "interface " : "class ") + c.getName();
            if (isNew) {
                if (c.isInterface() || Modifier.isAbstract(c.getModifiers())) {
                    throw bad(w + "[0]", c.getName() + " is " + (c.isInterface() ? "an interface" : "abstract")
                            + " and cannot be made with new: give {\"call\": [CLASS, METHOD, ...]} of a factory");
                }
                choice = Invocable.choose(Invocable.constructors(c, false), args, owner, "new " + c.getName(),
                        w + "[0]");
            } else {
                choice = Invocable.choose(Invocable.methods(c, (String) l.get(1), true), args, owner,
                        (String) l.get(1), w + "[1]");
                if (choice.returnType() == void.class) {
                    throw bad(w + "[1]", choice.describe() + " returns nothing: there is no value to pass");
                }
            }
            return new MadeLit(where, choice, desc.toString());
        }

        @Override
        public int cost(Class<?> param) {
            if (type.isPrimitive()) {
                return new PrimitiveLit(where, type, null, desc).cost(param);
            }
            return refCost(param, type);
        }

        @Override
        public Object value(Class<?> param, Instances q) throws Exception {
            Object v = choice.call(null, null, q);
            if (param.isPrimitive() && type.isPrimitive() && param != type) {
                return convertNumber(v instanceof Character ? (Number) Integer.valueOf(((Character) v).charValue())
                        : (Number) v, param);
            }
            return v;
        }

        @Override
        public Class<?> staticType() {
            return type.isPrimitive() ? box(type) : type;
        }

        @Override
        public String describe() {
            return desc;
        }
    }

    /**
     * {"result": SYMBOL}: what the callin SYMBOL last returned in this query
     * (a bound port, a session), so that one callin can hand another an
     * object the purpose cannot write down.
     */
    static final class ResultLit extends Literal {
        final String symbol;
        final Class<?> type;

        ResultLit(String where, String symbol, Class<?> type) {
            super(where);
            this.symbol = symbol;
            this.type = type;
        }

        @Override
        public int cost(Class<?> param) {
            if (type.isPrimitive()) {
                return new PrimitiveLit(where, type, null, symbol).cost(param);
            }
            return refCost(param, type);
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            if (!q.results.containsKey(symbol)) {
                throw new IllegalStateException("callin " + symbol + " has not returned in this query, so "
                        + describe() + " has no value yet");
            }
            Object v = q.results.get(symbol);
            if (param.isPrimitive() && type.isPrimitive() && param != type) {
                return convertNumber(v instanceof Character ? (Number) Integer.valueOf(((Character) v).charValue())
                        : (Number) v, param);
            }
            return v;
        }

        @Override
        public Class<?> staticType() {
            return type.isPrimitive() ? box(type) : type;
        }

        @Override
        public String describe() {
            return "{\"result\":\"" + symbol + "\"}";
        }
    }
}
