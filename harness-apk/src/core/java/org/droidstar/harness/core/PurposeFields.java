package org.droidstar.harness.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Reading the purpose's fields: each section of Configuration checks a
 * field's JSON type with these, so that every "is required" and "must be"
 * complaint is worded alike.
 */
final class PurposeFields {
    private PurposeFields() {
    }

    /** The argument literals of a call: an array, or none. */
    static List<Literal> args(Object json, String where, Literal.Scope scope) throws ProtocolError {
        List<Literal> out = new ArrayList<Literal>();
        if (json == null) {
            return out;
        }
        if (!(json instanceof List)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, where,
                    "arguments are an array of literals, not " + Json.typeName(json));
        }
        List<?> l = (List<?>) json;
        for (int i = 0; i < l.size(); i++) {
            out.add(Literal.parse(l.get(i), where + "[" + i + "]", scope));
        }
        return out;
    }

    static String string(Map<?, ?> m, String key, String where, boolean required) throws ProtocolError {
        return (String) field(m, key, where, required, String.class, "a string");
    }

    static List<?> list(Map<?, ?> m, String key, String where, boolean required) throws ProtocolError {
        return (List<?>) field(m, key, where, required, List.class, "an array");
    }

    static Map<?, ?> map(Map<?, ?> m, String key, String where, boolean required) throws ProtocolError {
        return (Map<?, ?>) field(m, key, where, required, Map.class, "an object");
    }

    /** m's key, which must be a type (noun in messages); null when it is absent and not required. */
    private static Object field(Map<?, ?> m, String key, String where, boolean required, Class<?> type, String noun)
            throws ProtocolError {
        Object v = m.get(key);
        if (v == null) {
            if (required) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, where, "\"" + key + "\" is required");
            }
            return null;
        }
        if (!type.isInstance(v)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, where,
                    "\"" + key + "\" must be " + noun + ", not " + Json.typeName(v));
        }
        return v;
    }

    /** A set of keys configure accepts, in the order messages list them. */
    static List<String> keys(String... names) {
        return Collections.unmodifiableList(Arrays.asList(names));
    }

    /** Keys as messages list them: "a, b, c". */
    static String names(List<String> keys) {
        StringBuilder sb = new StringBuilder();
        for (String k : keys) {
            sb.append(sb.length() == 0 ? "" : ", ").append(k);
        }
        return sb.toString();
    }

    static String quoted(String s) {
        StringBuilder sb = new StringBuilder();
        Json.quote(sb, s);
        return sb.toString();
    }

    static boolean isIdentifier(String s) {
        if (s.isEmpty() || !Character.isJavaIdentifierStart(s.charAt(0))) {
            return false;
        }
        for (int i = 1; i < s.length(); i++) {
            if (!Character.isJavaIdentifierPart(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
