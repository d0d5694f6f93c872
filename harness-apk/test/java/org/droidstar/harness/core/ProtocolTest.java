package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.Test;

/**
 * What the protocol corpus (CorpusTest) cannot show: a conversation one
 * request at a time, that a refused batch runs nothing, and the refusals
 * that only reflection over the fixtures' classes can produce.
 */
public class ProtocolTest extends ServerTestBase {

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
        w.write((q("{'id':1,'op':'hello','protocol':2}") + "\n").getBytes("UTF-8"));
        w.flush();
        assertTrue(replies.readLine().startsWith(q("{'id':1,'ok':true,'protocol':2,")));
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
    public void aRefusedBatchRunsNothing() throws Exception {
        configure(basePurpose(20, 0, 0));
        Map<String, Object> r = reply("{'id':3,'op':'run','queries':[['fireA'],['fireA','fly']]}");
        assertEquals("unknown-symbol", ((Map<?, ?>) r.get("error")).get("code"));
        assertTrue("no query ran: " + Fixtures.log(), Fixtures.log().isEmpty());
        assertEquals(q("['ok']"), outputs(run1("['fireA']")));
    }

    private void assertRefused(String purpose, String code, String where) throws Exception {
        Map<String, Object> e = configureError(purpose);
        assertEquals(purpose + ": " + e, code, e.get("code"));
        assertEquals(purpose + ": " + e, where, e.get("where"));
    }

    @Test
    public void unknownClass() throws Exception {
        assertRefused("{'name':'X','class':'" + TARGET + "','adapters':['no.such.Adapter'],"
                + "'callins':[],'timeouts':{'quiescence':1}}", "unknown-class", "adapters[0]");
        assertRefused("{'name':'X','class':'org.droidstar.harness.core.Fixtures$Unshimmed',"
                + "'callins':[],'timeouts':{'quiescence':1}}", "unknown-class", "class");
        assertRefused("{'name':'X','class':'" + ResolutionTest.OVERLOADS + "','callins':[{'symbol':'s','call':'flags',"
                + "'args':[{'constant':'no.such.K.X'}]}],'timeouts':{'quiescence':1}}", "unknown-class",
                "callins[0].args[0].constant");
    }

    @Test
    public void unknownMethod() throws Exception {
        String head = "{'name':'X','class':'" + TARGET + "','timeouts':{'quiescence':1},";
        assertRefused(head + "'callins':[{'symbol':'s','call':'schedul','args':[]}]}", "unknown-method",
                "callins[0].call");
        assertRefused(head + "'target':{'new':[1,2,3]},'callins':[]}", "unknown-method", "target.new");
        assertRefused(head + "'target':{'init':[{'call':'nothing'}]},'callins':[]}", "unknown-method",
                "target.init[0].call");
        assertRefused(head + "'target':{'dispose':{'call':'nothing'}},'callins':[]}", "unknown-method",
                "target.dispose.call");
        assertRefused(head + "'target':{'factory':{'method':'fire','args':['x']}},'callins':[]}", "unknown-method",
                "target.factory.method");
        assertRefused(head + "'target':{'listeners':[{'type':'" + LISTENER + "','register':'addListener'}]},"
                + "'callins':[]}", "unknown-method", "target.listeners[0].register");
        assertRefused(head + "'target':{'listeners':[{'type':'" + LISTENER + "'}]},"
                + "'callins':[{'symbol':'s','call':'onEvnt','on':{'listener':'" + LISTENER + "'},'args':['x']}]}",
                "unknown-method", "callins[0].call");
    }

    @Test
    public void unknownListener() throws Exception {
        String head = "{'name':'X','class':'" + TARGET + "','timeouts':{'quiescence':1},";
        assertRefused(head + "'target':{'listeners':[{'type':'java.lang.String'}]},'callins':[]}", "unknown-listener",
                "target.listeners[0].type");
        assertRefused(head + "'target':{'listeners':[{'type':'java.lang.Runnable','register':'setListener'}]},"
                + "'callins':[]}", "unknown-listener", "target.listeners[0].register");
        assertRefused(head + "'callins':[{'symbol':'s','call':'toString','on':{'listener':'" + LISTENER + "'}}]}",
                "unknown-listener", "callins[0].on");
    }

    @Test
    public void callbacksOfShims() throws Exception {
        String head = "{'name':'Task','class':'org.droidstar.harness.core.Fixtures$Task','target':{'new':[5]},"
                + "'callins':[],'timeouts':{'quiescence':1},";
        configure(head + "'callbacks':[{'symbol':'r','from':['onResult/10']},{'symbol':'execute'}]}");
        Map<String, Object> e = configureError(head + "'callbacks':[{'symbol':'onResults'}]}");
        assertEquals("unknown-callback", e.get("code"));
        assertEquals("callbacks[0].symbol", e.get("where"));
        assertEquals("onResults is no method of any listener or shim of the purpose (they have onCancelled, onResult, "
                + "cancel, execute)", e.get("message"));
    }

    @Test
    public void badArgumentsThatOnlyTheParameterTypesTell() throws Exception {
        String head = "{'name':'X','class':'" + ResolutionTest.OVERLOADS + "','timeouts':{'quiescence':1},'callins':[";
        String[][] cases = {
            {"{'symbol':'s','call':'onlyInt','args':['seven']}", "callins[0].args[0]"},
            {"{'symbol':'s','call':'onlyInt','args':[4294967296]}", "callins[0].args[0]"},
            {"{'symbol':'s','call':'two','args':[1,{'int':2}]}", "callins[0].args[1]"},
            {"{'symbol':'s','call':'onlyInt','args':[{'constant':'" + TARGET + ".MISSING'}]}",
                "callins[0].args[0].constant"},
            {"{'symbol':'s','call':'onlyInt','args':[{'constant':'" + TARGET + ".instanceField'}]}",
                "callins[0].args[0].constant"},
            {"{'symbol':'s','call':'flags','args':[{'constant':['" + TARGET + ".FLAG_A','" + TARGET + ".NAME']}]}",
                "callins[0].args[0].constant[1]"},
            {"{'symbol':'s','call':'onlyInt','args':[{'target':true}]}", "callins[0].args[0]"},
            {"{'symbol':'s','call':'onlyInt','on':null,'args':[null]}", "callins[0].args[0]"},
            {"{'symbol':'s','call':'onlyInt','on':null,'args':[1]},{'symbol':'t','call':'charAt',"
                + "'on':{'string':'abc'},'args':['x']}", "callins[1].args[0]"},
        };
        for (String[] c : cases) {
            assertRefused(head + c[0] + "]}", "bad-argument", c[1]);
        }
    }
}
