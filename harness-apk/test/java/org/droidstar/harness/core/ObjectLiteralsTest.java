package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;

import java.io.File;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.Before;
import org.junit.Test;

/**
 * Object literals (PROTOCOL.md, "Argument literals"): {"path"}, {"new"},
 * {"call"} and {"result"}, the objects a purpose could not write before
 * without an adapter.
 */
public class ObjectLiteralsTest extends ServerTestBase {
    static final String SINK = "org.droidstar.harness.core.ObjectFixtures$Sink";

    @Before
    public void clearLog() {
        ObjectFixtures.LOG.clear();
    }

    static String sink(String callins) {
        return "{'name':'Sink','class':'" + SINK + "','target':{'new':[]},'callins':[" + callins + "],"
                + "'timeouts':{'quiescence':20}}";
    }

    @Test
    public void aPathIsInTheFilesDirectoryAndPicksThePathOverload() throws Exception {
        configure(sink("{'symbol':'p','call':'take','args':[{'path':'sub/data.txt'}]},"
                + "{'symbol':'f','call':'take','args':[{'file':'sub/data.txt'}]}"));
        assertEquals(q("['ok','ok']"), outputs(run1("['p','f']")));
        String abs = new File(dir, "sub/data.txt").getAbsolutePath();
        assertEquals(Arrays.asList("path " + abs, "string " + abs), ObjectFixtures.LOG);
    }

    @Test
    public void newAndCallMakeAFreshObjectEveryTime() throws Exception {
        configure(sink("{'symbol':'b','call':'take','args':[{'new':['java.lang.StringBuilder','x']}]},"
                + "{'symbol':'buf','call':'take','args':[{'call':['java.nio.ByteBuffer','allocate',16]}]},"
                + "{'symbol':'nested','call':'take','args':[{'new':['java.lang.StringBuilder',"
                + "{'call':['java.lang.String','valueOf',{'long':12}]}]}]}"));
        List<Map<String, Object>> rs = run("[['b','b'],['b','buf','nested']]");
        assertEquals(q("['ok','ok']"), outputs(rs.get(0)));
        assertEquals(q("['ok','ok','ok']"), outputs(rs.get(1)));
        // x! each time: no query (nor symbol) sees what an earlier one did to its object
        assertEquals(Arrays.asList("builder x!", "builder x!", "builder x!", "buffer 16", "builder 12!"),
                ObjectFixtures.LOG);
    }

    @Test
    public void aResultIsWhatAnEarlierCallinReturnedInThisQuery() throws Exception {
        configure(sink("{'symbol':'make','call':'make'},{'symbol':'count','call':'count'},"
                + "{'symbol':'give','call':'take','args':[{'result':'make'}]},"
                + "{'symbol':'widen','call':'takeLong','args':[{'result':'count'}]}"));
        List<Map<String, Object>> rs = run("[['make','give','give','count','widen'],['give','make']]");
        assertEquals(q("['ok','ok','ok','ok','ok']"), outputs(rs.get(0)));
        // the same object both times: the result is passed, not made again
        assertEquals(Arrays.asList("builder made!", "builder made!!", "long 7"), ObjectFixtures.LOG);
        // a new query has no results yet
        assertEquals(q("['err']"), outputs(rs.get(1)));
        Map<?, ?> err = (Map<?, ?>) rs.get(1).get("err");
        assertEquals("thrown java.lang.IllegalStateException at 0: callin make has not returned in this query,"
                + " so {\"result\":\"make\"} has no value yet",
                err.get("kind") + " " + err.get("exception") + " at " + err.get("at") + ": " + err.get("message"));
    }

    private void assertError(String code, String where, String message, String purpose) throws Exception {
        Map<String, Object> e = configureError(purpose);
        assertEquals(code + " at " + where + ": " + message,
                e.get("code") + " at " + e.get("where") + ": " + e.get("message"));
    }

