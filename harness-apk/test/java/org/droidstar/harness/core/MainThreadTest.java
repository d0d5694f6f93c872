package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import org.junit.After;
import org.junit.Test;

/**
 * The main-thread call with its timeout (PostingMainThread), and what the
 * harness does when a call on the main thread does not return: the query
 * answers err of kind timeout and the harness is wedged (PROTOCOL.md,
 * "Timeouts").
 */
public class MainThreadTest extends ServerTestBase {
    /** A main thread of its own, posting to a plain thread per task. */
    private static final class Threads extends PostingMainThread {
        final List<Thread> started = new ArrayList<Thread>();
        volatile Thread current;
        boolean refuse;

        @Override
        protected boolean post(Runnable task) {
            if (refuse) {
                return false;
            }
            Thread t = new Thread(task, "posted");
            t.setDaemon(true);
            current = t;
            started.add(t);
            t.start();
            return true;
        }

        @Override
        protected boolean onMainThread() {
            return Thread.currentThread() == current;
        }
    }

    private final CountDownLatch release = new CountDownLatch(1);

    @After
    public void releaseBlocked() {
        release.countDown();
    }

    @Test
    public void theCallRunsOnTheMainThreadAndRethrowsAsIs() throws Exception {
        final Threads main = new Threads();
        Thread ran = main.call(new Callable<Thread>() {
            @Override
            public Thread call() {
                return Thread.currentThread();
            }
        }, 10000);
        assertSame(main.started.get(0), ran);
        try {
            main.call(new Callable<Object>() {
                @Override
                public Object call() throws Exception {
                    throw new java.io.IOException("as is");
                }
            }, 10000);
            fail();
        } catch (java.io.IOException e) {
            assertEquals("as is", e.getMessage());
        }
        try {
            main.call(new Callable<Object>() {
                @Override
                public Object call() {
                    throw new AssertionError("an error as is");
                }
            }, 10000);
            fail();
        } catch (AssertionError e) {
            assertEquals("an error as is", e.getMessage());
        }
    }

    @Test
    public void aCallFromTheMainThreadRunsAtOnce() throws Exception {
        final Threads main = new Threads();
        String inner = main.call(new Callable<String>() {
            @Override
            public String call() throws Exception {
                // posting and waiting here would wait for itself
                return main.call(new Callable<String>() {
                    @Override
                    public String call() {
                        return Thread.currentThread().getName();
                    }
                }, 10000);
            }
        }, 10000);
        assertEquals("posted", inner);
        assertEquals(1, main.started.size());
    }

    @Test
    public void aMainThreadThatTakesNoTasksIsAnError() throws Exception {
        Threads main = new Threads();
        main.refuse = true;
        try {
            main.call(new Callable<Object>() {
                @Override
                public Object call() {
                    return null;
                }
            }, 10000);
            fail();
        } catch (IllegalStateException e) {
            assertEquals("the main thread takes no more tasks", e.getMessage());
        }
    }

    @Test
    public void aCallThatDoesNotReturnTimesOut() throws Exception {
        Threads main = new Threads();
        try {
            main.call(new Callable<Object>() {
                @Override
                public Object call() throws Exception {
                    release.await();
                    return null;
                }
            }, 50);
            fail();
        } catch (MainThreadTimeout e) {
            assertEquals(50, e.timeoutMs());
            assertEquals("did not return within 50 ms on the main thread", e.getMessage());
        }
    }

    @Test
    public void theTimeoutIsTenQuiescencesAndAtLeastTenSeconds() {
        long[][] cases = {{0, 10000}, {20, 10000}, {1000, 10000}, {1001, 10010}, {8000, 80000}};
        for (long[] c : cases) {
            assertEquals("quiescence " + c[0], c[1], QueryRunner.mainThreadTimeoutMs(c[0]));
        }
    }

    private static final String WEDGED_BY_BLOCK = "callin block did not return within 500 ms on the main thread, "
            + "which is still blocked: this harness runs no more queries (restart it)";

    /** basePurpose with a callin that blocks the main thread, and changes to it. */
    private static String purpose(String target) {
        return basePurpose(20, 0, 0).replace("'callins':[", "'callins':[{'symbol':'block','call':'block'},")
                .replace("'target':{'listeners':[{'type':'" + LISTENER + "','register':'setListener'}],"
                        + "'dispose':{'call':'close','args':[]}}", target);
    }

