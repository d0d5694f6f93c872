package org.droidstar.harness.core;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/** {"new": ...} and {"call": ...}: objects a constructor or a static method makes when a query uses them. */
final class MadeLiterals {
    private MadeLiterals() {
    }

    static Literal parse(String key, Object v, String where, Literal.Scope scope) throws ProtocolError {
        boolean isNew = key.equals("new");
        String w = where + "." + key;
        String shape = isNew ? "{\"new\": [CLASS, ARGS...]}" : "{\"call\": [CLASS, METHOD, ARGS...]}";
        int names = isNew ? 1 : 2;
        if (!(v instanceof List)) {
            throw Literal.bad(w, shape + " needs an array, not " + Json.typeName(v));
        }
        List<?> l = (List<?>) v;
        if (l.size() < names) {
            throw Literal.bad(w, shape + " needs " + (isNew ? "a class name" : "a class and a method name")
                    + " first, not an array of " + l.size());
        }
        for (int i = 0; i < names; i++) {
            if (!(l.get(i) instanceof String) || ((String) l.get(i)).isEmpty()) {
                throw Literal.bad(w + "[" + i + "]", shape + " needs " + (i == 0 ? "a class name" : "a method name")
                        + " here, not " + (l.get(i) instanceof String ? "an empty string" : Json.typeName(l.get(i))));
            }
        }
        Class<?> c = scope.loadClass((String) l.get(0), w + "[0]");
        List<Literal> args = new ArrayList<Literal>();
        for (int i = names; i < l.size(); i++) {
            args.add(Literal.parse(l.get(i), w + "[" + i + "]", scope));
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
                throw Literal.bad(w + "[0]", c.getName() + " is " + (c.isInterface() ? "an interface" : "abstract")
                        + " and cannot be made with new: give {\"call\": [CLASS, METHOD, ...]} of a factory");
            }
            choice = Invocable.choose(Invocable.constructors(c, false), args, owner, "new " + c.getName(),
                    w + "[0]");
        } else {
            choice = Invocable.choose(Invocable.methods(c, (String) l.get(1), true), args, owner,
                    (String) l.get(1), w + "[1]");
            if (choice.returnType() == void.class) {
                throw Literal.bad(w + "[1]", choice.describe() + " returns nothing: there is no value to pass");
            }
        }
        return new MadeLit(where, choice, desc.toString());
    }

    /**
     * {"new": [CLASS, ARGS...]} and {"call": [CLASS, METHOD, ARGS...]}: an
     * object made by a constructor or a static method, afresh each time the
     * literal is used (every query gets its own ByteBuffer), so that no
     * query sees what an earlier one did to it.
     */
    static final class MadeLit extends Literal.Typed {
        final Invocable.Choice choice;

        MadeLit(String where, Invocable.Choice choice, String desc) {
            super(where, choice.returnType(), desc);
            this.choice = choice;
        }

        @Override
        public Object value(Class<?> param, Instances q) throws Exception {
            return Ranking.widen(choice.call(null, null, q), type, param);
        }
    }
}
