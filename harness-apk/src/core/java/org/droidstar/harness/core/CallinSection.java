package org.droidstar.harness.core;

import static org.droidstar.harness.core.PurposeFields.list;
import static org.droidstar.harness.core.PurposeFields.quoted;
import static org.droidstar.harness.core.PurposeFields.string;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The purpose's callins: each symbol's environment actions, call, receiver
 * and arguments, result: target and error_if.
 */
final class CallinSection {
    private CallinSection() {
    }

    /** Resolves the callins into c, in order: a literal may name an earlier callin's result. */
    static void read(Configuration c, List<?> callinList) throws ProtocolError {
        for (int i = 0; i < callinList.size(); i++) {
            readCallin(c, callinList.get(i), "callins[" + i + "]");
        }
    }

    private static void readCallin(Configuration c, Object json, String w) throws ProtocolError {
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
        if (c.callins.containsKey(symbol)) {
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
        List<Literal> args = PurposeFields.args(m.get("args"), w + ".args", c);
        Object onJson = m.get("on");
        Configuration.Call call = null;
        if (method == null) {
            if (!args.isEmpty() || onJson != null) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w + ".call",
                        "callin " + symbol + " has arguments or a receiver but no call");
            }
        } else if (onJson == null) {
            call = new Configuration.Call(null, Invocable.choose(Invocable.methods(c.targetLookup(), method, false), args,
                    "class " + c.targetClass.getName(), method, w + ".call"));
        } else {
            Literal on = Literal.parse(onJson, w + ".on", c);
            Class<?> t = on.staticType();
            if (t == null || on instanceof ScalarLiterals.NullLit) {
                throw new ProtocolError(ProtocolError.BAD_ARGUMENT, w + ".on",
                        on.describe() + " has no type to call " + method + " on");
            }
            call = new Configuration.Call(on, Invocable.choose(Invocable.methods(t, method, false), args,
                    (t.isInterface() ? "interface " : "class ") + t.getName(), method, w + ".call"));
        }
        boolean makesTarget = readResult(c, m, w, call);
        Object errorIfJson = m.get("error_if");
        Literal errorIf = m.containsKey("error_if") ? readErrorIf(c, errorIfJson, w, call) : null;
        c.callins.put(symbol, new Configuration.Callin(symbol, actions, call, makesTarget, errorIf, errorIfJson));
    }

    /** A callin's result: "target" makes the call's result the instance under test. */
    private static boolean readResult(Configuration c, Map<?, ?> m, String w, Configuration.Call call)
            throws ProtocolError {
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
        if (c.targetShim != null) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, wr, "the instance of " + c.targetClass.getName()
                    + " is its shim, made at the reset: result: target cannot replace it");
        }
        Class<?> rt = call.choice.returnType();
        if (!c.targetClass.isAssignableFrom(rt)) {
            throw new ProtocolError(ProtocolError.UNKNOWN_METHOD, wr, call.choice.describe() + " returns " + rt.getName()
                    + ", not " + c.targetClass.getName() + ": result: target needs an instance of the class under test");
        }
        return true;
    }

    /** A callin's error_if: the result (a JSON scalar) that counts as err. */
    private static Literal readErrorIf(Configuration c, Object v, String w, Configuration.Call call)
            throws ProtocolError {
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
        Literal lit = Literal.parse(v, we, c);
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
     * A first look at the callins, before they are resolved: the first one
     * whose result becomes the instance, as "callins[K] (SYMBOL)", or null.
     * What is wrong with them is reported later, in the resolution order.
     */
    static String instanceMaker(List<?> callinList) {
        for (int i = 0; i < callinList.size(); i++) {
            Object c = callinList.get(i);
            if (c instanceof Map && "target".equals(((Map<?, ?>) c).get("result"))) {
                Object sym = ((Map<?, ?>) c).get("symbol");
                return "callins[" + i + "] (" + (sym instanceof String ? sym : "?") + ")";
            }
        }
        return null;
    }
}
