package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;

import java.util.List;
import java.util.Map;

import org.junit.Test;

/**
 * The schema features of DroidStar's purposes (issue 11): a callin whose
 * result becomes the instance under test, a result that counts as err, a
 * callback's detail from another argument or an Intent extra, and
 * environment callbacks.
 */
public class SchemaFeaturesTest extends ServerTestBase {
    static final String SF = "org.droidstar.harness.core.SchemaFixtures$";
    static final String CALL = SF + "Call";
    static final String CLIENT = SF + "Client";
    static final String RADIO = SF + "Radio";
    static final String RECEIVER = SF + "Receiver";
    static final String SHIM_RECEIVER = SF + "AbstractReceiver";

    /** DroidStar's OkHttp purpose: build_valid and build_unavailable make the Call the other callins act on. */
    static String okhttp(String buildCall, String extra) {
        return "{'name':'OkHttpCall','class':'" + CALL + "',"
                + "'target':{'listeners':[{'type':'" + RECEIVER + "'}],'dispose':{'call':'cancel'}},"
                + "'callins':["
                + "{'symbol':'build_valid','on':{'constant':'" + CLIENT + ".SHARED'},'call':'" + buildCall
                + "','args':['https://x/ok'],'result':'target'},"
                + "{'symbol':'build_unavailable','on':{'constant':'" + CLIENT + ".SHARED'},'call':'newCall',"
                + "'args':['https://x/nope'],'result':'target'},"
                + "{'symbol':'build_offline','on':{'constant':'" + CLIENT + ".SHARED'},'call':'newCall',"
                + "'args':['offline'],'result':'target'},"
                + "{'symbol':'enqueue','call':'enqueue','args':[{'listener':'" + RECEIVER + "'}]},"
                + "{'symbol':'cancel','call':'cancel'}" + extra + "],"
                + "'callbacks':[{'symbol':'completed','from':['onResponse/200']},{'symbol':'on404','from':['onResponse/404']},"
                + "{'symbol':'failed','from':['onFailure'],'error':true}],"
                + "'details':{'onResponse':[{'arg':1,'call':'code'}]},"
                + "'timeouts':{'quiescence':20}}";
    }

    @Test
    public void aCallinsResultBecomesTheInstanceUnderTest() throws Exception {
        configure(okhttp("newCall", ""));
        Fixtures.reset();
        List<Map<String, Object>> rs = run("[['build_valid','enqueue','wait','cancel'],['build_unavailable','enqueue','wait'],"
                + "['build_valid','enqueue','build_unavailable','enqueue','wait','wait','enqueue']]");
        assertEquals(q("['ok','ok','onResponse/200','ok']"), outputs(rs.get(0)));
        assertEquals(q("['ok','ok','onResponse/404']"), outputs(rs.get(1)));
        // a second build replaces the instance: the new Call is enqueued, the old one's answer stays buffered
        assertEquals(q("['ok','ok','ok','ok','onResponse/200','onResponse/404','err']"), outputs(rs.get(2)));
        assertEquals(q("{'at':6,'kind':'thrown','exception':'java.lang.IllegalStateException','message':'Already Executed'}"),
                Json.write(rs.get(2).get("err")));
        // dispose acts on the instance the callin made (the last one)
        assertEquals("[newCall https://x/ok, cancel https://x/ok, cancel https://x/ok, newCall https://x/nope, "
                + "cancel https://x/nope, newCall https://x/ok, newCall https://x/nope, cancel https://x/nope]",
                Fixtures.log().toString());
    }

    @Test
    public void beforeTheCallinThatMakesItThereIsNoInstance() throws Exception {
        configure(okhttp("newCall", ""));
        Fixtures.reset();
        Map<String, Object> r = run1("['enqueue','build_valid']");
        assertEquals(q("['err']"), outputs(r));
        Map<?, ?> err = (Map<?, ?>) r.get("err");
        assertEquals("thrown", err.get("kind"));
        assertEquals("java.lang.NullPointerException", err.get("exception"));
        assertEquals("the receiver (the instance) of " + CALL + ".enqueue(" + RECEIVER + ") is null", err.get("message"));
        // no instance, nothing to dispose of
        assertEquals("[]", Fixtures.log().toString());
    }

    @Test
    public void aNullResultCannotBeTheInstance() throws Exception {
        configure(okhttp("nullCall", ""));
        Map<String, Object> r = run1("['build_valid','enqueue']");
        assertEquals(q("['err']"), outputs(r));
        assertEquals(q("{'at':0,'kind':'thrown','exception':'java.lang.NullPointerException','message':'" + CLIENT
                + ".nullCall(java.lang.String) returned null, which cannot be the instance under test (result: target)'}"),
                Json.write(r.get("err")));
    }

