package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.Test;

/** The query runner through the Server: buffering, quiet chains, generations, violations, errors. */
public class RunnerTest extends ServerTestBase {

    @Test
    public void callbacksDuringACallinAreBufferedAndDeliveredOldestFirst() throws Exception {
        configure(basePurpose(50, 0, 0));
        Map<String, Object> r = run1("['fire2','fireB','wait','wait','wait','wait']");
        assertEquals(q("['ok','ok','onEvent/a','onEvent','onEvent','quiet']"), outputs(r));
        assertNull(r.get("err"));
        assertEquals(0L, r.get("stragglers"));
        assertEquals(0L, r.get("ignored"));
        assertEquals("[]", Json.write(r.get("violations")));
    }

    @Test
    public void aDetailedNameWinsOverThePlainName() throws Exception {
        configure(basePurpose(50, 0, 0));
        assertEquals(q("['ok','onEvent/a','ok','onEvent']"), outputs(run1("['fireA','wait','fireB','wait']")));
    }

    @Test
    public void anAsynchronousCallbackIsDeliveredByAWait() throws Exception {
        configure(basePurpose(20000, 0, 0));
        Map<String, Object> r = run1("['async','wait']");
        assertEquals(q("['ok','onEvent']"), outputs(r));
        double waited = ((Number) ((List<?>) r.get("ms")).get(1)).doubleValue();
        assertTrue("the wait ended when the callback came, not at quiescence: " + waited, waited < 20000);
    }

    @Test
    public void aRunsQuiescenceReplacesThePurposes() throws Exception {
        configure(basePurpose(20000, 0, 0));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rs = (List<Map<String, Object>>) reply(
                "{'id':9,'op':'run','queries':[['wait','fireA','wait']],'quiescence':50}").get("results");
        Map<String, Object> r = rs.get(0);
        assertEquals(q("['quiet','ok','onEvent/a']"), outputs(r));
        double waited = ((Number) ((List<?>) r.get("ms")).get(0)).doubleValue();
        assertTrue("the quiet wait waited the run's 50 ms, not the purpose's 20 s: " + waited,
                waited >= 49 && waited < 20000);
    }

    @Test
    public void eachWaitGivesUpAfterItsOwnTimeout() throws Exception {
        configure(basePurpose(20000, 0, 0));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rs = (List<Map<String, Object>>) reply(
                "{'id':9,'op':'run','queries':[['wait','fireA','wait','wait']],'waits':[[40,0,200]],'quiescence':20000}")
                .get("results");
        Map<String, Object> r = rs.get(0);
        assertEquals(q("['quiet','ok','onEvent/a','quiet']"), outputs(r));
        List<?> ms = (List<?>) r.get("ms");
        double first = ((Number) ms.get(0)).doubleValue(), last = ((Number) ms.get(3)).doubleValue();
        assertTrue("the first wait waited its own 40 ms, not the run's 20 s: " + first, first >= 39 && first < 20000);
        assertTrue("the last wait waited its own 200 ms: " + last, last >= 199 && last < 20000);
    }

    @Test
    public void aWaitWithNoCallbackIsQuietAndAQuietChainDoesNotWaitAgain() throws Exception {
        configure(basePurpose(60, 0, 0));
        Map<String, Object> r = run1("['wait','wait','wait','fireA','wait','wait']");
        assertEquals(q("['quiet','quiet','quiet','ok','onEvent/a','quiet']"), outputs(r));
        List<?> ms = (List<?>) r.get("ms");
        assertTrue("the first wait waits the quiescence", ((Number) ms.get(0)).doubleValue() >= 59);
        assertEquals(0.0, ((Number) ms.get(1)).doubleValue(), 0);
        assertEquals(0.0, ((Number) ms.get(2)).doubleValue(), 0);
        assertTrue(((Number) ms.get(5)).doubleValue() >= 59);
    }

