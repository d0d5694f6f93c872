package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.Test;

/** The callback buffer on its own: order, generations, matching and the violation windows. */
public class CallbackBufferTest {

    private static Callbacks declared() {
        Callbacks c = new Callbacks();
        c.add("onEvent", false);
        c.add("onEvent/MODIFY", false);
        c.add("onError", true);
        return c;
    }

    @Test
    public void deliversOldestFirstAndMatchesDetailsFirst() throws Exception {
        CallbackBuffer b = new CallbackBuffer();
        long g = b.begin(declared());
        b.record(g, "onEvent", "MODIFY");
        b.record(g, "onEvent", "DELETE");
        b.record(g, "onEvent", null);
        b.record(g, "onError", "x");
        assertEquals("onEvent/MODIFY", b.take(0).declared.name);
        assertEquals("onEvent", b.take(0).declared.name);
        assertEquals("onEvent", b.take(0).declared.name);
        CallbackBuffer.Entry e = b.take(0);
        assertEquals("onError", e.declared.name);
        assertTrue(e.declared.error);
        assertNull(b.take(0));
    }

    @Test
    public void listsUndeclaredCallsByMethodAndSplitDetailUpToTheCap() throws Exception {
        CallbackBuffer b = new CallbackBuffer();
        Callbacks c = new Callbacks();
        c.add("onEvent/MODIFY", false);
        long g = b.begin(c);
        b.record(g, "onEvent", "DELETE");
        b.record(g, "onLevel", "0.5");
        b.record(g, "onEvent", "DELETE");
        b.record(g, "onLevel", "0.7"); // onLevel is split by nothing: one entry
        b.record(g, "onEvent", null);
        assertEquals(5, b.ignored());
        assertEquals("[{\"method\":\"onEvent\",\"detail\":\"DELETE\",\"count\":2},"
                + "{\"method\":\"onLevel\",\"detail\":null,\"count\":2},"
                + "{\"method\":\"onEvent\",\"detail\":null,\"count\":1}]", Json.write(b.undeclared()));
        for (int i = 0; i < CallbackBuffer.MAX_UNDECLARED; i++) {
            b.record(g, "onEvent", "E" + i);
        }
        assertEquals(5 + CallbackBuffer.MAX_UNDECLARED, b.ignored());
        assertEquals(CallbackBuffer.MAX_UNDECLARED, b.undeclared().size());
        b.end(true);
        b.begin(c);
        assertEquals("[]", Json.write(b.undeclared()));
    }

    @Test
    public void countsIgnoredAndStragglers() throws Exception {
        CallbackBuffer b = new CallbackBuffer();
        long g1 = b.begin(declared());
        b.record(g1, "onOther", null);
        assertEquals(1, b.ignored());
        b.end(true);
        b.record(g1, "onEvent", null); // between queries: dropped, counted nowhere
        long g2 = b.begin(declared());
        assertTrue(g2 > g1);
        assertEquals(0, b.ignored());
        b.record(g1, "onEvent", null);
        b.record(g1, "onOther", null);
        assertEquals(2, b.stragglers());
        assertEquals(0, b.ignored());
        assertNull(b.take(0));
        b.record(g2 + 1, "onEvent", null);
        assertEquals(3, b.stragglers());
    }

    @Test
    public void callbacksOfAGenerationThatSkippedItsSettleAreNoStragglers() throws Exception {
        CallbackBuffer b = new CallbackBuffer();
        long g1 = b.begin(declared());
        b.end(false);
        long g2 = b.begin(declared());
        b.end(true);
        b.begin(declared());
        b.record(g1, "onEvent", null);
        assertEquals(0, b.stragglers());
        b.record(g2, "onEvent", null);
        assertEquals(1, b.stragglers());
    }

    @Test
    public void aWaitReturnsWhenACallbackArrives() throws Exception {
        final CallbackBuffer b = new CallbackBuffer();
        final long g = b.begin(declared());
        final AtomicReference<CallbackBuffer.Entry> got = new AtomicReference<CallbackBuffer.Entry>();
        final CountDownLatch done = new CountDownLatch(1);
        Thread waiter = new Thread(new Runnable() {
            @Override
            public void run() {
                try {
                    got.set(b.take(60000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                done.countDown();
            }
        });
        long t0 = System.nanoTime();
        waiter.start();
        b.record(g, "onEvent", null);
        assertTrue(done.await(30, TimeUnit.SECONDS));
        assertEquals("onEvent", got.get().declared.name);
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(30));
    }

    @Test
    public void aWaitTimesOutWithNull() throws Exception {
        CallbackBuffer b = new CallbackBuffer();
        b.begin(declared());
        long t0 = System.nanoTime();
        assertNull(b.take(20));
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(20));
    }

    @Test
    public void violationWindows() throws Exception {
        CallbackBuffer b = new CallbackBuffer();
        long g = b.begin(declared());
        b.callinStarting();
        b.record(g, "onEvent", null); // during a callin: fine
        b.callinReturned(1);
        b.record(g, "onEvent", "MODIFY"); // between callin 0 and callin 1
        b.callinStarting();
        b.callinReturned(-1); // callin 1 is followed by a wait
        b.record(g, "onEvent", null); // fine
        assertFalse(b.lateWindowOpen());
        b.quietAnswered(3);
        b.record(g, "onError", null); // late
        b.record(g, "onOther", null); // ignored: no violation
        b.callinStarting();
        assertFalse(b.lateWindowOpen());
        b.record(g, "onEvent", null); // fine again
        b.quietAnswered(6);
        assertTrue(b.lateWindowOpen());
        b.stopped();
        assertFalse(b.lateWindowOpen());
        b.record(g, "onEvent", null); // after an err: fine
        assertEquals(ServerTestBase.q("[{'kind':'between-callins','at':1,'callback':'onEvent/MODIFY'},"
                + "{'kind':'late','at':3,'callback':'onError'}]"), Json.write(b.violations()));
        b.end(false);
        assertEquals(-1, b.currentGeneration());
    }
}