    @Test
    public void resultMistakes() throws Exception {
        assertError("unknown-method", "callins[0].result", CLIENT + ".notACall(java.lang.String) returns java.lang.String, not " + CALL
                + ": result: target needs an instance of the class under test", okhttp("notACall", ""));
        assertError("bad-request", "callins[5].result", "unknown result \"call\": the one place a result can go is target"
                + " (the call's result becomes the instance under test)",
                okhttp("newCall", ",{'symbol':'again','call':'cancel','result':'call'}"));
        assertError("bad-request", "callins[5].result", "\"result\" must be a string, not a boolean",
                okhttp("newCall", ",{'symbol':'again','call':'cancel','result':true}"));
        assertError("bad-request", "callins[5].result", "a callin with do calls no method unless it says which: add call: METHOD",
                okhttp("newCall", ",{'symbol':'again','do':[{'touch':'x'}],'result':'target'}"));
        // nothing can be registered on, or called on, an instance that does not exist at the reset
        assertError("bad-request", "target.listeners[0].register", "no instance exists at the reset to register the listener on:"
                + " callins[0] (build_valid) makes it (result: target); pass the listener to a callin as an argument instead",
                okhttp("newCall", "").replace("{'type':'" + RECEIVER + "'}", "{'type':'" + RECEIVER + "','register':'set'}"));
        assertError("bad-request", "target.init[0]", "no instance exists at the reset to call init on: callins[0]"
                + " (build_valid) makes it (result: target)",
                okhttp("newCall", "").replace("'dispose'", "'init':[{'call':'cancel'}],'dispose'"));
        // a shim's instance is made at the reset and stays
        assertError("bad-request", "callins[0].result", "the instance of " + Fixtures.Task.class.getName()
                + " is its shim, made at the reset: result: target cannot replace it",
                "{'name':'T','class':'" + Fixtures.Task.class.getName() + "','target':{'new':[2]},"
                        + "'callins':[{'symbol':'x','call':'execute','result':'target'}],'timeouts':{'quiescence':1}}");
    }

    /** DroidStar's BluetoothAdapter purpose: enable() and disable() answer false when they refuse. */
    static String radio(String callins, String callbacks, String details) {
        return "{'name':'Radio','class':'" + RADIO + "',"
                + "'target':{'listeners':[{'type':'" + RECEIVER + "','register':'setReceiver'},"
                + "{'type':'" + SHIM_RECEIVER + "','register':'setShim'}]},"
                + "'callins':[" + callins + "],'callbacks':[" + callbacks + "]," + details
                + "'timeouts':{'quiescence':20}}";
    }

    @Test
    public void aResultThatCountsAsErr() throws Exception {
        configure(radio("{'symbol':'enable','call':'enable','error_if':false},"
                + "{'symbol':'disable','call':'disable','error_if':false},"
                + "{'symbol':'boxed','call':'boxedEnable','error_if':false},"
                + "{'symbol':'level','call':'level','error_if':-1},{'symbol':'name','call':'name','error_if':null},"
                + "{'symbol':'ratio','call':'ratio','error_if':0.5},{'symbol':'named','call':'name','error_if':'radio'}",
                "{'symbol':'changed','from':['onReceive']}", ""));
        List<Map<String, Object>> rs = run("[['enable','enable'],['disable'],['enable','boxed'],['level'],['enable','level'],"
                + "['name'],['enable','named'],['ratio']]");
        assertEquals(q("['ok','err']"), outputs(rs.get(0)));
        assertEquals(q("{'at':1,'kind':'returned','value':false}"), Json.write(rs.get(0).get("err")));
        assertEquals(q("{'at':0,'kind':'returned','value':false}"), Json.write(rs.get(1).get("err")));
        assertEquals(q("{'at':1,'kind':'returned','value':false}"), Json.write(rs.get(2).get("err")));
        assertEquals(q("{'at':0,'kind':'returned','value':-1}"), Json.write(rs.get(3).get("err")));
        assertEquals(q("['ok','ok']"), outputs(rs.get(4)));
        assertEquals(q("{'at':0,'kind':'returned','value':null}"), Json.write(rs.get(5).get("err")));
        assertEquals(q("{'at':1,'kind':'returned','value':'radio'}"), Json.write(rs.get(6).get("err")));
        assertEquals(q("{'at':0,'kind':'returned','value':0.5}"), Json.write(rs.get(7).get("err")));
    }

