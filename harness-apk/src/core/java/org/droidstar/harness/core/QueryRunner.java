package org.droidstar.harness.core;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Runs membership queries of a configured purpose (PROTOCOL.md, "run"):
 * every query on a fresh instance, callins on the platform's main thread,
 * waits on the callback buffer, and the result with its timing, stragglers,
 * ignored and undeclared calls, violations and error.
 */
public final class QueryRunner {
    public static final String WAIT = "wait";

    private final Platform platform;
    private final Configuration config;
    private final CallbackBuffer buffer;
    /** How long a call on the main thread may take (PROTOCOL.md, "Timeouts"). */
    private final long mainThreadMs;
    /** How long a wait waits for a callback before it answers quiet. */
    private final long quiescenceMs;
    /** Why the main thread is lost to the harness, once a call on it timed out. */
    private String wedged;

    public QueryRunner(Platform platform, Configuration config, CallbackBuffer buffer) {
        this(platform, config, buffer, config.quiescenceMs);
    }

    /** A runner whose waits give up after quiescenceMs, at most the purpose's. */
    public QueryRunner(Platform platform, Configuration config, CallbackBuffer buffer, long quiescenceMs) {
        this.platform = platform;
        this.config = config;
        this.buffer = buffer;
        this.quiescenceMs = quiescenceMs;
        this.mainThreadMs = mainThreadTimeoutMs(config.quiescenceMs);
    }

    /** The main-thread timeout of a purpose: ten times its quiescence, at least 10 s. */
    public static long mainThreadTimeoutMs(long quiescenceMs) {
        return Math.max(10000L, 10L * quiescenceMs);
    }

    /**
     * Why the harness is wedged (a call on the main thread did not return in
     * time, so nothing more can run on it), or null.
     */
    public String wedged() {
        return wedged;
    }

    /** Runs one query (its symbols already checked) and returns its result object. */
    public Map<String, Object> run(List<String> query) throws InterruptedException {
        return run(query, null);
    }

    /**
     * Runs one query whose waits each give up after their own timeout:
     * waits[j] milliseconds for its j-th wait (the run's quiescence when
     * waits is null). The server checked that there is one per wait.
     */
    public Map<String, Object> run(List<String> query, long[] waits) throws InterruptedException {
        long start = System.nanoTime();
        List<String> outputs = new ArrayList<String>();
        List<Object> ms = new ArrayList<Object>();
        Map<String, Object> err = null;
        long generation = buffer.begin(config.callbacks);
        Instances q = new Instances(platform.workspace().files(), platform.context());
        boolean made = false;
        boolean settled = false;
        int stragglers;
        int ignored;
        List<Map<String, Object>> undeclared;
        List<Map<String, Object>> violations;
        try {
            long t0 = System.nanoTime();
            try {
                reset(q, generation);
                made = true;
            } catch (InterruptedException e) {
                throw e;
            } catch (Throwable t) {
                made = q.target != null;
                if (t instanceof MainThreadTimeout) {
                    err = timedOut(0, "the reset", (MainThreadTimeout) t);
                } else {
                    err = errorOf(0, "reset", t);
                }
                Log.log("reset failed: " + t);
                if (!query.isEmpty()) {
                    outputs.add("err");
                    ms.add(Json.millis(elapsedMs(t0)));
                }
            }
            if (err == null) {
                if (config.postResetMs > 0) {
                    Thread.sleep(config.postResetMs);
                }
                err = symbols(query, waits, q, outputs, ms);
            }
            if (err != null) {
                // after an err nothing is late: the host answers the rest err
                buffer.stopped();
            }
            // Callbacks that arrive while the query settles after a quiet
            // are late. With no late window open, none that arrives could
            // be a violation or change an answer: dispose at once.
            settled = buffer.lateWindowOpen();
            if (settled && config.settleMs > 0) {
                Thread.sleep(config.settleMs);
            }
        } finally {
            buffer.stopped();
            if (made && wedged == null) {
                dispose(q);
            }
            stragglers = buffer.stragglers();
            ignored = buffer.ignored();
            undeclared = buffer.undeclared();
            violations = buffer.violations();
            buffer.end(settled);
        }

        Map<String, Object> r = new LinkedHashMap<String, Object>();
        r.put("outputs", outputs);
        r.put("ms", ms);
        r.put("device_ms", Json.millis(elapsedMs(start)));
        r.put("stragglers", Integer.valueOf(stragglers));
        r.put("ignored", Integer.valueOf(ignored));
        r.put("undeclared", undeclared);
        r.put("violations", violations);
        if (err != null) {
            r.put("err", err);
        }
        return r;
    }

    private static double elapsedMs(long since) {
        return (System.nanoTime() - since) / 1e6;
    }

