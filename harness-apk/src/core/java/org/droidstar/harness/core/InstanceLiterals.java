package org.droidstar.harness.core;

/**
 * The query's own objects, which the purpose cannot write down: a declared
 * listener ({"listener": NAME}), the instance under test ({"target":
 * true}), the platform's context ({"context": true}), what an earlier
 * callin returned ({"result": SYMBOL}), and what a delivered callback was
 * called with ({"callback": [METHOD, N]}). Each has the type the purpose
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
        if (key.equals("callback")) {
            return callback(v, where + ".callback", scope);
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

    /** {"callback": [METHOD, N]}: the method as reported, then the argument's index from 0. */
    private static Literal callback(Object v, String w, Literal.Scope scope) throws ProtocolError {
        String shape = "{\"callback\": [METHOD, N]}";
        if (!(v instanceof java.util.List)) {
            throw Literal.bad(w, shape + " needs an array, not " + Json.typeName(v));
        }
        java.util.List<?> l = (java.util.List<?>) v;
        if (l.size() != 2) {
            throw Literal.bad(w, shape + " needs a callback method and an argument number, not an array of " + l.size());
        }
        if (!(l.get(0) instanceof String) || ((String) l.get(0)).isEmpty()) {
            throw Literal.bad(w + "[0]", shape + " needs a callback method here, not "
                    + (l.get(0) instanceof String ? "an empty string" : Json.typeName(l.get(0))));
        }
        Object n = l.get(1);
        if (!(n instanceof Long) || (Long) n < 0 || (Long) n > Integer.MAX_VALUE) {
            throw Literal.bad(w + "[1]", shape + " needs a non-negative argument number here, not " + Json.describe(n));
        }
        String method = (String) l.get(0);
        int arg = ((Long) n).intValue();
        Class<?> type = scope.callbackArgType(method, arg, w);
        return new CallbackLit(w.substring(0, w.length() - ".callback".length()), method, arg, type);
    }

    /**
     * {"callback": [METHOD, N]}: argument N of the latest call of the
     * callback METHOD that a wait of this query delivered (the subscription
     * a Flow.Subscriber's onSubscribe gets), so that a callin can act on an
     * object only a callback hands out. Only a delivered call counts, not one
     * that merely arrived: whether a value exists then depends on the query's
     * symbols alone, never on how fast the callback came.
     */
    static final class CallbackLit extends Literal.Typed {
        final String method;
        final int arg;

        CallbackLit(String where, String method, int arg, Class<?> type) {
            super(where, type, "{\"callback\":[\"" + method + "\"," + arg + "]}");
            this.method = method;
            this.arg = arg;
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            Object[] args = q.deliveredArgs(method, arg);
            if (arg >= args.length) {
                throw new IllegalStateException(method + " was reported without its argument " + arg
                        + " (a shim that does not pass its arguments), so " + describe() + " has no value");
            }
            return Ranking.widen(args[arg], type, param);
        }
    }
}