    @Test
    public void errorIfMistakes() throws Exception {
        String cb = "{'symbol':'changed','from':['onReceive']}";
        assertError("bad-argument", "callins[0].error_if", RADIO + ".plain() returns nothing: there is no result to compare with false",
                radio("{'symbol':'plain','call':'plain','error_if':false}", cb, ""));
        assertError("bad-argument", "callins[0].error_if", "5 can never be what " + RADIO + ".enable() returns (a boolean)",
                radio("{'symbol':'enable','call':'enable','error_if':5}", cb, ""));
        assertError("bad-argument", "callins[0].error_if", "null can never be what " + RADIO + ".level() returns (a int)",
                radio("{'symbol':'level','call':'level','error_if':null}", cb, ""));
        assertError("bad-argument", "callins[0].error_if",
                "error_if is the result that counts as err: null, a boolean, a number or a string, not an object",
                radio("{'symbol':'enable','call':'enable','error_if':{'constant':'java.lang.Boolean.FALSE'}}", cb, ""));
        assertError("bad-request", "callins[0].error_if", "a callin with do calls no method unless it says which: add call: METHOD",
                radio("{'symbol':'touch','do':[{'touch':'x'}],'error_if':false}", cb, ""));
    }

    @Test
    public void aDetailFromAnExtraOfAnotherArgument() throws Exception {
        // DroidStar's BluetoothAdapter purpose: STATE_ON and STATE_OFF from the broadcast's EXTRA_STATE
        String details = "'details':{'onReceive':[{'arg':1,'call':'getAction'},{'arg':1,'extra':'state'}]},";
        configure(radio("{'symbol':'enable','call':'enable'},{'symbol':'disable','call':'disable'},"
                + "{'symbol':'connect','call':'connect'}",
                "{'symbol':'on','from':['onReceive/STATE_CHANGED/12']},{'symbol':'off','from':['onReceive/STATE_CHANGED/10']},"
                        + "{'symbol':'conn','from':['onReceive/ACL_CONNECTED']}",
                details));
        // the proxy and the shim both report every broadcast; a missing extra (or no extras) leaves its part out
        Map<String, Object> r = run1("['enable','wait','wait','disable','wait','wait','connect','wait','wait','wait','wait','wait']");
        assertEquals(q("['ok','onReceive/STATE_CHANGED/12','onReceive/STATE_CHANGED/12','ok',"
                + "'onReceive/STATE_CHANGED/10','onReceive/STATE_CHANGED/10','ok','onReceive/ACL_CONNECTED',"
                + "'onReceive/ACL_CONNECTED','onReceive/ACL_CONNECTED','onReceive/ACL_CONNECTED','quiet']"), outputs(r));
        assertEquals(0L, r.get("ignored"));
    }

    @Test
    public void aDetailFromAMethodOfTheSecondArgument() throws Exception {
        // DroidStar's OkHttp purpose: onResponse(call, response) split by response.code()
        configure(okhttp("newCall", ""));
        assertEquals(q("['ok','ok','onResponse/404']"), outputs(run1("['build_unavailable','enqueue','wait']")));
    }

    @Test
    public void aDetailPartThatThrowsIsLeftOut() throws Exception {
        configure(radio("{'symbol':'enable','call':'enable'}",
                "{'symbol':'changed','from':['onReceive/context']},{'symbol':'other','from':['onReceive']}",
                "'details':{'onReceive':[{'arg':0},{'arg':1,'call':'broken'}]},"));
        assertEquals(q("['ok','onReceive/context','onReceive/context']"), outputs(run1("['enable','wait','wait']")));
    }

