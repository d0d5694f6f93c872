package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.fail;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.Test;

public class JsonTest {

    @Test
    public void parsesEveryKindOfValue() throws Exception {
        Map<?, ?> m = (Map<?, ?>) Json.parse(" {\"a\": [1, -2, 3.5, 1e2, true, false, null, \"s\"], \"b\": {}} ");
        List<?> a = (List<?>) m.get("a");
        assertEquals(Long.valueOf(1), a.get(0));
        assertEquals(Long.valueOf(-2), a.get(1));
        assertEquals(Double.valueOf(3.5), a.get(2));
        assertEquals(Double.valueOf(100), a.get(3));
        assertEquals(Boolean.TRUE, a.get(4));
        assertEquals(Boolean.FALSE, a.get(5));
        assertNull(a.get(6));
        assertEquals("s", a.get(7));
        assertEquals(new LinkedHashMap<String, Object>(), m.get("b"));
        assertEquals(Arrays.asList("a", "b"), Arrays.asList(m.keySet().toArray()));
        assertEquals(Double.valueOf(1e20), Json.parse("100000000000000000000"));
        assertEquals(Long.valueOf(Long.MIN_VALUE), Json.parse("-9223372036854775808"));
    }

    @Test
    public void stringEscapes() throws Exception {
        assertEquals("a\"b\\c/d\b\f\n\r\t\u00e9\u2028", Json.parse("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\u2028\""));
        assertEquals("\"a\\\"b\\\\c/d\\b\\f\\n\\r\\t\u00e9\\u2028\\u0001\"", Json.write("a\"b\\c/d\b\f\n\r\t\u00e9\u2028\u0001"));
        assertEquals("\ud83d\ude00", Json.parse("\"\\ud83d\\ude00\""));
    }

    @Test
    public void rejectsWhatIsNotJson() {
        String[] bad = {"", "{", "[1,]", "{\"a\"}", "{\"a\":1,}", "01", "1.", "-", "tru", "\"abc", "\"\\x\"", "[1] 2",
            "{\"a\":1,\"a\":2}", "\"a\nb\"", "{'a':1}", "nul", "1e", "\"\\u12\""};
        for (String s : bad) {
            try {
                Json.parse(s);
                fail("parsed " + s);
            } catch (Json.SyntaxException e) {
                // expected
            }
        }
    }

    @Test
    public void writesCompactJsonInInsertionOrder() {
        Map<String, Object> m = new LinkedHashMap<String, Object>();
        m.put("z", Long.valueOf(1));
        m.put("a", Arrays.asList(Boolean.TRUE, null, "x", Double.valueOf(2), Double.valueOf(0.25), Integer.valueOf(3)));
        m.put("n", Double.valueOf(Double.NaN));
        assertEquals("{\"z\":1,\"a\":[true,null,\"x\",2.0,0.25,3],\"n\":null}", Json.write(m));
    }

    @Test
    public void millisecondsAreRoundedToMicroseconds() {
        assertEquals("0.0", Json.millis(0).toString());
        assertEquals("102.4", Json.millis(102.4).toString());
        assertEquals("0.31", Json.millis(0.31).toString());
        assertEquals("0.001", Json.millis(0.0012).toString());
        assertEquals("5.0", Json.millis(4.99999).toString());
        assertEquals("0.0", Json.millis(-3).toString());
        assertEquals("[1.5]", Json.write(Arrays.asList(Json.millis(1.5))));
    }
}