    /** Runs the symbols; returns the err object, or null when no symbol answered err. */
    private Map<String, Object> symbols(List<String> query, long[] waits, final Instances q, List<String> outputs,
            List<Object> ms) throws InterruptedException {
        boolean quiet = false;
        int wait = 0; // the waits so far, this one's index in waits
        for (int i = 0; i < query.size(); i++) {
            String sym = query.get(i);
            long t0 = System.nanoTime();
            if (sym.equals(WAIT)) {
                long timeout = waits == null ? quiescenceMs : waits[wait];
                wait++;
                if (quiet) {
                    // a quiet chain: answered at once, no waiting
                    outputs.add("quiet");
                    ms.add(Json.millis(0));
                    continue;
                }
                CallbackBuffer.Entry e = buffer.take(timeout);
                ms.add(Json.millis(elapsedMs(t0)));
                if (e == null) {
                    quiet = true;
                    buffer.quietAnswered(i);
                    outputs.add("quiet");
                } else if (e.declared.error || e.declared.environment) {
                    outputs.add("err");
                    Map<String, Object> err = new LinkedHashMap<String, Object>();
                    err.put("at", Integer.valueOf(i));
                    err.put("kind", e.declared.environment ? "environment" : "error-callback");
                    err.put("callback", e.declared.name);
                    return err;
                } else {
                    outputs.add(e.declared.name);
                    q.delivered(e.method, e.args);
                }
                continue;
            }
            quiet = false;
            final Configuration.Callin callin = config.callins.get(sym);
            buffer.callinStarting();
            boolean returnedError = false;
            try {
                for (EnvAction a : callin.actions) {
                    a.run(q.filesDir);
                }
                if (callin.call != null) {
                    Object result = platform.mainThread().call(new Callable<Object>() {
                        @Override
                        public Object call() throws Exception {
                            return callin.call.run(q);
                        }
                    }, mainThreadMs);
                    q.results.put(sym, result);
                    returnedError = callin.isError(result, q);
                    if (!returnedError && callin.makesTarget) {
                        if (result == null) {
                            throw new NullPointerException(callin.call.choice.describe()
                                    + " returned null, which cannot be the instance under test (result: target)");
                        }
                        q.target = result;
                    }
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (Throwable t) {
                ms.add(Json.millis(elapsedMs(t0)));
                outputs.add("err");
                if (t instanceof MainThreadTimeout) {
                    return timedOut(i, "callin " + sym, (MainThreadTimeout) t);
                }
                if (t instanceof Instances.NotDelivered) {
                    Map<String, Object> err = new LinkedHashMap<String, Object>();
                    err.put("at", Integer.valueOf(i));
                    err.put("kind", "no-callback");
                    err.put("callback", ((Instances.NotDelivered) t).method);
                    err.put("message", t.getMessage());
                    return err;
                }
                return errorOf(i, "thrown", t);
            }
            ms.add(Json.millis(elapsedMs(t0)));
            if (returnedError) {
                outputs.add("err");
                Map<String, Object> err = new LinkedHashMap<String, Object>();
                err.put("at", Integer.valueOf(i));
                err.put("kind", "returned");
                err.put("value", callin.errorIfJson);
                return err;
            }
            outputs.add("ok");
            boolean nextIsCallin = i + 1 < query.size() && !query.get(i + 1).equals(WAIT);
            buffer.callinReturned(nextIsCallin ? i + 1 : -1);
        }
        return null;
    }

    static Map<String, Object> errorOf(int at, String kind, Throwable t) {
        Map<String, Object> err = new LinkedHashMap<String, Object>();
        err.put("at", Integer.valueOf(at));
        err.put("kind", kind);
        err.put("exception", t.getClass().getName());
        err.put("message", t.getMessage());
        return err;
    }

    /** The err of a call that timed out on the main thread, which wedges the harness. */
    private Map<String, Object> timedOut(int at, String what, MainThreadTimeout t) {
        String message = what + " " + t.getMessage();
        wedge(message);
        Map<String, Object> err = new LinkedHashMap<String, Object>();
        err.put("at", Integer.valueOf(at));
        err.put("kind", "timeout");
        err.put("message", message);
        return err;
    }

    private void wedge(String message) {
        wedged = message + ", which is still blocked: this harness runs no more queries (restart it)";
        Log.log("wedged: " + wedged);
    }

    /** Setup actions, then on the main thread: listeners, the instance, registrations, init. */
    private void reset(final Instances q, final long generation) throws Exception {
        for (EnvAction a : config.setup) {
            a.run(q.filesDir);
        }
        platform.mainThread().call(new Callable<Object>() {
            @Override
            public Object call() throws Exception {
                make(q, generation);
                return null;
            }
        }, mainThreadMs);
    }

    /**
     * Makes the listeners and the instance (none when a callin makes it:
     * then nothing registers on it and no init runs, as configure checked),
     * registers the listeners and runs init.
     */
    private void make(Instances q, long generation) throws Exception {
        for (Configuration.ListenerSpec l : config.listeners) {
            Object listener;
            if (l.shim != null) {
                listener = l.shimConstructor.call(null,
                        new ShimContext(buffer, generation, config.shimOptions, config.answers(q), l.prefix()), q);
            } else {
                listener = ListenerProxy.create(l.type, buffer, generation, config.loader, config.answers(q),
                        l.prefix());
            }
            q.listeners.put(l.key(), listener);
        }
        Object target;
        if (config.factory != null) {
            target = config.factory.call(null, null, q);
            if (target == null) {
                throw new NullPointerException(config.factory.describe() + " returned null");
            }
        } else if (config.constructor != null) {
            target = config.constructor.call(null, new ShimContext(buffer, generation, config.shimOptions), q);
        } else {
            return;
        }
        q.target = target;
        for (Configuration.ListenerSpec l : config.listeners) {
            if (l.register != null) {
                l.register.call(target, null, q);
            }
        }
        for (Configuration.Call c : config.init) {
            c.run(q);
        }
    }

    private void dispose(final Instances q) {
        if (config.dispose == null || q.target == null) {
            return;
        }
        try {
            platform.mainThread().call(new Callable<Object>() {
                @Override
                public Object call() throws Exception {
                    return config.dispose.run(q);
                }
            }, mainThreadMs);
        } catch (MainThreadTimeout t) {
            wedge("dispose " + config.dispose.choice.describe() + " " + t.getMessage());
        } catch (Throwable t) {
            Log.log("dispose: " + config.dispose.choice.describe() + " threw " + t);
        }
    }
}