    @Test
    public void aQuietChainAnswersQuietEvenWhenALateCallbackIsBuffered() throws Exception {
        configure(basePurpose(30, 0, 0));
        server.buffer().hook = new CallbackBuffer.Hook() {
            @Override
            public void opened(String kind, int at) {
                if (kind.equals("late") && at == 0) {
                    Fixtures.lastListener.onEvent("late");
                }
            }
        };
        Map<String, Object> r = run1("['wait','wait','noop','wait']");
        assertEquals(q("['quiet','quiet','ok','onEvent']"), outputs(r));
        assertEquals(q("[{'kind':'late','at':0,'callback':'onEvent'}]"), Json.write(r.get("violations")));
    }

    @Test
    public void aCallbackBetweenTwoCallinsIsAViolation() throws Exception {
        configure(basePurpose(30, 0, 0));
        server.buffer().hook = new CallbackBuffer.Hook() {
            @Override
            public void opened(String kind, int at) {
                if (kind.equals("between-callins")) {
                    Fixtures.lastListener.onEvent("a");
                }
            }
        };
        Map<String, Object> r = run1("['noop','noop','wait','noop']");
        assertEquals(q("['ok','ok','onEvent/a','ok']"), outputs(r));
        assertEquals(q("[{'kind':'between-callins','at':1,'callback':'onEvent/a'}]"),
                Json.write(r.get("violations")));
    }

    @Test
    public void aCallbackAfterTheLastQuietWhileSettlingIsLate() throws Exception {
        configure(basePurpose(30, 0, 0));
        server.buffer().hook = new CallbackBuffer.Hook() {
            @Override
            public void opened(String kind, int at) {
                Fixtures.lastListener.onEvent("b");
            }
        };
        Map<String, Object> r = run1("['fireA','wait','wait']");
        assertEquals(q("['ok','onEvent/a','quiet']"), outputs(r));
        assertEquals(q("[{'kind':'late','at':2,'callback':'onEvent'}]"), Json.write(r.get("violations")));
    }

    @Test
    public void callbacksOfAnEarlierQueryAreStragglersOfTheQueryTheyArriveIn() throws Exception {
        configure(basePurpose(30, 0, 0));
        List<Map<String, Object>> rs = run("[['arm','wait'],['release','wait'],['wait']]");
        assertEquals(q("['ok','quiet']"), outputs(rs.get(0)));
        assertEquals(0L, rs.get(0).get("stragglers"));
        assertEquals(q("['ok','quiet']"), outputs(rs.get(1)));
        assertEquals(1L, rs.get(1).get("stragglers"));
        assertEquals(0L, rs.get(2).get("stragglers"));
        assertEquals("[]", Json.write(rs.get(1).get("violations")));
    }

    @Test
    public void callbacksOfAQueryThatSkippedItsSettleTimeAreNoStragglers() throws Exception {
        configure(basePurpose(30, 0, 0));
        // ['arm'] ends on a callin: no late window is open, so it disposes
        // at once, and its instance's callback is no straggler of the next.
        List<Map<String, Object>> rs = run("[['arm'],['release','wait']]");
        assertEquals(q("['ok','quiet']"), outputs(rs.get(1)));
        assertEquals(0L, rs.get(1).get("stragglers"));
        assertEquals("[]", Json.write(rs.get(1).get("violations")));
    }

    @Test
    public void undeclaredListenerMethodsAreIgnoredAndCounted() throws Exception {
        configure(basePurpose(30, 0, 0));
        Map<String, Object> r = run1("['ping','ping','wait']");
        assertEquals(q("['ok','ok','quiet']"), outputs(r));
        assertEquals(2L, r.get("ignored"));
        // ping is split by no detail: the method alone says what is missing
        assertEquals(q("[{'method':'onPing','detail':null,'count':2}]"), Json.write(r.get("undeclared")));
    }

    @Test
    public void aThrowingCallinAnswersErrAndStopsTheQuery() throws Exception {
        configure(basePurpose(30, 0, 0));
        Map<String, Object> r = run1("['fireA','fail','wait','fireA']");
        assertEquals(q("['ok','err']"), outputs(r));
        assertEquals(q("{'at':1,'kind':'thrown','exception':'java.lang.IllegalStateException','message':'nope'}"),
                Json.write(r.get("err")));
        assertEquals(Fixtures.log().toString(), 1, count(Fixtures.log(), "close"));
    }