    /**
     * Runs a query of the base purpose first, so that the proxy classes and
     * the reflection the runner needs are warm before the short timeout
     * applies: then only the blocked call can outlast it.
     */
    private void warmUpThenTimeOutAfter(long ms) throws Exception {
        configure(basePurpose(20, 0, 0));
        assertEquals(q("['ok','onEvent/a']"), outputs(run1("['fireA','wait']")));
        Fixtures.log.clear();
        platform.mainThreadTimeoutMs = ms;
    }

    private static final String TARGET_AS_IS = "'target':{'listeners':[{'type':'" + LISTENER
            + "','register':'setListener'}],'dispose':{'call':'close','args':[]}}";

    @Test
    public void aBlockedCallinAnswersTimeoutAndWedgesTheHarness() throws Exception {
        warmUpThenTimeOutAfter(500);
        configure(purpose(TARGET_AS_IS));
        Map<String, Object> r = reply("{'id':2,'op':'run','queries':[['fireA','wait'],['fireA','block','fireB'],['fireA']]}");
        List<?> results = (List<?>) r.get("results");
        assertEquals("the run stops at the query that wedged the harness", 2, results.size());
        @SuppressWarnings("unchecked")
        Map<String, Object> wedged = (Map<String, Object>) results.get(1);
        assertEquals(q("['ok','err']"), outputs(wedged));
        assertEquals(q("{'at':1,'kind':'timeout','message':'callin block did not return within 500 ms on the main thread'}"),
                Json.write(wedged.get("err")));
        assertEquals(WEDGED_BY_BLOCK, r.get("wedged"));
        assertEquals("the wedged query is not disposed of (dispose would wait on the blocked thread)",
                "[new Target() on test-main, close, new Target() on test-main, block]", Fixtures.log().toString());

        String refused = q("'error':{'code':'wedged','message':'") + WEDGED_BY_BLOCK + "\"}}";
        assertEquals(q("{'id':3,'ok':false,") + refused, send("{'id':3,'op':'run','queries':[['fireA']]}"));
        assertEquals(q("{'id':4,'ok':false,") + refused, send("{'id':4,'op':'configure','purpose':" + purpose(TARGET_AS_IS) + "}"));
        assertEquals(q("{'id':5,'ok':true,'wedged':'") + WEDGED_BY_BLOCK + "\"}", send("{'id':5,'op':'ping'}"));
        Map<String, Object> hello = reply("{'id':6,'op':'hello','protocol':2}");
        assertEquals(WEDGED_BY_BLOCK, hello.get("wedged"));
        assertEquals(q("{'id':7,'ok':true}"), send("{'id':7,'op':'bye'}"));
    }

    @Test
    public void aBlockedResetAnswersTimeoutAtItsFirstSymbol() throws Exception {
        warmUpThenTimeOutAfter(500);
        configure(purpose("'target':{'listeners':[{'type':'" + LISTENER + "','register':'setListener'}],"
                + "'init':[{'call':'block','args':[]}],'dispose':{'call':'close','args':[]}}"));
        Map<String, Object> r = reply("{'id':2,'op':'run','queries':[['fireA'],['fireB']]}");
        List<?> results = (List<?>) r.get("results");
        assertEquals(1, results.size());
        @SuppressWarnings("unchecked")
        Map<String, Object> res = (Map<String, Object>) results.get(0);
        assertEquals(q("['err']"), outputs(res));
        assertEquals(q("{'at':0,'kind':'timeout','message':'the reset did not return within 500 ms on the main thread'}"),
                Json.write(res.get("err")));
        assertEquals("the reset did not return within 500 ms on the main thread, which is still blocked: "
                + "this harness runs no more queries (restart it)", r.get("wedged"));
    }

    @Test
    public void aBlockedDisposeKeepsItsQuerysResultAndWedgesTheHarness() throws Exception {
        warmUpThenTimeOutAfter(500);
        configure(purpose("'target':{'listeners':[{'type':'" + LISTENER + "','register':'setListener'}],"
                + "'dispose':{'call':'block','args':[]}}"));
        Map<String, Object> r = reply("{'id':2,'op':'run','queries':[['fireA','wait'],['fireB']]}");
        List<?> results = (List<?>) r.get("results");
        assertEquals(1, results.size());
        @SuppressWarnings("unchecked")
        Map<String, Object> res = (Map<String, Object>) results.get(0);
        assertEquals(q("['ok','onEvent/a']"), outputs(res));
        assertEquals(null, res.get("err"));
        assertEquals("dispose org.droidstar.harness.core.Fixtures$Target.block() did not return within 500 ms on the main thread, which is still blocked: "
                + "this harness runs no more queries (restart it)", r.get("wedged"));
    }
}
