package org.droidstar.harness.core;

/**
 * The query's own objects, which the purpose cannot write down: a declared
 * listener ({"listener": NAME}), the instance under test ({"target":
 * true}), the platform's context ({"context": true}), and what an earlier
 * callin returned ({"result": SYMBOL}). Each has the type the purpose
 * resolved it to; its value is the one of the query at hand.
 */
final class InstanceLiterals {
    private InstanceLiterals() {
    }

    static Literal parse(String key, Object v, String where, Literal.Scope scope) throws ProtocolError {
        if (key.equals("result")) {
            if (!(v instanceof String) || ((String) v).isEmpty()) {
                throw Literal.bad(where + ".result", "{\"result\": SYMBOL} needs the symbol of an earlier callin, not "
                        + (v instanceof String ? "an empty string" : Json.typeName(v)));
            }
            return new ResultLit(where, (String) v, scope.resultType((String) v, where + ".result"));
        }
        if (key.equals("listener")) {
            if (!(v instanceof String)) {
                throw Literal.bad(where + ".listener", "{\"listener\": TYPE} needs a type name, not " + Json.typeName(v));
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
                throw Literal.bad(where + ".target", "write {\"target\": true}");
            }
            Class<?> t = scope.targetType();
            if (t == null) {
                throw Literal.bad(where, "the instance under test does not exist yet where {\"target\": true} is used");
            }
            return new TargetLit(where, t);
        }
        if (key.equals("context")) {
            if (!Boolean.TRUE.equals(v)) {
                throw Literal.bad(where + ".context", "write {\"context\": true}");
            }
            return new ContextLit(where, scope.contextType());
        }
        throw new IllegalArgumentException("no instance literal {\"" + key + "\": ...}");
    }

    static final class ListenerLit extends Literal.Typed {
        final String typeName;

        ListenerLit(String where, String typeName, Class<?> type) {
            super(where, type, "{\"listener\":\"" + typeName + "\"}");
            this.typeName = typeName;
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            return q.listener(typeName);
        }
    }

    static final class TargetLit extends Literal.Typed {
        TargetLit(String where, Class<?> type) {
            super(where, type, "{\"target\":true}");
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            return q.target();
        }
    }

    /** Where the platform has no context (the JVM), its type is null and it fits any reference, as null does. */
    static final class ContextLit extends Literal.Typed {
        ContextLit(String where, Class<?> type) {
            super(where, type, "{\"context\":true}");
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            return q.context;
        }
    }

    /**
     * {"result": SYMBOL}: what the callin SYMBOL last returned in this query
     * (a bound port, a session), so that one callin can hand another an
     * object the purpose cannot write down.
     */
    static final class ResultLit extends Literal.Typed {
        final String symbol;

        ResultLit(String where, String symbol, Class<?> type) {
            super(where, type, "{\"result\":\"" + symbol + "\"}");
            this.symbol = symbol;
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            if (!q.results.containsKey(symbol)) {
                throw new IllegalStateException("callin " + symbol + " has not returned in this query, so "
                        + describe() + " has no value yet");
            }
            return Ranking.widen(q.results.get(symbol), type, param);
        }
    }
}