    @Test
    public void mistakes() throws Exception {
        assertError("bad-argument", "callins[0].args[0].new[0]", "java.lang.Runnable is an interface and cannot be made"
                + " with new: give {\"call\": [CLASS, METHOD, ...]} of a factory",
                sink("{'symbol':'b','call':'take','args':[{'new':['java.lang.Runnable']}]}"));
        assertError("unknown-method", "callins[0].args[0].new[0]", "class java.lang.Object has no constructor that"
                + " accepts new java.lang.Object(1); there are java.lang.Object()",
                sink("{'symbol':'b','call':'take','args':[{'new':['java.lang.Object',1]}]}"));
        assertError("unknown-method", "callins[0].args[0].call[1]", "class java.nio.ByteBuffer has no method that accepts"
                + " allocat(16)",
                sink("{'symbol':'b','call':'take','args':[{'call':['java.nio.ByteBuffer','allocat',16]}]}"));
        assertError("bad-argument", "callins[0].args[0].call[1]", SINK + ".staticNothing() returns"
                + " nothing: there is no value to pass",
                sink("{'symbol':'b','call':'take','args':[{'call':['" + SINK + "','staticNothing']}]}"));
        assertError("unknown-class", "callins[0].args[0].call[0]", "cannot load class no.Such",
                sink("{'symbol':'b','call':'take','args':[{'call':['no.Such','make']}]}"));
        assertError("bad-argument", "callins[0].args[0].call", "{\"call\": [CLASS, METHOD, ARGS...]} needs a class and a"
                + " method name first, not an array of 1",
                sink("{'symbol':'b','call':'take','args':[{'call':['java.nio.ByteBuffer']}]}"));
        assertError("bad-argument", "callins[0].args[0].new", "{\"new\": [CLASS, ARGS...]} needs an array, not a string",
                sink("{'symbol':'b','call':'take','args':[{'new':'java.lang.StringBuilder'}]}"));
        assertError("bad-argument", "callins[0].args[0].result", "no callin make is declared before this literal:"
                + " {\"result\": SYMBOL} names an earlier callin",
                sink("{'symbol':'give','call':'take','args':[{'result':'make'}]},{'symbol':'make','call':'make'}"));
        assertError("bad-argument", "callins[1].args[0].result", "callin none returns nothing (" + SINK
                + ".nothing() is void): {\"result\": SYMBOL} needs a callin whose call returns a value",
                sink("{'symbol':'none','call':'nothing'},{'symbol':'give','call':'take','args':[{'result':'none'}]}"));
        assertError("bad-argument", "callins[0].args[0].path", "{\"path\": NAME} needs a file name, not an empty string",
                sink("{'symbol':'p','call':'take','args':[{'path':''}]}"));
        // the literal's type is what overload resolution sees: a ByteBuffer is no long
        assertError("bad-argument", "callins[0].args[0]", "{\"call\":[\"java.nio.ByteBuffer\",\"allocate\",1]}"
                + " cannot be converted to long (argument 1 of " + SINK + ".takeLong(long))",
                sink("{'symbol':'b','call':'takeLong','args':[{'call':['java.nio.ByteBuffer','allocate',1]}]}"));
    }

    static final String ASKER = "org.droidstar.harness.core.ObjectFixtures$Asker";
    static final String QUESTION = "org.droidstar.harness.core.ObjectFixtures$Question";

    static String asker(String callbacks) {
        return "{'name':'Asker','class':'" + ASKER + "','target':{'new':[],'listeners':[{'type':'" + QUESTION
                + "','register':'setQuestion'}]},'callins':[{'symbol':'ask','call':'ask'},{'symbol':'count','call':'count'},{'symbol':'tell','call':'tell'}],"
                + "'callbacks':[" + callbacks + "],'timeouts':{'quiescence':20}}";
    }

    @Test
    public void aProxyCallbackReturnsThrowsOrSleepsAsThePurposeSays() throws Exception {
        configure(asker("{'symbol':'yes','from':['ask'],'returns':true},{'symbol':'count','returns':{'int':3},'sleep_ms':60},"
                + "{'symbol':'tell','throws':{'new':['java.lang.IllegalStateException','boom']}}"));
        Map<String, Object> r = run1("['ask','wait','count','wait','tell','wait']");
        assertEquals(q("['ok','ask','ok','count','ok','tell']"), outputs(r));
        assertEquals(Arrays.asList("ask true", "count 3", "tell threw java.lang.IllegalStateException: boom"),
                ObjectFixtures.LOG);
        // count's callin waited for the listener's sleep
        double countMs = ((Number) ((List<?>) r.get("ms")).get(2)).doubleValue();
        assertEquals("count took " + countMs + " ms", true, countMs >= 60);
    }

    @Test
    public void withoutABehaviourAProxyAnswersFalseZeroOrNull() throws Exception {
        configure(asker("{'symbol':'ask'},{'symbol':'count'},{'symbol':'tell'}"));
        assertEquals(q("['ok','ok','ok']"), outputs(run1("['ask','count','tell']")));
        assertEquals(Arrays.asList("ask false", "count 0", "told"), ObjectFixtures.LOG);
    }

