package org.droidstar.harness.core;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader and writer with no dependencies.
 *
 * Values map to Java as: object to a LinkedHashMap (keys in document
 * order), array to an ArrayList, string to String, true/false to Boolean,
 * null to null, a number without fraction or exponent that fits a long to
 * Long, any other number to Double.
 */
public final class Json {
    private Json() {
    }

    /** Thrown for text that is not one JSON value. */
    public static final class SyntaxException extends Exception {
        private static final long serialVersionUID = 1L;

        public SyntaxException(String message) {
            super(message);
        }
    }

    /** Parses text holding exactly one JSON value (surrounding white space allowed). */
    public static Object parse(String text) throws SyntaxException {
        Reader r = new Reader(text);
        r.skipSpace();
        Object v = r.value(0);
        r.skipSpace();
        if (r.pos != text.length()) {
            throw r.error("unexpected text after the value");
        }
        return v;
    }

    /** Writes a value as compact JSON (no white space, no line breaks). */
    public static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value);
        return sb.toString();
    }

    public static void write(StringBuilder sb, Object value) {
        if (value == null) {
            sb.append("null");
        } else if (value instanceof String) {
            quote(sb, (String) value);
        } else if (value instanceof Boolean) {
            sb.append(((Boolean) value).booleanValue() ? "true" : "false");
        } else if (value instanceof Double || value instanceof Float) {
            double d = ((Number) value).doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                sb.append("null");
            } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
                sb.append((long) d).append(".0");
            } else {
                sb.append(Double.toString(d));
            }
        } else if (value instanceof Number) {
            sb.append(value.toString());
        } else if (value instanceof Map) {
            sb.append('{');
            boolean first = true;
            for (Object o : ((Map<?, ?>) value).entrySet()) {
                Map.Entry<?, ?> e = (Map.Entry<?, ?>) o;
                if (!first) {
                    sb.append(',');
                }
                first = false;
                quote(sb, String.valueOf(e.getKey()));
                sb.append(':');
                write(sb, e.getValue());
            }
            sb.append('}');
        } else if (value instanceof Iterable) {
            sb.append('[');
            Iterator<?> it = ((Iterable<?>) value).iterator();
            boolean first = true;
            while (it.hasNext()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                write(sb, it.next());
            }
            sb.append(']');
        } else if (value instanceof Raw) {
            sb.append(((Raw) value).text);
        } else {
            quote(sb, value.toString());
        }
    }

    /** Text written into the output as is (already valid JSON). */
    public static final class Raw {
        final String text;

        public Raw(String text) {
            this.text = text;
        }

        @Override
        public String toString() {
            return text;
        }
    }

    /**
     * A non-negative duration in milliseconds rounded to microseconds, written
     * as a JSON number such as 102.4 or 0.0.
     */
    public static Raw millis(double ms) {
        if (Double.isNaN(ms) || ms < 0) {
            ms = 0;
        }
        long micros = Math.round(ms * 1000.0);
        long whole = micros / 1000;
        long frac = micros % 1000;
        StringBuilder sb = new StringBuilder();
        sb.append(whole).append('.');
        if (frac == 0) {
            sb.append('0');
        } else {
            String f = Long.toString(1000 + frac).substring(1);
            int end = f.length();
            while (f.charAt(end - 1) == '0') {
                end--;
            }
            sb.append(f, 0, end);
        }
        return new Raw(sb.toString());
    }

    static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                case '\b':
                    sb.append("\\b");
                    break;
                case '\f':
                    sb.append("\\f");
                    break;
                default:
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                        sb.append(String.format("\\u%04x", Integer.valueOf(c)));
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }

    /** A short description of a JSON value's type, for error messages. */
    public static String typeName(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof String) {
            return "a string";
        }
        if (v instanceof Boolean) {
            return "a boolean";
        }
        if (v instanceof Number) {
            return "a number";
        }
        if (v instanceof Map) {
            return "an object";
        }
        if (v instanceof List) {
            return "an array";
        }
        return v.getClass().getName();
    }

    /**
     * A value for error messages: an integer as written, anything else by
     * its type ("a string", "an object"), so that a message never depends
     * on how a platform prints a map or a double.
     */
    public static String describe(Object v) {
        return v instanceof Long ? v.toString() : typeName(v);
    }

    private static final int MAX_DEPTH = 200;

    private static final class Reader {
        final String s;
        int pos;

        Reader(String s) {
            this.s = s;
        }

        SyntaxException error(String what) {
            return new SyntaxException(what + " at offset " + pos);
        }

        void skipSpace() {
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                    pos++;
                } else {
                    break;
                }
            }
        }

        Object value(int depth) throws SyntaxException {
            if (depth > MAX_DEPTH) {
                throw error("nesting too deep");
            }
            if (pos >= s.length()) {
                throw error("unexpected end of input");
            }
            char c = s.charAt(pos);
            switch (c) {
                case '{':
                    return object(depth);
                case '[':
                    return array(depth);
                case '"':
                    return string();
                case 't':
                    literal("true");
                    return Boolean.TRUE;
                case 'f':
                    literal("false");
                    return Boolean.FALSE;
                case 'n':
                    literal("null");
                    return null;
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        return number();
                    }
                    throw error("unexpected character '" + c + "'");
            }
        }

        void literal(String word) throws SyntaxException {
            if (!s.startsWith(word, pos)) {
                throw error("invalid literal");
            }
            pos += word.length();
        }

        Map<String, Object> object(int depth) throws SyntaxException {
            Map<String, Object> m = new LinkedHashMap<String, Object>();
            pos++;
            skipSpace();
            if (pos < s.length() && s.charAt(pos) == '}') {
                pos++;
                return m;
            }
            while (true) {
                skipSpace();
                if (pos >= s.length() || s.charAt(pos) != '"') {
                    throw error("expected a string key");
                }
                String key = string();
                skipSpace();
                if (pos >= s.length() || s.charAt(pos) != ':') {
                    throw error("expected ':'");
                }
                pos++;
                skipSpace();
                Object v = value(depth + 1);
                if (m.containsKey(key)) {
                    throw error("duplicate key \"" + key + "\"");
                }
                m.put(key, v);
                skipSpace();
                if (pos >= s.length()) {
                    throw error("unexpected end of input");
                }
                char c = s.charAt(pos++);
                if (c == '}') {
                    return m;
                }
                if (c != ',') {
                    pos--;
                    throw error("expected ',' or '}'");
                }
            }
        }

        List<Object> array(int depth) throws SyntaxException {
            List<Object> l = new ArrayList<Object>();
            pos++;
            skipSpace();
            if (pos < s.length() && s.charAt(pos) == ']') {
                pos++;
                return l;
            }
            while (true) {
                skipSpace();
                l.add(value(depth + 1));
                skipSpace();
                if (pos >= s.length()) {
                    throw error("unexpected end of input");
                }
                char c = s.charAt(pos++);
                if (c == ']') {
                    return l;
                }
                if (c != ',') {
                    pos--;
                    throw error("expected ',' or ']'");
                }
            }
        }

        String string() throws SyntaxException {
            pos++; // opening quote
            StringBuilder sb = null;
            int start = pos;
            while (true) {
                if (pos >= s.length()) {
                    throw error("unterminated string");
                }
                char c = s.charAt(pos);
                if (c == '"') {
                    String out = sb == null ? s.substring(start, pos) : sb.append(s, start, pos).toString();
                    pos++;
                    return out;
                }
                if (c < 0x20) {
                    throw error("control character in string");
                }
                if (c != '\\') {
                    pos++;
                    continue;
                }
                if (sb == null) {
                    sb = new StringBuilder();
                }
                sb.append(s, start, pos);
                pos++;
                if (pos >= s.length()) {
                    throw error("unterminated string");
                }
                char e = s.charAt(pos++);
                switch (e) {
                    case '"':
                        sb.append('"');
                        break;
                    case '\\':
                        sb.append('\\');
                        break;
                    case '/':
                        sb.append('/');
                        break;
                    case 'b':
                        sb.append('\b');
                        break;
                    case 'f':
                        sb.append('\f');
                        break;
                    case 'n':
                        sb.append('\n');
                        break;
                    case 'r':
                        sb.append('\r');
                        break;
                    case 't':
                        sb.append('\t');
                        break;
                    case 'u':
                        if (pos + 4 > s.length()) {
                            throw error("bad \\u escape");
                        }
                        int cp = 0;
                        for (int i = 0; i < 4; i++) {
                            int d = Character.digit(s.charAt(pos + i), 16);
                            if (d < 0) {
                                throw error("bad \\u escape");
                            }
                            cp = cp * 16 + d;
                        }
                        pos += 4;
                        sb.append((char) cp);
                        break;
                    default:
                        pos--;
                        throw error("bad escape '\\" + e + "'");
                }
                start = pos;
            }
        }

        Object number() throws SyntaxException {
            int start = pos;
            boolean integral = true;
            if (s.charAt(pos) == '-') {
                pos++;
            }
            if (pos >= s.length()) {
                throw error("bad number");
            }
            if (s.charAt(pos) == '0') {
                pos++;
            } else if (s.charAt(pos) >= '1' && s.charAt(pos) <= '9') {
                while (pos < s.length() && Character.isDigit(s.charAt(pos)) && s.charAt(pos) < 128) {
                    pos++;
                }
            } else {
                throw error("bad number");
            }
            if (pos < s.length() && s.charAt(pos) == '.') {
                integral = false;
                pos++;
                int digits = pos;
                while (pos < s.length() && s.charAt(pos) >= '0' && s.charAt(pos) <= '9') {
                    pos++;
                }
                if (pos == digits) {
                    throw error("bad number");
                }
            }
            if (pos < s.length() && (s.charAt(pos) == 'e' || s.charAt(pos) == 'E')) {
                integral = false;
                pos++;
                if (pos < s.length() && (s.charAt(pos) == '+' || s.charAt(pos) == '-')) {
                    pos++;
                }
                int digits = pos;
                while (pos < s.length() && s.charAt(pos) >= '0' && s.charAt(pos) <= '9') {
                    pos++;
                }
                if (pos == digits) {
                    throw error("bad number");
                }
            }
            String text = s.substring(start, pos);
            if (integral) {
                try {
                    return Long.valueOf(Long.parseLong(text));
                } catch (NumberFormatException e) {
                    // too large for a long: fall through to a double
                }
            }
            return Double.valueOf(Double.parseDouble(text));
        }
    }
}
