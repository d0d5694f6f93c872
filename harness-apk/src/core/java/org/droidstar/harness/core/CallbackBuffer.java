package org.droidstar.harness.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.LinkedHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Buffers the callbacks of the running query in arrival order and hands them
 * to waits oldest first. Every query is a generation: callbacks tagged with
 * any other generation are dropped, and counted as stragglers when they
 * arrive while a query runs. Calls that match no declared callback are
 * counted as ignored, and listed by method (and detail, for a method the
 * purpose splits by detail) as undeclared, so that the host can say what
 * the purpose left out instead of answering quiet without a word. The runner tells the buffer where the query is (in a
 * callin, between two callins, after a quiet answer) so that the buffer can
 * report the violations of PROTOCOL.md at the moment a callback arrives.
 *
 * Safe for any number of reporting threads; the runner is one thread.
 */
public final class CallbackBuffer implements CallbackSink {
    /** A buffered callback. */
    public static final class Entry {
        public final Callbacks.Declared declared;
        public final long arrivedNanos;
        /** The method as reported (NAME.METHOD for a named listener's). */
        public final String method;
        /** The call's arguments, or null when its reporter gives none. */
        public final Object[] args;

        Entry(Callbacks.Declared declared, long arrivedNanos, String method, Object[] args) {
            this.declared = declared;
            this.arrivedNanos = arrivedNanos;
            this.method = method;
            this.args = args;
        }
    }

    private final Object lock = new Object();
    private long lastGeneration;
    private long current = -1;
    private Callbacks callbacks;
    private final ArrayDeque<Entry> queue = new ArrayDeque<Entry>();
    private int stragglers;
    private int ignored;
    /**
     * The distinct undeclared calls of the query, in order of first
     * arrival: method and detail (null) to their count. At most
     * MAX_UNDECLARED, so that a chatty listener cannot bloat a reply; the
     * rest are in ignored only.
     */
    private final Map<String, Map<String, Object>> undeclared = new LinkedHashMap<String, Map<String, Object>>();
    static final int MAX_UNDECLARED = 16;
    private final List<Map<String, Object>> violations = new ArrayList<Map<String, Object>>();
    private int lateAt = -1;
    private int betweenAt = -1;
    /*
     * The recent generations whose query skipped its settle time, each at
     * its place modulo the length (-1: it settled). Their instances'
     * callbacks may well come during a later query: dropped, but not
     * counted as stragglers, which would tell the user to settle longer.
     * An older generation's count as stragglers.
     */
    private final long[] unsettled = newUnsettled(64);

    private static long[] newUnsettled(int n) {
        long[] a = new long[n];
        java.util.Arrays.fill(a, -1L);
        return a;
    }

    /** A test seam: told (on the runner thread) when a window of violations opens. */
    interface Hook {
        void opened(String kind, int at);
    }

    volatile Hook hook;

    /**
     * Starts a new generation with the given declared callbacks: the buffer,
     * the counters and the violations start empty. Returns the generation
     * id that this query's listeners and shims report with.
     */
    public long begin(Callbacks declared) {
        synchronized (lock) {
            lastGeneration++;
            current = lastGeneration;
            callbacks = declared;
            queue.clear();
            stragglers = 0;
            ignored = 0;
            undeclared.clear();
            violations.clear();
            lateAt = -1;
            betweenAt = -1;
            return current;
        }
    }

    /**
     * Ends the current generation: from now on every callback is dropped.
     * settled says whether the query ran its settle time; the callbacks of
     * one that did not (nothing waited for them) are not stragglers.
     */
    public void end(boolean settled) {
        synchronized (lock) {
            if (current >= 0) {
                unsettled[(int) (current % unsettled.length)] = settled ? -1 : current;
            }
            current = -1;
            callbacks = null;
            queue.clear();
            lateAt = -1;
            betweenAt = -1;
        }
    }

    /** A call with its reporter's detail and no arguments. */
    public void record(long generation, String method, String detail) {
        record(generation, method, detail, null);
    }