    @Test
    public void detailMistakes() throws Exception {
        String cbs = "{'symbol':'on','from':['onReceive/12']}";
        String cin = "{'symbol':'enable','call':'enable'}";
        String sigs = SHIM_RECEIVER + ".onReceive(java.lang.Object, " + SF + "Intent), " + RECEIVER
                + ".onReceive(java.lang.Object, " + SF + "Intent), " + SF + "ReceiverShim.onReceive(java.lang.Object, " + SF
                + "Intent)";
        assertError("unknown-method", "details.onReceive[0].arg", "onReceive has no argument 2 (arguments count from 0): "
                + sigs, radio(cin, cbs, "'details':{'onReceive':[{'arg':2}]},"));
        assertError("unknown-method", "details.onReceive[1].call", SF + "Intent has no public method code() that returns a value"
                + " (argument 1 of onReceive)", radio(cin, cbs, "'details':{'onReceive':[{'arg':0},{'arg':1,'call':'code'}]},"));
        assertError("unknown-method", "details.onReceive[0].extra", "java.lang.Object has neither getExtras() (an Intent's)"
                + " nor get(String) (a Bundle's) to read extra state from (argument 0 of onReceive)",
                radio(cin, cbs, "'details':{'onReceive':[{'arg':0,'extra':'state'}]},"));
        assertError("unknown-callback", "details.onRecieve", "onRecieve is no method of any listener or shim of the purpose"
                + " (they have onFailure, onReceive, onResponse)",
                radio(cin, cbs, "'details':{'onRecieve':[{'arg':1}]},"));
        assertError("bad-request", "details.onReceive", "a detail is a non-empty array of parts such as"
                + " {\"arg\":1,\"extra\":\"KEY\"}, not an empty array", radio(cin, cbs, "'details':{'onReceive':[]},"));
        assertError("bad-request", "details.onReceive[0].extra", "give call or extra, not both",
                radio(cin, cbs, "'details':{'onReceive':[{'arg':1,'call':'getAction','extra':'state'}]},"));
        assertError("bad-request", "details.onReceive[0].arg", "\"arg\" must be a non-negative integer, not -1",
                radio(cin, cbs, "'details':{'onReceive':[{'arg':-1}]},"));
        assertError("bad-request", "details.onReceive[0].key", "a detail part takes arg, call and extra, not \"key\"",
                radio(cin, cbs, "'details':{'onReceive':[{'key':'state'}]},"));
        assertError("bad-request", "details", "\"details\" must be an object, not an array",
                radio(cin, cbs, "'details':[],"));
    }

    @Test
    public void anEnvironmentCallbackEndsTheQuery() throws Exception {
        // DroidStar's SpeechRecognizer purpose: onError 5 and 8 are errors, 3 and 9 the environment's
        configure("{'name':'X','class':'" + TARGET + "','target':{'listeners':[{'type':'" + LISTENER
                + "','register':'setListener'}]},"
                + "'callins':[{'symbol':'e3','call':'fire','args':['3']},{'symbol':'e5','call':'fire','args':['5']},"
                + "{'symbol':'e7','call':'fire','args':['7']},{'symbol':'e4','call':'fire','args':['4']}],"
                + "'callbacks':[{'symbol':'finished','from':['onEvent/7']},{'symbol':'error','from':['onEvent/5'],'error':true},"
                + "{'symbol':'env','from':['onEvent/3','onEvent/9'],'error':'environment'}],"
                + "'timeouts':{'quiescence':20}}");
        List<Map<String, Object>> rs = run("[['e7','wait','e3','wait','e7'],['e5','wait'],['e4','e7','wait','wait']]");
        assertEquals(q("['ok','onEvent/7','ok','err']"), outputs(rs.get(0)));
        assertEquals(q("{'at':3,'kind':'environment','callback':'onEvent/3'}"), Json.write(rs.get(0).get("err")));
        assertEquals(q("{'at':1,'kind':'error-callback','callback':'onEvent/5'}"), Json.write(rs.get(1).get("err")));
        // an undeclared detail is ignored, not an error
        assertEquals(q("['ok','ok','onEvent/7','quiet']"), outputs(rs.get(2)));
        assertEquals(1L, rs.get(2).get("ignored"));
        // and listed with its detail, since the purpose splits onEvent by detail
        assertEquals(q("[{'method':'onEvent','detail':'4','count':1}]"), Json.write(rs.get(2).get("undeclared")));
        assertEquals("[]", Json.write(rs.get(0).get("undeclared")));
        assertError("bad-request", "callbacks[2].error", "\"error\" must be a boolean or \"environment\", not \"env\"",
                "{'name':'X','class':'" + TARGET + "','target':{'listeners':[{'type':'" + LISTENER + "'}]},"
                        + "'callins':[{'symbol':'noop'}],'callbacks':[{'symbol':'a','from':['onEvent/7']},"
                        + "{'symbol':'b','from':['onEvent/5']},{'symbol':'c','from':['onEvent/3'],'error':'env'}],"
                        + "'timeouts':{'quiescence':20}}");
    }

    private void assertError(String code, String where, String message, String purpose) throws Exception {
        Map<String, Object> e = configureError(purpose);
        assertEquals(Json.write(e), code, e.get("code"));
        assertEquals(Json.write(e), where, e.get("where"));
        assertEquals(Json.write(e), message, e.get("message"));
    }
}