    @Test
    public void checkedExceptionsErrorsAndNullMessagesAreReportedUnwrapped() throws Exception {
        configure(basePurpose(30, 0, 0));
        List<Map<String, Object>> rs = run("[['failChecked'],['failError'],['failNull']]");
        assertEquals(q("{'at':0,'kind':'thrown','exception':'java.io.IOException','message':'checked nope'}"),
                Json.write(rs.get(0).get("err")));
        assertEquals(q("{'at':0,'kind':'thrown','exception':'java.lang.AssertionError',"
                + "'message':'an error, not an exception'}"), Json.write(rs.get(1).get("err")));
        assertEquals(q("{'at':0,'kind':'thrown','exception':'java.lang.UnsupportedOperationException',"
                + "'message':null}"), Json.write(rs.get(2).get("err")));
    }

    @Test
    public void aDeliveredErrorCallbackAnswersErr() throws Exception {
        configure(basePurpose(30, 0, 0));
        Map<String, Object> r = run1("['fireA','err','wait','wait','fireA']");
        assertEquals(q("['ok','ok','onEvent/a','err']"), outputs(r));
        assertEquals(q("{'at':3,'kind':'error-callback','callback':'onError'}"), Json.write(r.get("err")));
    }

    @Test
    public void callinsAndTheResetRunOnTheMainThread() throws Exception {
        configure(basePurpose(30, 0, 0));
        run1("['where']");
        assertEquals("[new Target() on test-main, on test-main, close]", Fixtures.log().toString());
    }

    @Test
    public void anEmptyQueryStillResetsAndDisposes() throws Exception {
        configure(basePurpose(30, 0, 0));
        Map<String, Object> r = run1("[]");
        assertEquals("[]", outputs(r));
        assertEquals("[new Target() on test-main, close]", Fixtures.log().toString());
    }

    @Test
    public void resetAndSettleTimesCountInDeviceMs() throws Exception {
        configure(basePurpose(30, 40, 30));
        Map<String, Object> r = run1("['noop','wait']");
        assertEquals(q("['ok','quiet']"), outputs(r));
        assertTrue(((Number) r.get("device_ms")).doubleValue() >= 30 + 30 + 40);
    }

    @Test
    public void onlyAQueryEndingInAQuietChainSpendsItsSettleTime() throws Exception {
        // a minute's settle: a query that spent it could not end sooner
        configure(basePurpose(30, 60000, 0));
        List<Map<String, Object>> rs = run("[['noop'],['fireA','wait'],['noop','fail','wait']]");
        assertEquals(q("['ok']"), outputs(rs.get(0)));
        assertEquals(q("['ok','onEvent/a']"), outputs(rs.get(1)));
        assertEquals(q("['ok','err']"), outputs(rs.get(2)));
        for (Map<String, Object> r : rs) {
            assertTrue(Json.write(r), ((Number) r.get("device_ms")).doubleValue() < 60000);
        }
    }

    @Test
    public void aThrowingConstructorIsAResetError() throws Exception {
        configure("{'name':'X','class':'" + TARGET + "','target':{'new':['boom']},"
                + "'callins':[{'symbol':'noop'}],'timeouts':{'quiescence':10}}");
        Map<String, Object> r = run1("['noop','wait']");
        assertEquals(q("['err']"), outputs(r));
        assertEquals(q("{'at':0,'kind':'reset','exception':'java.lang.IllegalArgumentException',"
                + "'message':'boom in the constructor'}"), Json.write(r.get("err")));
    }

    @Test
    public void aFailingSetupActionIsAResetError() throws Exception {
        assertTrue(new java.io.File(dir, "plain").createNewFile());
        configure("{'name':'X','class':'" + TARGET + "','setup':[{'write':{'file':'plain/below','content':'x'}}],"
                + "'callins':[{'symbol':'noop'}],'timeouts':{'quiescence':10}}");
        Map<String, Object> r = run1("['noop']");
        assertEquals(q("['err']"), outputs(r));
        Map<?, ?> err = (Map<?, ?>) r.get("err");
        assertEquals("reset", err.get("kind"));
        assertEquals(0L, err.get("at"));
        assertEquals("java.io.IOException", err.get("exception"));
    }

