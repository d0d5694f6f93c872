package org.droidstar.harness.core;

import java.io.Serializable;

/**
 * The literals JSON writes itself: null, strings (and {"string": S}, a
 * string however it looks), booleans and numbers. They have no Java type
 * of their own: each ranks by a table of the types it stands for, in the
 * order javac would prefer for the same literal in Java source.
 */
final class ScalarLiterals {
    private ScalarLiterals() {
    }

    private static final Ranking TEXT = Ranking.NONE.at(0, String.class)
            .at(2, CharSequence.class, Comparable.class, Serializable.class).at(3, Object.class);
    /** A one-character string may also be a char. */
    private static final Ranking CHARACTER = TEXT.at(4, char.class).at(5, Character.class);
    private static final Ranking BOOLEAN = Ranking.NONE.at(0, boolean.class).at(1, Boolean.class)
            .at(2, Serializable.class, Comparable.class).at(3, Object.class);
    /** An integer, int aside: int, Integer, short and byte only fit the values in their range. */
    private static final Ranking WHOLE = Ranking.NONE.at(1, long.class).at(2, float.class).at(3, double.class)
            .at(5, Long.class).at(6, Float.class).at(7, Double.class)
            .at(12, Number.class, Serializable.class, Comparable.class).at(13, Object.class);
    /** A number with a fraction or exponent, float aside: float and Float only fit values a float can hold. */
    private static final Ranking FRACTION = Ranking.NONE.at(0, double.class).at(2, Double.class)
            .at(4, Number.class, Serializable.class, Comparable.class).at(5, Object.class);

    /** {"string": S}. */
    static Literal string(Object v, String where) throws ProtocolError {
        if (!(v instanceof String)) {
            throw Literal.bad(where + ".string", "{\"string\": S} needs a string, not " + Json.typeName(v));
        }
        return new StringLit(where, (String) v);
    }

    static final class NullLit extends Literal.Typed {
        NullLit(String where) {
            super(where, null, "null");
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            return null;
        }
    }

    static final class StringLit extends Literal {
        final String s;

        StringLit(String where, String s) {
            super(where, s.length() == 1 ? CHARACTER : TEXT, String.class, PurposeFields.quoted(s));
            this.s = s;
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            if (param == char.class || param == Character.class) {
                return Character.valueOf(s.charAt(0));
            }
            return s;
        }
    }

    static final class BoolLit extends Literal {
        final boolean b;

        BoolLit(String where, boolean b) {
            super(where, BOOLEAN, Boolean.class, Boolean.toString(b));
            this.b = b;
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            return Boolean.valueOf(b);
        }
    }

    /** A plain JSON integer: any numeric type it fits, Java's int preferred. */
    static final class IntegerLit extends Literal {
        final long v;

        IntegerLit(String where, long v) {
            super(where, ranking(v), v == (int) v ? Integer.class : Long.class, Long.toString(v));
            this.v = v;
        }

        private static Ranking ranking(long v) {
            Ranking r = WHOLE;
            if (v == (int) v) {
                r = r.at(0, int.class).at(4, Integer.class);
            }
            if (v == (short) v) {
                r = r.at(8, short.class).at(9, Short.class);
            }
            if (v == (byte) v) {
                r = r.at(10, byte.class).at(11, Byte.class);
            }
            return r;
        }

        private boolean fitsInt() {
            return v == (int) v;
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            if (param == Object.class || param == Number.class || param == Serializable.class
                    || param == Comparable.class) {
                return fitsInt() ? (Object) Integer.valueOf((int) v) : (Object) Long.valueOf(v);
            }
            return Ranking.convertNumber(Long.valueOf(v), param);
        }
    }

    /** A plain JSON number with a fraction or an exponent: double preferred, float when it fits. */
    static final class DoubleLit extends Literal {
        final double v;

        DoubleLit(String where, double v) {
            super(where, Float.isInfinite((float) v) ? FRACTION : FRACTION.at(1, float.class).at(3, Float.class),
                    Double.class, Double.toString(v));
            this.v = v;
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            if (param == float.class || param == Float.class) {
                return Float.valueOf((float) v);
            }
            return Double.valueOf(v);
        }
    }
}
