package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.junit.Test;

/**
 * The corpus sessions this suite runs hold a request of every op and a
 * reply with every error code of PROTOCOL.md.
 */
public class CorpusCoverageTest {
    @Test
    public void everyOpAndEveryErrorCode() throws Exception {
        Set<String> wantOps = Corpus.protocolOps();
        Set<String> wantCodes = Corpus.protocolCodes();
        Map<String, Integer> ops = new TreeMap<String, Integer>();
        Map<String, Integer> codes = new TreeMap<String, Integer>();
        for (Corpus.Session s : Corpus.load()) {
            if (s.only != null && !s.only.equals("java")) {
                continue;
            }
            for (Corpus.Exchange e : s.exchanges) {
                if (e.reply == null) {
                    continue;
                }
                Object req = null;
                try {
                    req = Json.parse(e.request);
                } catch (Json.SyntaxException ex) {
                    // a malformed request, on purpose: it has no op
                }
                if (req instanceof Map && wantOps.contains(((Map<?, ?>) req).get("op"))) {
                    count(ops, (String) ((Map<?, ?>) req).get("op"));
                }
                Object err = ((Map<?, ?>) Json.parse(e.reply)).get("error");
                if (err instanceof Map) {
                    count(codes, (String) ((Map<?, ?>) err).get("code"));
                }
            }
        }
        assertEquals("PROTOCOL.md's ops", "[hello, configure, run, probe, ping, bye]", wantOps.toString());
        assertEquals("PROTOCOL.md's error codes", 13, wantCodes.size());
        for (String op : wantOps) {
            assertTrue("no corpus request of op " + op + " (" + ops + ")", ops.containsKey(op));
        }
        for (String code : wantCodes) {
            assertTrue("no corpus reply with error " + code + " (" + codes + ")", codes.containsKey(code));
        }
        assertTrue("codes the protocol does not name: " + codes.keySet(), wantCodes.containsAll(codes.keySet()));
        System.out.println("corpus (java): requests per op " + ops + ", replies per error code " + codes);
    }

    private static void count(Map<String, Integer> m, String k) {
        Integer n = m.get(k);
        m.put(k, n == null ? 1 : n + 1);
    }
}
