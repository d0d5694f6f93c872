package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.Before;
import org.junit.Test;

/**
 * {"callback": [METHOD, N]} (PROTOCOL.md, "Argument literals"): argument N of
 * the latest call of callback METHOD that a wait of the query delivered,
 * typed by the listener method's parameter, so that overloads resolve as if
 * the purpose had written the object down. The corpus session
 * configure-callback-literal holds what the simulated harness checks too.
 */
public class CallbackLiteralTest extends ServerTestBase {
    static final String HANDOUT = "org.droidstar.harness.core.ObjectFixtures$Handout";
    static final String RECEIVER = "org.droidstar.harness.core.ObjectFixtures$Receiver";

    @Before
    public void clearLog() {
        ObjectFixtures.LOG.clear();
    }

    static String handout(String listener, String callins, String callbacks, String dispose) {
        return "{'name':'Handout','class':'" + HANDOUT + "','target':{'listeners':[" + listener + "]"
                + (dispose == null ? "" : ",'dispose':" + dispose) + "},'callins':[" + callins + "],"
                + "'callbacks':[" + callbacks + "],'timeouts':{'quiescence':20,'settle':0,'post_reset':0}}";
    }

    static final String LISTENER = "{'type':'" + RECEIVER + "','register':'setReceiver'}";
    static final String GIVE = "{'symbol':'give','call':'give'}";

    @Test
    public void theArgumentIsTypedByTheListenerMethodAndTheLatestDeliveredCallCounts() throws Exception {
        // on: the handle, a StringBuilder, whose append(String) it calls; as an
        // argument its static type picks keep(StringBuilder) over
        // keep(Object); N=1, an int, fits setLength(int)
        configure(handout(LISTENER, GIVE + ",{'symbol':'mark','call':'append','on':{'callback':['onHandle',0]},'args':['!']},"
                + "{'symbol':'keep','call':'keep','args':[{'callback':['onHandle',0]}]},"
                + "{'symbol':'cut','call':'setLength','on':{'callback':['onHandle',0]},'args':[{'callback':['onHandle',1]}]}",
                "{'symbol':'handle','from':['onHandle']}", null));
        List<Map<String, Object>> rs = run("[['give','give','wait','mark','keep','wait','keep','cut','keep'],"
                + "['give','keep']]");
        assertEquals(q("['ok','ok','onHandle','ok','ok','onHandle','ok','ok','ok']"), outputs(rs.get(0)));
        // the first wait delivered h1 (marked), the second h2; cut keeps 2 characters
        assertEquals(Arrays.asList("kept h1!", "kept h2", "kept h2"), ObjectFixtures.LOG);
        // a call that came but that no wait delivered does not count
        assertEquals(q("['ok','err']"), outputs(rs.get(1)));
        Map<?, ?> err = (Map<?, ?>) rs.get(1).get("err");
        assertEquals("{at=1, kind=no-callback, callback=onHandle, message=needs argument 0 of onHandle, which no wait"
                + " of this query has delivered}", err.toString());
    }

    @Test
    public void aNamedListenersCallbackAndDispose() throws Exception {
        configure(handout("{'type':'" + RECEIVER + "','register':'setReceiver','name':'r'}", GIVE,
                "{'symbol':'handle','from':['r.onHandle']}",
                "{'call':'keep','args':[{'callback':['r.onHandle',0]}]}"));
        List<Map<String, Object>> rs = run("[['give','wait'],['give']]");
        assertEquals(q("['ok','r.onHandle']"), outputs(rs.get(0)));
        // dispose of the second query has no value: it fails (logged), the answers stand
        assertEquals(q("['ok']"), outputs(rs.get(1)));
        assertEquals(Arrays.asList("kept h1"), ObjectFixtures.LOG);
    }

    private void assertError(String code, String where, String message, String purpose) throws Exception {
        Map<String, Object> e = configureError(purpose);
        assertEquals(code + " at " + where + ": " + message,
                e.get("code") + " at " + e.get("where") + ": " + e.get("message"));
    }

    @Test
    public void mistakes() throws Exception {
        String cbs = "{'symbol':'handle','from':['onHandle']},{'symbol':'note','from':['onNote']}";
        assertError("unknown-method", "callins[1].args[0].callback[1]", "onHandle has no argument 2 (arguments count"
                + " from 0): " + RECEIVER + ".onHandle(java.lang.StringBuilder, int)",
                handout(LISTENER, GIVE + ",{'symbol':'keep','call':'keep','args':[{'callback':['onHandle',2]}]}", cbs, null));
        assertError("unknown-method", "callins[1].args[0].callback[1]", "the methods onNote of the purpose's listeners"
                + " and shims differ in the type of argument 0, so {\"callback\": [METHOD, N]} has no one type: "
                + RECEIVER + ".onNote(java.lang.Integer), " + RECEIVER + ".onNote(java.lang.String)",
                handout(LISTENER, GIVE + ",{'symbol':'keep','call':'keep','args':[{'callback':['onNote',0]}]}", cbs, null));
        // a named listener's calls are NAME.METHOD: the plain name is none of its
        assertError("unknown-callback", "callins[1].args[0].callback[0]", "onHandle is no method of any listener or"
                + " shim of the purpose (they have r.onHandle, r.onNote)",
                handout("{'type':'" + RECEIVER + "','name':'r'}",
                        GIVE + ",{'symbol':'keep','call':'keep','args':[{'callback':['onHandle',0]}]}", cbs, null));
    }
}