    @Test
    public void behaviourMistakes() throws Exception {
        assertError("bad-argument", "callbacks[0].returns", "true cannot be what " + QUESTION
                + ".count() returns (a int)", asker("{'symbol':'count','returns':true}"));
        assertError("bad-argument", "callbacks[0].returns", QUESTION + ".tell() returns nothing: there is no result to give",
                asker("{'symbol':'tell','returns':1}"));
        assertError("bad-argument", "callbacks[0].throws", "\"boom\" is no Throwable: throws needs one, such as"
                + " {\"new\": [java.lang.IllegalStateException, \"boom\"]}", asker("{'symbol':'tell','throws':'boom'}"));
        assertError("bad-request", "callbacks[0].throws", "give returns or throws, not both",
                asker("{'symbol':'tell','returns':null,'throws':{'new':['java.lang.Error']},'returns':1}")
                        .replace("'returns':null,", ""));
        assertError("bad-request", "callbacks[0].sleep_ms", "sleep_ms is a non-negative integer of milliseconds, not -1",
                asker("{'symbol':'tell','sleep_ms':-1}"));
    }

    static final String PAIR = "org.droidstar.harness.core.ObjectFixtures$Pair";

    static String pair(String listeners, String callbacks) {
        return "{'name':'Pair','class':'" + PAIR + "','target':{'new':[],'listeners':[" + listeners + "]},"
                + "'callins':[{'symbol':'ask','call':'askBoth'},"
                + "{'symbol':'swap','call':'setFirst','args':[{'listener':'second'}]}],"
                + "'callbacks':[" + callbacks + "],'timeouts':{'quiescence':20}}";
    }

    static final String TWO = "{'type':'" + QUESTION + "','name':'first','register':'setFirst'},"
            + "{'type':'" + QUESTION + "','name':'second','register':'setSecond'}";

    @Test
    public void listenersOfOneTypeAreToldApartByName() throws Exception {
        configure(pair(TWO, "{'symbol':'a1','from':['first.ask/1']},{'symbol':'a2','from':['second.ask'],'returns':true}"));
        List<Map<String, Object>> rs = run("[['ask','wait','wait'],['swap','ask','wait','wait']]");
        assertEquals(q("['ok','first.ask/1','second.ask']"), outputs(rs.get(0)));
        // {listener: second} is the second listener: after swap it is asked twice
        assertEquals(q("['ok','ok','second.ask','second.ask']"), outputs(rs.get(1)));
        assertEquals(Arrays.asList("first false", "second true", "first true", "second true"), ObjectFixtures.LOG);
    }

    @Test
    public void listenerNameMistakes() throws Exception {
        String q = "{'type':'" + QUESTION + "'";
        assertError("bad-request", "target.listeners[1].type", "listener type " + QUESTION + " is declared twice: give"
                + " each listener of a type a name (name: NAME) to tell them apart",
                pair(q + ",'register':'setFirst'}," + q + ",'register':'setSecond'}", "{'symbol':'ask'}"));
        assertError("bad-request", "target.listeners[1].name", "listener first is declared twice",
                pair(q + ",'name':'first'}," + q + ",'name':'first'}", "{'symbol':'first.ask'}"));
        assertError("bad-request", "target.listeners[0].name", "a listener name is a Java identifier such as second,"
                + " not \"a.b\"", pair(q + ",'name':'a.b'}", "{'symbol':'ask'}"));
        // a named listener's calls are NAME.METHOD; the plain name is no callback of the purpose
        assertError("unknown-callback", "callbacks[0].symbol", "ask is no method of any listener or shim of the purpose"
                + " (they have first.ask, first.count, first.tell, second.ask, second.count, second.tell)",
                pair(TWO, "{'symbol':'ask'}"));
    }

    /** The documented forms of static callins (README, "The harness part"). */
    @Test
    public void staticMethodsAsCallins() throws Exception {
        // of the class under test, by name; of another class, on a literal of its type
        configure(sink("{'symbol':'s','call':'staticNothing'},{'symbol':'t','on':{'new':['" + SINK + "']},'call':'staticNothing'}"));
        assertEquals(q("['ok','ok']"), outputs(run1("['s','t']")));
        assertEquals(Arrays.asList("static", "static"), ObjectFixtures.LOG);
    }
}
