package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.After;
import org.junit.Test;

/**
 * Configuration.acceptedKeys must be the key sets configure checks, not a
 * copy that could drift: each key it names gets past configure's check,
 * and a key it does not name does not.
 */
public class AcceptedKeysTest extends ServerTestBase {
    private final List<String> logged = new ArrayList<String>();

    private static List<String> keys(String where) {
        List<String> k = Configuration.acceptedKeys().get(where);
        assertTrue("no key set " + where, k != null && !k.isEmpty());
        return k;
    }

    @After
    public void restoreLog() {
        Log.setSink(new Log.Sink() {
            @Override
            public void log(String line) {
                System.err.println("droidstar-harness: " + line);
            }
        });
    }

    private void captureLog() {
        Log.setSink(new Log.Sink() {
            @Override
            public void log(String line) {
                synchronized (logged) {
                    logged.add(line);
                }
            }
        });
    }

    private List<String> loggedUnknown() {
        List<String> out = new ArrayList<String>();
        synchronized (logged) {
            for (String l : logged) {
                if (l.startsWith("configure: ignoring the unknown")) {
                    out.add(l);
                }
            }
        }
        return out;
    }

    /** A purpose on the fixture target: one callin c that fires with arg, after setup. */
    private static String purpose(String setup, String arg, String details) {
        return "{'name':'X','class':'" + TARGET + "',"
                + "'target':{'listeners':[{'type':'" + LISTENER + "','register':'setListener'}]},"
                + "'setup':[" + setup + "],"
                + "'callins':[{'symbol':'c','call':'fire','args':[" + arg + "]}],"
                + "'callbacks':[{'symbol':'onEvent'}],'details':" + details + ","
                + "'timeouts':{'quiescence':1}}";
    }

    @Test
    public void namesEachKeySetByWhereItAppears() {
        assertEquals("[top, target, details.part, literal, action, action.write, action.append, action.sqlite]",
                Configuration.acceptedKeys().keySet().toString());
    }

    @Test
    public void onlyUnknownPurposeAndTargetFieldsAreLogged() throws Exception {
        captureLog();
        StringBuilder p = new StringBuilder("{");
        for (String k : keys("top")) {
            p.append('\'').append(k).append("':null,");
        }
        configureError(p.append("'bogus':null}").toString());
        assertEquals("[configure: ignoring the unknown purpose field \"bogus\"]", loggedUnknown().toString());

        logged.clear();
        StringBuilder t = new StringBuilder("{");
        for (String k : keys("target")) {
            t.append('\'').append(k).append("':null,");
        }
        t.append("'bogus':null}");
        configure("{'name':'X','class':'" + TARGET + "','target':" + t + ",'callins':[],'timeouts':{'quiescence':1}}");
        assertEquals("[configure: ignoring the unknown target field \"bogus\"]", loggedUnknown().toString());
    }

    @Test
    public void everyLiteralKindIsKnownAndTheMessageListsThem() throws Exception {
        for (String k : keys("literal")) {
            String m = (String) configureError(purpose("", "{'" + k + "':{'x':1}}", "{}")).get("message");
            assertFalse(k + ": " + m, m.startsWith("unknown literal"));
        }
        Map<String, Object> e = configureError(purpose("", "{'bogus':1}", "{}"));
        assertEquals("unknown literal {\"bogus\": ...} (" + PurposeFields.names(keys("literal")) + ")", e.get("message"));
    }

    @Test
    public void everyActionKindIsKnownAndTheMessageListsThem() throws Exception {
        for (String k : keys("action")) {
            String m = (String) configureError(purpose("{'" + k + "':{'x':1}}", "'a'", "{}")).get("message");
            assertFalse(k + ": " + m, m.startsWith("unknown environment action"));
        }
        Map<String, Object> e = configureError(purpose("{'bogus':1}", "'a'", "{}"));
        assertEquals("unknown environment action \"bogus\" (" + PurposeFields.names(keys("action")) + ")",
                e.get("message"));
    }

    @Test
    public void actionArgumentsTakeTheirKeysAndNoOther() throws Exception {
        String[][] cases = {{"write", "'a.txt'"}, {"append", "'a.txt'"}, {"sqlite", "'a.db'"}};
        for (String[] c : cases) {
            StringBuilder arg = new StringBuilder("{");
            for (String k : keys("action." + c[0])) {
                arg.append('\'').append(k).append("':").append(k.equals("file") ? c[1] : k.equals("version") ? "1" : "'x'")
                        .append(',');
            }
            arg.setLength(arg.length() - 1);
            configure(purpose("{'" + c[0] + "':" + arg + "}}", "'a'", "{}"));
            Map<String, Object> e = configureError(purpose("{'" + c[0] + "':" + arg + ",'bogus':1}}", "'a'", "{}"));
            assertEquals("setup[0]." + c[0] + ".bogus", e.get("where"));
        }
    }

    @Test
    public void aDetailPartTakesItsKeysAndNoOther() throws Exception {
        for (String k : keys("details.part")) {
            String part = k.equals("arg") ? "0" : k.equals("call") ? "'length'" : "'key'";
            Map<String, Object> r = reply("{'id':1,'op':'configure','purpose':"
                    + purpose("", "'a'", "{'onEvent':[{'" + k + "':" + part + "}]}") + "}");
            if (!Boolean.TRUE.equals(r.get("ok"))) {
                String where = (String) ((Map<?, ?>) r.get("error")).get("where");
                assertFalse(k + ": " + Json.write(r), where.equals("details.onEvent[0]." + k)
                        && ((String) ((Map<?, ?>) r.get("error")).get("message")).startsWith("a detail part takes"));
            }
        }
        Map<String, Object> e = configureError(purpose("", "'a'", "{'onEvent':[{'bogus':0}]}"));
        assertEquals("details.onEvent[0].bogus", e.get("where"));
    }
}
