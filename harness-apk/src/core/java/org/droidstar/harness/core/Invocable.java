package org.droidstar.harness.core;

import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A method or constructor that a purpose calls, and overload resolution:
 * the candidates with the right name and argument count that every literal
 * fits, the one with the lowest total cost wins; two with the same cost are
 * ambiguous.
 */
public abstract class Invocable {
    /** The parameters that literals fill (a shim constructor's ShimContext is not one of them). */
    final Class<?>[] params;
    final boolean varargs;

    Invocable(Class<?>[] params, boolean varargs) {
        this.params = params;
        this.varargs = varargs;
    }

    /** Calls it; receiver is null for constructors and static methods, hidden is the shim's context or null. */
    abstract Object invoke(Object receiver, Object hidden, Object[] args)
            throws InvocationTargetException, IllegalAccessException, InstantiationException;

    /** A Java-like signature for messages. */
    public abstract String describe();

    static String simpleParams(Class<?>[] ps, boolean varargs) {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < ps.length; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            if (varargs && i == ps.length - 1) {
                sb.append(ps[i].getComponentType().getName()).append("...");
            } else if (ps[i].isArray()) {
                sb.append(ps[i].getComponentType().getName()).append("[]");
            } else {
                sb.append(ps[i].getName());
            }
        }
        return sb.append(')').toString();
    }

    static final class MethodInv extends Invocable {
        final Method method;

        MethodInv(Method method) {
            super(method.getParameterTypes(), method.isVarArgs());
            this.method = method;
        }

        @Override
        Object invoke(Object receiver, Object hidden, Object[] args)
                throws InvocationTargetException, IllegalAccessException {
            return method.invoke(receiver, args);
        }

        @Override
        public String describe() {
            return method.getDeclaringClass().getName() + "." + method.getName() + simpleParams(params, varargs);
        }
    }

    static final class ConstructorInv extends Invocable {
        final Constructor<?> ctor;
        final boolean shim;

        ConstructorInv(Constructor<?> ctor, boolean shim) {
            super(visible(ctor.getParameterTypes(), shim), ctor.isVarArgs());
            this.ctor = ctor;
            this.shim = shim;
        }

        private static Class<?>[] visible(Class<?>[] ps, boolean shim) {
            if (!shim) {
                return ps;
            }
            Class<?>[] out = new Class<?>[ps.length - 1];
            System.arraycopy(ps, 1, out, 0, out.length);
            return out;
        }

        @Override
        Object invoke(Object receiver, Object hidden, Object[] args)
                throws InvocationTargetException, IllegalAccessException, InstantiationException {
            if (!shim) {
                return ctor.newInstance(args);
            }
            Object[] all = new Object[args.length + 1];
            all[0] = hidden;
            System.arraycopy(args, 0, all, 1, args.length);
            return ctor.newInstance(all);
        }

        @Override
        public String describe() {
            return ctor.getDeclaringClass().getName() + simpleParams(params, varargs);
        }
    }

    /** Calls m on receiver; what m itself throws comes out as is, not wrapped. */
    static Object unwrap(Method m, Object receiver, Object[] args) throws Exception {
        try {
            return m.invoke(receiver, args);
        } catch (InvocationTargetException e) {
            Throwable c = e.getCause();
            if (c instanceof Exception) {
                throw (Exception) c;
            }
            if (c instanceof Error) {
                throw (Error) c;
            }
            throw e;
        }
    }

    // ---------------------------------------------------------------- candidates

    /** The public methods called name of type (static ones only when statics), one per signature. */
    static List<Invocable> methods(Class<?> type, String name, boolean staticsOnly) {
        Map<String, Method> bySig = new LinkedHashMap<String, Method>();
        Method[] all;
        try {
            all = type.getMethods();
        } catch (LinkageError e) {
            return new ArrayList<Invocable>();
        }
        for (Method m : all) {
            if (!m.getName().equals(name)) {
                continue;
            }
            if (staticsOnly && !Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            // One method per parameter list: a covariant-return bridge loses to
            // the method it bridges, a supertype's declaration to a subtype's.
            // (A bridge alone stays: javac's access bridges make the public
            // methods of a package-private superclass callable.)
            String sig = simpleParams(m.getParameterTypes(), false);
            Method old = bySig.get(sig);
            if (old == null || (old.isBridge() && !m.isBridge())
                    || (old.isBridge() == m.isBridge() && old.getDeclaringClass() != m.getDeclaringClass()
                            && old.getDeclaringClass().isAssignableFrom(m.getDeclaringClass()))) {
                bySig.put(sig, m);
            }
        }
        List<Invocable> out = new ArrayList<Invocable>();
        for (Method m : bySig.values()) {
            out.add(new MethodInv(accessible(m, type)));
        }
        return out;
    }

    /** The public constructors of type; for a shim, those whose first parameter is a ShimContext. */
    static List<Invocable> constructors(Class<?> type, boolean shim) {
        List<Invocable> out = new ArrayList<Invocable>();
        Constructor<?>[] all;
        try {
            all = type.getConstructors();
        } catch (LinkageError e) {
            return out;
        }
        for (Constructor<?> c : all) {
            Class<?>[] ps = c.getParameterTypes();
            if (shim && (ps.length == 0 || ps[0] != ShimContext.class)) {
                continue;
            }
            try {
                c.setAccessible(true);
            } catch (RuntimeException e) {
                // public constructors of public classes need no help
            }
            out.add(new ConstructorInv(c, shim));
        }
        return out;
    }

    /**
     * A version of m that reflection may call: m itself when its class is
     * public, else the same method declared by a public supertype of type
     * (a public interface method implemented by a private class), else m
     * made accessible if the platform allows it.
     */
    static Method accessible(Method m, Class<?> type) {
        if (Modifier.isPublic(m.getDeclaringClass().getModifiers())) {
            return m;
        }
        Method found = publicIn(type, m.getName(), m.getParameterTypes());
        if (found != null) {
            return found;
        }
        try {
            m.setAccessible(true);
        } catch (RuntimeException e) {
            // the call will fail with IllegalAccessException and say so
        }
        return m;
    }

    private static Method publicIn(Class<?> c, String name, Class<?>[] ps) {
        if (c == null) {
            return null;
        }
        if (Modifier.isPublic(c.getModifiers())) {
            try {
                Method m = c.getMethod(name, ps);
                if (Modifier.isPublic(m.getDeclaringClass().getModifiers())) {
                    return m;
                }
            } catch (NoSuchMethodException e) {
                return null;
            }
        }
        for (Class<?> i : c.getInterfaces()) {
            Method m = publicIn(i, name, ps);
            if (m != null) {
                return m;
            }
        }
        return publicIn(c.getSuperclass(), name, ps);
    }

    // ---------------------------------------------------------------- resolution

    /** A chosen invocable with the literals that fill it. */
    public static final class Choice {
        final Invocable inv;
        final List<Literal> args;
        /** Whether the trailing literals are spread into a varargs array. */
        final boolean spread;
        final int cost;

        Choice(Invocable inv, List<Literal> args, boolean spread, int cost) {
            this.inv = inv;
            this.args = args;
            this.spread = spread;
            this.cost = cost;
        }

        public String describe() {
            return inv.describe();
        }

        /** What a call returns: the method's return type, or a constructor's class. */
        Class<?> returnType() {
            if (inv instanceof MethodInv) {
                return ((MethodInv) inv).method.getReturnType();
            }
            return ((ConstructorInv) inv).ctor.getDeclaringClass();
        }

        /** The argument values for one query. */
        Object[] values(Instances q) throws Exception {
            Class<?>[] ps = inv.params;
            Object[] out = new Object[ps.length];
            int fixed = spread ? ps.length - 1 : ps.length;
            for (int i = 0; i < fixed; i++) {
                out[i] = args.get(i).value(ps[i], q);
            }
            if (spread) {
                Class<?> comp = ps[fixed].getComponentType();
                Object arr = Array.newInstance(comp, args.size() - fixed);
                for (int j = 0; j < args.size() - fixed; j++) {
                    Array.set(arr, j, args.get(fixed + j).value(comp, q));
                }
                out[fixed] = arr;
            }
            return out;
        }

        /**
         * Calls the choice and returns its result. The exception the call
         * itself throws comes out as is (not wrapped in an
         * InvocationTargetException).
         */
        Object call(Object receiver, Object hidden, Instances q) throws Exception {
            Object[] vals = values(q);
            try {
                return inv.invoke(receiver, hidden, vals);
            } catch (InvocationTargetException e) {
                Throwable c = e.getCause();
                if (c instanceof Exception) {
                    throw (Exception) c;
                }
                if (c instanceof Error) {
                    throw (Error) c;
                }
                throw e;
            }
        }
    }

    /** The cost of filling inv with args, as a Choice; null when they do not fit. */
    static Choice fit(Invocable inv, List<Literal> args) {
        Choice exact = null;
        if (args.size() == inv.params.length) {
            int total = 0;
            for (int i = 0; i < args.size() && total >= 0; i++) {
                int c = args.get(i).cost(inv.params[i]);
                total = c < 0 ? -1 : total + c;
            }
            if (total >= 0) {
                exact = new Choice(inv, args, false, total);
            }
        }
        if (!inv.varargs || args.size() < inv.params.length - 1) {
            return exact;
        }
        int fixed = inv.params.length - 1;
        int total = 20; // Java prefers a call without varargs
        Class<?> comp = inv.params[fixed].getComponentType();
        for (int i = 0; i < args.size() && total >= 0; i++) {
            int c = args.get(i).cost(i < fixed ? inv.params[i] : comp);
            total = c < 0 ? -1 : total + c;
        }
        if (total < 0) {
            return exact;
        }
        if (exact != null && exact.cost <= total) {
            return exact;
        }
        return new Choice(inv, args, true, total);
    }

    static String describeArgs(String name, List<Literal> args) {
        StringBuilder sb = new StringBuilder(name).append('(');
        for (int i = 0; i < args.size(); i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(args.get(i).describe());
        }
        return sb.append(')').toString();
    }

    /**
     * Chooses among candidates for a call of what (a method name or "new
     * C") with args. where is the call's path for unknown-method errors;
     * a single candidate of the right arity that an argument does not fit is
     * reported as bad-argument at that argument's path.
     */
    static Choice choose(List<Invocable> candidates, List<Literal> args, String owner, String what, String where)
            throws ProtocolError {
        List<Choice> best = new ArrayList<Choice>();
        List<Invocable> arity = new ArrayList<Invocable>();
        for (Invocable inv : candidates) {
            if (inv.params.length == args.size() || (inv.varargs && args.size() >= inv.params.length - 1)) {
                arity.add(inv);
            }
            Choice c = fit(inv, args);
            if (c == null) {
                continue;
            }
            if (best.isEmpty() || c.cost < best.get(0).cost) {
                best.clear();
                best.add(c);
            } else if (c.cost == best.get(0).cost) {
                best.add(c);
            }
        }
        if (best.size() == 1) {
            return best.get(0);
        }
        String call = describeArgs(what, args);
        if (best.size() > 1) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < best.size(); i++) {
                sb.append(i == 0 ? "" : i == best.size() - 1 ? " and " : ", ").append(best.get(i).describe());
            }
            throw new ProtocolError(ProtocolError.UNKNOWN_METHOD, where, "the call " + call + " on " + owner
                    + " is ambiguous: it fits " + sb + " equally well; give typed literals such as {\"long\": N}");
        }
        if (arity.size() == 1 && !arity.get(0).varargs) {
            Invocable inv = arity.get(0);
            for (int i = 0; i < args.size(); i++) {
                if (args.get(i).cost(inv.params[i]) < 0) {
                    throw new ProtocolError(ProtocolError.BAD_ARGUMENT, args.get(i).where, args.get(i).describe()
                            + " cannot be converted to " + inv.params[i].getName() + " (argument " + (i + 1)
                            + " of " + inv.describe() + ")");
                }
            }
        }
        StringBuilder sb = new StringBuilder();
        sb.append(owner).append(" has no ").append(what.startsWith("new ") ? "constructor" : "method")
                .append(" that accepts ").append(call);
        if (!candidates.isEmpty()) {
            sb.append("; there are ");
            for (int i = 0; i < candidates.size() && i < 8; i++) {
                sb.append(i == 0 ? "" : ", ").append(candidates.get(i).describe());
            }
            if (candidates.size() > 8) {
                sb.append(" and ").append(candidates.size() - 8).append(" more");
            }
        }
        throw new ProtocolError(ProtocolError.UNKNOWN_METHOD, where, sb.toString());
    }
}
