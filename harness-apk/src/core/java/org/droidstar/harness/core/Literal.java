package org.droidstar.harness.core;

import java.util.List;
import java.util.Map;

/**
 * An argument literal of a purpose (PROTOCOL.md), checked when the purpose
 * is configured. A literal says how well it fits a parameter type (the cost
 * that overload resolution adds up; -1 when it does not fit) and gives its
 * value for a parameter type in a query.
 *
 * <p>The kinds live with their families, so that each family's parsing,
 * messages and values read together: ScalarLiterals (what JSON writes
 * itself, and {"string"}), ConstantLiterals ({"int"} and the other typed
 * numbers, {"constant"}), FileLiterals ({"file"}, {"path"}),
 * InstanceLiterals (the query's own objects: {"listener"}, {"target"},
 * {"context"}, {"result"}, {"callback"}) and MadeLiterals ({"new"}, {"call"}). Every
 * kind ranks through a {@link Ranking}, the one place the costs are
 * written.
 */
public abstract class Literal {
    /** The keys of object literals, in the order messages list them. */
    static final List<String> KINDS = PurposeFields.keys("file", "path", "listener", "target", "context", "constant",
            "new", "call", "result", "callback", "int", "long", "float", "double", "string");
    private static final String KIND_NAMES = PurposeFields.names(KINDS);

    /** The cost of a fit that the literal does not allow. */
    public static final int NO_FIT = -1;

    final String where;
    private final Ranking ranking;
    private final Class<?> staticType;
    private final String description;

    Literal(String where, Ranking ranking, Class<?> staticType, String description) {
        this.where = where;
        this.ranking = ranking;
        this.staticType = staticType;
        this.description = description;
    }

    /** How well the literal fits a parameter of type param; NO_FIT when it cannot be converted. */
    public final int cost(Class<?> param) {
        return ranking.cost(param);
    }

    /** The value passed for a parameter of type param. */
    public abstract Object value(Class<?> param, Instances q) throws Exception;

    /** The type methods are looked up on when the literal is a receiver ("on"); null when unknown. */
    public final Class<?> staticType() {
        return staticType;
    }

    /** A short description for error messages. */
    public final String describe() {
        return description;
    }

    /**
     * A literal whose value has a Java type, known when the purpose is
     * resolved (null for the null literal, and for the context where the
     * platform has none): it ranks and is looked up as that type.
     */
    abstract static class Typed extends Literal {
        final Class<?> type;

        Typed(String where, Class<?> type, String description) {
            this(where, type, Ranking.of(type), description);
        }

        Typed(String where, Class<?> type, Ranking ranking, String description) {
            super(where, ranking, Ranking.box(type), description);
            this.type = type;
        }
    }

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
         * The type of argument arg of the listener method a {"callback":
         * [METHOD, N]} literal names (METHOD as its calls are reported:
         * NAME.METHOD for a named listener's): the parameter type of that
         * method, which must be one. Throws where the literal may not stand
         * (before any wait of a query can have delivered a callback), or when
         * no listener or shim has the method, or its methods of that name
         * differ in the argument's type or do not have it.
         */
        Class<?> callbackArgType(String method, int arg, String where) throws ProtocolError;

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
            return new ScalarLiterals.NullLit(where);
        }
        if (json instanceof String) {
            return new ScalarLiterals.StringLit(where, (String) json);
        }
        if (json instanceof Boolean) {
            return new ScalarLiterals.BoolLit(where, ((Boolean) json).booleanValue());
        }
        if (json instanceof Long) {
            return new ScalarLiterals.IntegerLit(where, ((Long) json).longValue());
        }
        if (json instanceof Double) {
            return new ScalarLiterals.DoubleLit(where, ((Double) json).doubleValue());
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
        if (key.equals("file") || key.equals("path")) {
            return FileLiterals.parse(key, v, where);
        }
        if (key.equals("listener") || key.equals("target") || key.equals("context") || key.equals("result")
                || key.equals("callback")) {
            return InstanceLiterals.parse(key, v, where, scope);
        }
        if (key.equals("constant") || key.equals("int") || key.equals("long") || key.equals("float")
                || key.equals("double")) {
            return ConstantLiterals.parse(key, v, where, scope);
        }
        if (key.equals("new") || key.equals("call")) {
            return MadeLiterals.parse(key, v, where, scope);
        }
        if (key.equals("string")) {
            return ScalarLiterals.string(v, where);
        }
        throw bad(where, "unknown literal {\"" + key + "\": ...} (" + KIND_NAMES + ")");
    }

    static ProtocolError bad(String where, String message) {
        return new ProtocolError(ProtocolError.BAD_ARGUMENT, where, message);
    }
}