    @Test
    public void aThrowingInitIsAResetErrorAndTheInstanceIsDisposed() throws Exception {
        configure("{'name':'X','class':'" + TARGET + "','target':{'init':[{'call':'fail','args':[]}],"
                + "'dispose':{'call':'close'}},"
                + "'callins':[{'symbol':'noop'}],'timeouts':{'quiescence':10}}");
        Map<String, Object> r = run1("['noop']");
        assertEquals("reset", ((Map<?, ?>) r.get("err")).get("kind"));
        assertEquals(1, count(Fixtures.log(), "close"));
    }

    @Test
    public void aFactoryReturningNullIsAResetError() throws Exception {
        configure("{'name':'X','class':'" + TARGET + "','target':{'factory':{'method':'createNull','args':[]}},"
                + "'callins':[{'symbol':'noop'}],'timeouts':{'quiescence':10}}");
        Map<?, ?> err = (Map<?, ?>) run1("['noop']").get("err");
        assertEquals("reset", err.get("kind"));
        assertEquals("java.lang.NullPointerException", err.get("exception"));
    }

    @Test
    public void aThrowingDisposeIsLoggedAndIgnored() throws Exception {
        configure("{'name':'X','class':'" + TARGET + "','target':{'dispose':{'call':'closeBadly','args':[]}},"
                + "'callins':[{'symbol':'noop'}],'timeouts':{'quiescence':10}}");
        List<Map<String, Object>> rs = run("[['noop'],['noop']]");
        assertEquals(q("['ok']"), outputs(rs.get(0)));
        assertEquals(q("['ok']"), outputs(rs.get(1)));
    }

    @Test
    public void initRunsAfterRegistrationOnEveryReset() throws Exception {
        configure("{'name':'X','class':'" + TARGET + "',"
                + "'target':{'listeners':[{'type':'" + LISTENER + "','register':'setListener'}],"
                + "'init':[{'call':'fire','args':['a']},{'call':'start','args':[2]}]},"
                + "'callins':[{'symbol':'noop'}],'callbacks':[{'symbol':'onEvent'}],"
                + "'timeouts':{'quiescence':10}}");
        List<Map<String, Object>> rs = run("[['wait','wait'],['noop','wait']]");
        assertEquals(q("['onEvent','quiet']"), outputs(rs.get(0)));
        assertEquals(q("['ok','onEvent']"), outputs(rs.get(1)));
        assertEquals(2, count(Fixtures.log(), "start(2)"));
    }

    @Test
    public void callinActionsRunBeforeTheMethod() throws Exception {
        configure("{'name':'X','class':'" + TARGET + "',"
                + "'callins':[{'symbol':'mk','call':'takeFile','args':[{'file':'made.txt'}],"
                + "'do':[{'write':{'file':'made.txt','content':'hello'}}]}],"
                + "'timeouts':{'quiescence':10}}");
        assertEquals(q("['ok']"), outputs(run1("['mk']")));
        assertEquals("hello", new String(java.nio.file.Files.readAllBytes(new java.io.File(dir, "made.txt").toPath()),
                "UTF-8"));
    }

    @Test
    public void aFailingCallinActionIsAThrownErr() throws Exception {
        assertTrue(new java.io.File(dir, "plain").createNewFile());
        configure("{'name':'X','class':'" + TARGET + "',"
                + "'callins':[{'symbol':'bad','do':[{'touch':'plain/x'}]}],"
                + "'timeouts':{'quiescence':10}}");
        Map<String, Object> r = run1("['bad']");
        assertEquals(q("['err']"), outputs(r));
        assertEquals("thrown", ((Map<?, ?>) r.get("err")).get("kind"));
    }

    @Test
    public void theHarnessStaysUsableAfterErrors() throws Exception {
        configure(basePurpose(20, 0, 0));
        assertFalse(Boolean.TRUE.equals(reply("{'id':3,'op':'run','queries':[['nope']]}").get("ok")));
        assertEquals(q("['ok','onEvent/a']"), outputs(run1("['fireA','wait']")));
    }

    static int count(List<String> log, String s) {
        int n = 0;
        for (String l : log) {
            if (l.equals(s)) {
                n++;
            }
        }
        return n;
    }
}