    @Override
    public void record(long generation, String method, String detail, Object[] args) {
        long now = System.nanoTime();
        Callbacks declared;
        synchronized (lock) {
            if (current < 0) {
                return;
            }
            if (generation != current) {
                if (unsettled[(int) (generation % unsettled.length)] != generation) {
                    stragglers++;
                }
                return;
            }
            declared = callbacks;
        }
        // outside the lock: the purpose's details may call the arguments' methods
        String d0 = declared.detail(method, detail, args);
        synchronized (lock) {
            if (current < 0) {
                return;
            }
            if (generation != current) {
                stragglers++;
                return;
            }
            Callbacks.Declared d = callbacks.match(method, d0);
            if (d == null) {
                ignored++;
                countUndeclared(method, callbacks.splitsByDetail(method) ? d0 : null);
                return;
            }
            if (lateAt >= 0) {
                violations.add(violation("late", lateAt, d.name));
            } else if (betweenAt >= 0) {
                violations.add(violation("between-callins", betweenAt, d.name));
            }
            queue.addLast(new Entry(d, now, method, args));
            lock.notifyAll();
        }
    }

    private void countUndeclared(String method, String detail) {
        String key = detail == null ? method : method + "/" + detail;
        Map<String, Object> u = undeclared.get(key);
        if (u == null) {
            if (undeclared.size() >= MAX_UNDECLARED) {
                return;
            }
            u = new LinkedHashMap<String, Object>();
            u.put("method", method);
            u.put("detail", detail);
            u.put("count", Integer.valueOf(0));
            undeclared.put(key, u);
        }
        u.put("count", Integer.valueOf(((Integer) u.get("count")).intValue() + 1));
    }

    private static Map<String, Object> violation(String kind, int at, String callback) {
        Map<String, Object> v = new LinkedHashMap<String, Object>();
        v.put("kind", kind);
        v.put("at", Integer.valueOf(at));
        v.put("callback", callback);
        return v;
    }

    /**
     * The oldest undelivered callback, waiting up to timeoutMs for one to
     * arrive; null when none arrives in time (quiescence).
     */
    public Entry take(long timeoutMs) throws InterruptedException {
        synchronized (lock) {
            long remaining = TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMs));
            long deadline = System.nanoTime() + remaining;
            while (queue.isEmpty() && remaining > 0) {
                TimeUnit.NANOSECONDS.timedWait(lock, remaining);
                remaining = deadline - System.nanoTime();
            }
            return queue.pollFirst();
        }
    }

    /** A callin (its actions and its method) starts: no window is open. */
    public void callinStarting() {
        synchronized (lock) {
            lateAt = -1;
            betweenAt = -1;
        }
    }

    /**
     * A callin returned. nextCallin is the index of the symbol after it when
     * that symbol is a callin (a callback arriving before it starts is a
     * between-callins violation), or -1.
     */
    public void callinReturned(int nextCallin) {
        synchronized (lock) {
            betweenAt = nextCallin;
        }
        Hook h = hook;
        if (h != null && nextCallin >= 0) {
            h.opened("between-callins", nextCallin);
        }
    }

    /** The wait at index at answered quiet: callbacks from now on are late. */
    public void quietAnswered(int at) {
        synchronized (lock) {
            lateAt = at;
            betweenAt = -1;
        }
        Hook h = hook;
        if (h != null) {
            h.opened("late", at);
        }
    }

    /**
     * Whether a callback arriving now would be late: a wait answered quiet
     * and no callin has started since (the query ends in a quiet chain).
     */
    public boolean lateWindowOpen() {
        synchronized (lock) {
            return lateAt >= 0;
        }
    }

    /** The query stopped at an err: no window stays open. */
    public void stopped() {
        synchronized (lock) {
            lateAt = -1;
            betweenAt = -1;
        }
    }

    public int stragglers() {
        synchronized (lock) {
            return stragglers;
        }
    }

    public int ignored() {
        synchronized (lock) {
            return ignored;
        }
    }

    /** The undeclared calls of the query: {method, detail, count} each, copies. */
    public List<Map<String, Object>> undeclared() {
        synchronized (lock) {
            List<Map<String, Object>> out = new ArrayList<Map<String, Object>>();
            for (Map<String, Object> u : undeclared.values()) {
                out.add(new LinkedHashMap<String, Object>(u));
            }
            return out;
        }
    }

    public List<Map<String, Object>> violations() {
        synchronized (lock) {
            return new ArrayList<Map<String, Object>>(violations);
        }
    }

    /** The generation now running, or -1 between queries. */
    public long currentGeneration() {
        synchronized (lock) {
            return current;
        }
    }
}
