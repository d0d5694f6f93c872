package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.Test;

/** Every op, reply shape and error code of PROTOCOL.md, through the Server. */
public class ProtocolTest extends ServerTestBase {

    /** Serves a whole conversation from a byte stream and returns the reply lines. */
    private List<String> converse(String... lines) throws Exception {
        StringBuilder in = new StringBuilder();
        for (String l : lines) {
            in.append(q(l)).append('\n');
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        server.serve(new ByteArrayInputStream(in.toString().getBytes("UTF-8")), out);
        String text = new String(out.toByteArray(), "UTF-8");
        assertTrue("replies end with a line break", text.isEmpty() || text.endsWith("\n"));
        List<String> replies = new ArrayList<String>();
        for (String l : text.split("\n", -1)) {
            if (!l.isEmpty()) {
                replies.add(l);
            }
        }
        return replies;
    }

    private void assertError(String reply, Object id, String code, String where) throws Exception {
        Map<?, ?> r = (Map<?, ?>) Json.parse(reply);
        assertEquals(reply, Arrays.asList("id", "ok", "error"), new ArrayList<Object>(r.keySet()));
        assertEquals(reply, id, r.get("id"));
        assertEquals(reply, Boolean.FALSE, r.get("ok"));
        Map<?, ?> e = (Map<?, ?>) r.get("error");
        assertEquals(reply, code, e.get("code"));
        assertEquals(reply, where, e.get("where"));
        assertTrue(reply, e.get("message") instanceof String && !((String) e.get("message")).isEmpty());
    }

    @Test
    public void helloReportsTheHarnessAndThePlatform() throws Exception {
        assertEquals(q("{'id':1,'ok':true,'protocol':1,'harness':'0.1.0','platform':'test','sdk':42,"
                + "'release':'1.2','model':'bench','manufacturer':'droidstar'}"),
                send("{'id':1,'op':'hello','protocol':1,'host':'droidstar 0.3.0'}"));
    }

    @Test
    public void helloWithAnotherProtocolIsRefused() throws Exception {
        assertError(send("{'id':1,'op':'hello','protocol':2}"), 1L, "protocol", null);
        assertError(send("{'id':2,'op':'hello'}"), 2L, "bad-request", null);
    }

    @Test
    public void pingAndBye() throws Exception {
        List<String> replies = converse("{'id':4,'op':'ping'}", "{'id':5,'op':'bye'}", "{'id':6,'op':'ping'}");
        assertEquals(Arrays.asList(q("{'id':4,'ok':true}"), q("{'id':5,'ok':true}")), replies);
    }

    @Test
    public void serveReturnsAtTheEndOfTheInput() throws Exception {
        assertEquals(Arrays.asList(q("{'id':4,'ok':true}")), converse("{'id':4,'op':'ping'}"));
    }

    @Test
    public void aConversationThroughPipesOneRequestAtATime() throws Exception {
        PipedOutputStream toServer = new PipedOutputStream();
        final PipedInputStream serverIn = new PipedInputStream(toServer, 1 << 16);
        PipedInputStream fromServer = new PipedInputStream(1 << 16);
        final PipedOutputStream serverOut = new PipedOutputStream(fromServer);
        final AtomicReference<Throwable> failure = new AtomicReference<Throwable>();
        Thread t = new Thread(new Runnable() {
            @Override
            public void run() {
                try {
                    server.serve(serverIn, serverOut);
                    serverOut.close();
                } catch (Throwable e) {
                    failure.set(e);
                }
            }
        });
        t.start();
        BufferedReader replies = new BufferedReader(new InputStreamReader(fromServer, "UTF-8"));
        OutputStream w = toServer;
        w.write((q("{'id':1,'op':'hello','protocol':1}") + "\n").getBytes("UTF-8"));
        w.flush();
        assertTrue(replies.readLine().startsWith(q("{'id':1,'ok':true,'protocol':1,")));
        w.write((q("{'id':2,'op':'configure','purpose':" + basePurpose(20, 0, 0) + "}") + "\n").getBytes("UTF-8"));
        w.flush();
        assertTrue(replies.readLine().startsWith(q("{'id':2,'ok':true,'callins':['fireA',")));
        w.write((q("{'id':3,'op':'run','queries':[['fireA','wait'],['wait']]}") + "\n").getBytes("UTF-8"));
        w.flush();
        Map<?, ?> run = (Map<?, ?>) Json.parse(replies.readLine());
        assertEquals(3L, run.get("id"));
        assertEquals(2, ((List<?>) run.get("results")).size());
        w.write((q("{'id':4,'op':'bye'}") + "\n").getBytes("UTF-8"));
        w.flush();
        assertEquals(q("{'id':4,'ok':true}"), replies.readLine());
        assertNull("the harness closes the stream after bye", replies.readLine());
        t.join(10000);
        assertFalse(t.isAlive());
        assertNull(failure.get());
    }

    @Test
    public void configureAnswersSymbolsCallbacksAndShims() throws Exception {
        assertEquals(q("{'id':1,'ok':true,'callins':['fireA','fireB','fire2','err','ping','fail','failChecked',"
                + "'failError','failNull','async','arm','release','where','ask','noop'],"
                + "'callbacks':['onEvent/a','onEvent','onError'],'shims':[]}"),
                send("{'id':1,'op':'configure','purpose':" + basePurpose(20, 0, 0) + "}"));
    }

    @Test
    public void runAnswersEveryResultField() throws Exception {
        configure(basePurpose(20, 0, 0));
        Map<?, ?> r = (Map<?, ?>) Json.parse(send("{'id':3,'op':'run','queries':[['fireA','wait','wait'],['fail']]}"));
        assertEquals(Arrays.asList("id", "ok", "results"), new ArrayList<Object>(r.keySet()));
        List<?> results = (List<?>) r.get("results");
        Map<?, ?> first = (Map<?, ?>) results.get(0);
        assertEquals(Arrays.asList("outputs", "ms", "device_ms", "stragglers", "ignored", "violations"),
                new ArrayList<Object>(first.keySet()));
        Map<?, ?> second = (Map<?, ?>) results.get(1);
        assertEquals(Arrays.asList("outputs", "ms", "device_ms", "stragglers", "ignored", "violations", "err"),
                new ArrayList<Object>(second.keySet()));
        assertTrue(second.get("device_ms") instanceof Double);
    }

    @Test
    public void badRequests() throws Exception {
        assertError(send("this is not json"), null, "bad-request", null);
        assertError(send("[1,2]"), null, "bad-request", null);
        assertError(send("{'op':'ping'}"), null, "bad-request", null);
        assertError(send("{'id':'seven','op':'ping'}"), null, "bad-request", null);
        assertError(send("{'id':7}"), 7L, "bad-request", null);
        assertError(send("{'id':7,'op':3}"), 7L, "bad-request", null);
        assertError(send(""), null, "bad-request", null);
        configure(basePurpose(20, 0, 0));
        assertError(send("{'id':8,'op':'run'}"), 8L, "bad-request", null);
        assertError(send("{'id':8,'op':'run','queries':['fireA']}"), 8L, "bad-request", null);
        assertError(send("{'id':8,'op':'run','queries':[[1]]}"), 8L, "bad-request", null);
        assertError(send("{'id':8,'op':'configure'}"), 8L, "bad-request", null);
    }

    @Test
    public void unknownOp() throws Exception {
        assertError(send("{'id':3,'op':'learn'}"), 3L, "unknown-op", null);
    }

    @Test
    public void runBeforeConfigureAndAfterAFailedConfigure() throws Exception {
        assertError(send("{'id':3,'op':'run','queries':[[]]}"), 3L, "not-configured", null);
        configure(basePurpose(20, 0, 0));
        run1("['fireA']");
        configureError("{'name':'X','class':'no.such.Class','callins':[],'timeouts':{'quiescence_ms':1}}");
        assertError(send("{'id':3,'op':'run','queries':[['fireA']]}"), 3L, "not-configured", null);
    }

    @Test
    public void unknownSymbolChangesNothing() throws Exception {
        configure(basePurpose(20, 0, 0));
        assertError(send("{'id':3,'op':'run','queries':[['fireA'],['fireA','fly']]}"), 3L, "unknown-symbol", null);
        assertTrue("no query ran", Fixtures.log().isEmpty());
        assertEquals(q("['ok']"), outputs(run1("['fireA']")));
    }

    @Test
    public void internalErrorsLeaveTheHarnessUsable() throws Exception {
        platform.brokenName = true;
        assertError(send("{'id':1,'op':'hello','protocol':1}"), 1L, "internal", null);
        assertEquals(q("{'id':2,'ok':true}"), send("{'id':2,'op':'ping'}"));
    }

    @Test
    public void purposeFieldsOfTheWrongTypeAreBadRequestsWithTheirPath() throws Exception {
        String t = "'class':'" + TARGET + "','timeouts':{'quiescence_ms':1}";
        assertEquals("name", configureError("{'class':'" + TARGET + "','callins':[],'timeouts':{'quiescence_ms':1}}")
                .get("where"));
        assertEquals("callins", configureError("{'name':'X'," + t + "}").get("where"));
        assertEquals("timeouts", configureError("{'name':'X','class':'" + TARGET + "','callins':[]}").get("where"));
        assertEquals("timeouts.quiescence_ms", configureError("{'name':'X','class':'" + TARGET
                + "','callins':[],'timeouts':{'quiescence_ms':-1}}").get("where"));
        assertEquals("timeouts.settle_ms", configureError("{'name':'X','class':'" + TARGET
                + "','callins':[],'timeouts':{'quiescence_ms':1,'settle_ms':'1s'}}").get("where"));
        assertEquals("callins[0].symbol", configureError("{'name':'X'," + t
                + ",'callins':[{'symbol':'wait','method':null}]}").get("where"));
        assertEquals("callins[1].symbol", configureError("{'name':'X'," + t
                + ",'callins':[{'symbol':'a','method':null},{'symbol':'a','method':null}]}").get("where"));
        assertEquals("callins[0].method", configureError("{'name':'X'," + t
                + ",'callins':[{'symbol':'a','method':null,'args':[1]}]}").get("where"));
        assertEquals("shim.sleep_ms", configureError("{'name':'X'," + t
                + ",'shim':{'sleep_ms':[1]},'callins':[]}").get("where"));
        assertEquals("new", configureError("{'name':'X'," + t + ",'new':{},'callins':[]}").get("where"));
        assertEquals("factory", configureError("{'name':'X'," + t
                + ",'new':[],'factory':{'method':'create','args':['x']},'callins':[]}").get("where"));
        Map<String, Object> e = configureError("{'name':'X'," + t + ",'callins':[3]}");
        assertEquals("bad-request", e.get("code"));
        assertEquals("callins[0]", e.get("where"));
    }

    @Test
    public void unknownClass() throws Exception {
        Map<String, Object> e = configureError("{'name':'X','class':'no.such.Thing','callins':[],"
                + "'timeouts':{'quiescence_ms':1}}");
        assertEquals("unknown-class", e.get("code"));
        assertEquals("class", e.get("where"));
        e = configureError("{'name':'X','class':'" + TARGET + "','listeners':[{'type':'no.such.Listener'}],"
                + "'callins':[],'timeouts':{'quiescence_ms':1}}");
        assertEquals("unknown-class", e.get("code"));
        assertEquals("listeners[0].type", e.get("where"));
        e = configureError("{'name':'X','class':'" + TARGET + "','factory':{'class':'no.Such','method':'m'},"
                + "'callins':[],'timeouts':{'quiescence_ms':1}}");
        assertEquals("unknown-class", e.get("code"));
        assertEquals("factory.class", e.get("where"));
        e = configureError("{'name':'X','class':'" + TARGET + "','adapters':['no.such.Adapter'],"
                + "'callins':[],'timeouts':{'quiescence_ms':1}}");
        assertEquals("unknown-class", e.get("code"));
        assertEquals("adapters[0]", e.get("where"));
        e = configureError("{'name':'X','class':'org.droidstar.harness.core.Fixtures$Unshimmed',"
                + "'callins':[],'timeouts':{'quiescence_ms':1}}");
        assertEquals("unknown-class", e.get("code"));
        assertEquals("class", e.get("where"));
    }

    @Test
    public void unknownMethod() throws Exception {
        String head = "{'name':'X','class':'" + TARGET + "','timeouts':{'quiescence_ms':1},";
        Map<String, Object> e = configureError(head + "'callins':[{'symbol':'s','method':'schedul','args':[]}]}");
        assertEquals("unknown-method", e.get("code"));
        assertEquals("callins[0].method", e.get("where"));
        e = configureError(head + "'new':[1,2,3],'callins':[]}");
        assertEquals("unknown-method", e.get("code"));
        assertEquals("new", e.get("where"));
        e = configureError(head + "'init':[{'method':'nothing'}],'callins':[]}");
        assertEquals("init[0].method", e.get("where"));
        e = configureError(head + "'dispose':{'method':'nothing'},'callins':[]}");
        assertEquals("dispose.method", e.get("where"));
        e = configureError(head + "'factory':{'method':'fire','args':['x']},'callins':[]}");
        assertEquals("unknown-method", e.get("code"));
        assertEquals("factory.method", e.get("where"));
        e = configureError(head + "'listeners':[{'type':'" + LISTENER + "','register':'addListener'}],'callins':[]}");
        assertEquals("unknown-method", e.get("code"));
        assertEquals("listeners[0].register", e.get("where"));
        e = configureError(head + "'listeners':[{'type':'" + LISTENER + "'}],"
                + "'callins':[{'symbol':'s','method':'onEvnt','on':{'listener':'" + LISTENER + "'},'args':['x']}]}");
        assertEquals("unknown-method", e.get("code"));
        assertEquals("callins[0].method", e.get("where"));
    }

    @Test
    public void unknownListener() throws Exception {
        String head = "{'name':'X','class':'" + TARGET + "','timeouts':{'quiescence_ms':1},";
        Map<String, Object> e = configureError(head
                + "'listeners':[{'type':'java.lang.String'}],'callins':[]}");
        assertEquals("unknown-listener", e.get("code"));
        assertEquals("listeners[0].type", e.get("where"));
        e = configureError(head + "'listeners':[{'type':'java.lang.Runnable','register':'setListener'}],'callins':[]}");
        assertEquals("unknown-listener", e.get("code"));
        assertEquals("listeners[0].register", e.get("where"));
        e = configureError(head + "'callins':[{'symbol':'t','method':'take','args':[{'listener':'" + LISTENER + "'}]}]}");
        assertEquals("unknown-listener", e.get("code"));
        assertEquals("callins[0].args[0]", e.get("where"));
        e = configureError(head + "'listeners':[{'type':'" + LISTENER + "'},{'type':'" + LISTENER + "'}],'callins':[]}");
        assertEquals("bad-request", e.get("code"));
        assertEquals("listeners[1].type", e.get("where"));
    }

    @Test
    public void unknownCallback() throws Exception {
        String head = "{'name':'X','class':'" + TARGET + "','timeouts':{'quiescence_ms':1},'callins':[],";
        Map<String, Object> e = configureError(head + "'listeners':[{'type':'" + LISTENER + "'}],"
                + "'callbacks':[{'name':'onEvent'},{'name':'onPrepared','error':false}]}");
        assertEquals("unknown-callback", e.get("code"));
        assertEquals("callbacks[1].name", e.get("where"));
        e = configureError(head + "'callbacks':[{'name':'onEvent'}]}");
        assertEquals("unknown-callback", e.get("code"));
        e = configureError(head + "'listeners':[{'type':'" + LISTENER + "'}],"
                + "'callbacks':[{'name':'onEvent'},{'name':'onEvent'}]}");
        assertEquals("bad-request", e.get("code"));
        assertEquals("callbacks[1].name", e.get("where"));
        e = configureError(head + "'listeners':[{'type':'" + LISTENER + "'}],'callbacks':[{'name':'onEvent/'}]}");
        assertEquals("bad-request", e.get("code"));
        e = configureError(head + "'listeners':[{'type':'" + LISTENER + "'}],'callbacks':[{'name':'onEvent','error':1}]}");
        assertEquals("callbacks[0].error", e.get("where"));
    }

    @Test
    public void badArgument() throws Exception {
        String head = "{'name':'X','class':'org.droidstar.harness.core.Fixtures$Overloads',"
                + "'timeouts':{'quiescence_ms':1},'callins':[";
        String[][] cases = {
            {"{'symbol':'s','method':'onlyInt','args':['seven']}", "callins[0].args[0]"},
            {"{'symbol':'s','method':'onlyInt','args':[4294967296]}", "callins[0].args[0]"},
            {"{'symbol':'s','method':'onlyInt','args':[{'int':1.5}]}", "callins[0].args[0].int"},
            {"{'symbol':'s','method':'onlyInt','args':[{'int':4294967296}]}", "callins[0].args[0].int"},
            {"{'symbol':'s','method':'onlyInt','args':[{'long':'x'}]}", "callins[0].args[0].long"},
            {"{'symbol':'s','method':'two','args':[1,{'int':2}]}", "callins[0].args[1]"},
            {"{'symbol':'s','method':'onlyInt','args':[{'int':1,'long':2}]}", "callins[0].args[0]"},
            {"{'symbol':'s','method':'onlyInt','args':[{'weird':1}]}", "callins[0].args[0]"},
            {"{'symbol':'s','method':'onlyInt','args':[[1]]}", "callins[0].args[0]"},
            {"{'symbol':'s','method':'onlyInt','args':[{'constant':'NoDot'}]}", "callins[0].args[0].constant"},
            {"{'symbol':'s','method':'onlyInt','args':[{'constant':'" + TARGET + ".MISSING'}]}",
                "callins[0].args[0].constant"},
            {"{'symbol':'s','method':'onlyInt','args':[{'constant':'" + TARGET + ".instanceField'}]}",
                "callins[0].args[0].constant"},
            {"{'symbol':'s','method':'flags','args':[{'constant':['" + TARGET + ".FLAG_A','" + TARGET + ".NAME']}]}",
                "callins[0].args[0].constant[1]"},
            {"{'symbol':'s','method':'onlyInt','args':[{'target':true}]}", "callins[0].args[0]"},
            {"{'symbol':'s','method':'onlyInt','args':[{'target':false}]}", "callins[0].args[0].target"},
            {"{'symbol':'s','method':'path','args':[{'file':'../escape'}]}", "callins[0].args[0].file"},
            {"{'symbol':'s','method':'path','args':[{'file':'/etc/passwd'}]}", "callins[0].args[0].file"},
            {"{'symbol':'s','method':'onlyInt','on':null,'args':[null]}", "callins[0].args[0]"},
            {"{'symbol':'s','method':'path','args':[{'file':''}]}", "callins[0].args[0].file"},
            {"{'symbol':'s','method':'onlyInt','on':null,'args':[1]},{'symbol':'t','method':'charAt',"
                + "'on':{'string':'abc'},'args':['x']}", "callins[1].args[0]"},
        };
        for (String[] c : cases) {
            Map<String, Object> e = configureError(head + c[0] + "]}");
            assertEquals(c[0] + ": " + e, "bad-argument", e.get("code"));
            assertEquals(c[0] + ": " + e, c[1], e.get("where"));
        }
        Map<String, Object> e = configureError("{'name':'X','class':'" + TARGET + "','new':[{'target':true}],"
                + "'timeouts':{'quiescence_ms':1},'callins':[]}");
        assertEquals("bad-argument", e.get("code"));
        assertEquals("new[0]", e.get("where"));
        e = configureError("{'name':'X','class':'" + TARGET + "','timeouts':{'quiescence_ms':1},"
                + "'callins':[{'symbol':'s','method':'toString','on':{'listener':'" + LISTENER + "'}}]}");
        assertEquals("unknown-listener", e.get("code"));
    }

    @Test
    public void badAction() throws Exception {
        String head = "{'name':'X','class':'" + TARGET + "','timeouts':{'quiescence_ms':1},";
        String[][] cases = {
            {"'setup':[{'action':'explode','file':'a'}],'callins':[]", "setup[0].action"},
            {"'setup':[{'file':'a'}],'callins':[]", "setup[0]"},
            {"'setup':['write'],'callins':[]", "setup[0]"},
            {"'setup':[{'action':'write'}],'callins':[]", "setup[0].file"},
            {"'setup':[{'action':'write','file':'a','content':3}],'callins':[]", "setup[0].content"},
            {"'setup':[{'action':'delete','file':'a','content':'x'}],'callins':[]", "setup[0].content"},
            {"'setup':[{'action':'sqlite','file':'a.db','version':'2'}],'callins':[]", "setup[0].version"},
            {"'setup':[{'action':'sleep','ms':-1}],'callins':[]", "setup[0].ms"},
            {"'setup':[{'action':'touch','file':'../../x'}],'callins':[]", "setup[0].file"},
            {"'callins':[{'symbol':'a','method':null,'actions':[{'action':'append'}]}]", "callins[0].actions[0].file"},
        };
        for (String[] c : cases) {
            Map<String, Object> e = configureError(head + c[0] + "}");
            assertEquals(c[0] + ": " + e, "bad-action", e.get("code"));
            assertEquals(c[0] + ": " + e, c[1], e.get("where"));
        }
    }

    @Test
    public void unknownPurposeFieldsAreIgnored() throws Exception {
        configure("{'name':'X','class':'" + TARGET + "','future':{'x':1},'callins':[],'timeouts':{'quiescence_ms':1}}");
    }

    @Test
    public void repliesAreOneLineEvenForMessagesWithLineBreaks() throws Exception {
        String r = send("{'id':1,'op':'configure','purpose':{'name':'X','class':'no.such\\nClass','callins':[],"
                + "'timeouts':{'quiescence_ms':1}}}");
        assertFalse(r.contains("\n"));
        assertError(r, 1L, "unknown-class", "class");
    }
}
