package org.droidstar.harness.core;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The harness side of the wire protocol (PROTOCOL.md): JSON lines in, one
 * reply line out per request. The JVM layer serves standard input and
 * output; the Android layer serves each connection of its local socket.
 *
 * One Server keeps its configuration across serve calls (a host may
 * reconnect), but serves one stream at a time.
 */
public final class Server {
    /** The harness's version, reported by hello. */
    public static final String HARNESS_VERSION = "0.2.0";
    /** The wire protocol version this harness speaks. */
    public static final int PROTOCOL_VERSION = 2;

    private final Platform platform;
    private final CallbackBuffer buffer = new CallbackBuffer();
    private Configuration config;
    private volatile boolean logRequests;
    /**
     * How long resolving a purpose may take on the main thread: its timeouts
     * are not known yet, and loading jars (dex2oat on a device) is slow.
     */
    static final long CONFIGURE_TIMEOUT_MS = 60000;

    /** Why the main thread is lost (PROTOCOL.md, "Timeouts"), or null. */
    private String wedged;

    public Server(Platform platform) {
        this.platform = platform;
    }

    /**
     * Logs every request's op and id, error replies, and the replies to
     * hello and configure: on a device the log is all a person sees of a
     * session that went wrong.
     */
    public void setLogRequests(boolean on) {
        logRequests = on;
    }

    /** The callback buffer (a test seam). */
    CallbackBuffer buffer() {
        return buffer;
    }

    /**
     * Serves requests from in until a bye request (answered before
     * returning) or the end of the input, and says whether it ended with
     * bye. Does not close the streams.
     */
    public synchronized boolean serve(InputStream in, OutputStream out) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(in, EnvAction.UTF8));
        Writer w = new OutputStreamWriter(out, EnvAction.UTF8);
        String line;
        while ((line = r.readLine()) != null) {
            Reply reply = handle(line);
            w.write(reply.line);
            w.write('\n');
            w.flush();
            if (reply.bye) {
                return true;
            }
        }
        return false;
    }

    /** One reply line, and whether it answers bye. */
    public static final class Reply {
        public final String line;
        public final boolean bye;

        Reply(String line, boolean bye) {
            this.line = line;
            this.bye = bye;
        }
    }

    /** Handles one request line and returns the reply line (without its line break). */
    public synchronized Reply handle(String line) {
        Object id = null;
        boolean bye = false;
        Map<String, Object> reply;
        try {
            Object req;
            try {
                req = Json.parse(line);
            } catch (Json.SyntaxException e) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, null, "the request is not JSON: " + e.getMessage());
            }
            if (!(req instanceof Map)) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, null,
                        "a request is a JSON object, not " + Json.typeName(req));
            }
            Map<?, ?> m = (Map<?, ?>) req;
            Object rawId = m.get("id");
            if (!(rawId instanceof Long)) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, null, rawId == null ? "the request has no \"id\""
                        : "\"id\" must be an integer, not " + Json.typeName(rawId));
            }
            id = rawId;
            Object op = m.get("op");
            if (!(op instanceof String)) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, null, op == null ? "the request has no \"op\""
                        : "\"op\" must be a string, not " + Json.typeName(op));
            }
            reply = ok(id);
            String o = (String) op;
            if (wedged != null && (o.equals("configure") || o.equals("run"))) {
                Log.log("refused " + o + ": wedged");
                throw new ProtocolError(ProtocolError.WEDGED, null, wedged);
            }
            if (logRequests) {
                Log.log("request " + o + " id " + id);
            }
            if (o.equals("hello")) {
                hello(m, reply);
                sayWedged(reply);
            } else if (o.equals("configure")) {
                configure(m, reply);
            } else if (o.equals("run")) {
                run(m, reply);
            } else if (o.equals("probe")) {
                new Probe(platform).run(Probe.Request.parse(m), reply);
            } else if (o.equals("ping")) {
                sayWedged(reply);
            } else if (o.equals("bye")) {
                bye = true;
            } else {
                throw new ProtocolError(ProtocolError.UNKNOWN_OP, null,
                        "unknown op \"" + o + "\" (hello, configure, run, probe, ping, bye)");
            }
        } catch (ProtocolError e) {
            reply = error(id, e.code(), e.where(), e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            reply = error(id, ProtocolError.INTERNAL, null, "the harness was interrupted");
        } catch (Throwable t) {
            Log.log("internal error: " + t);
            reply = error(id, ProtocolError.INTERNAL, null, "internal error: " + t);
        }
        String out = Json.write(reply);
        if (logRequests && (reply.get("ok") != Boolean.TRUE || reply.containsKey("protocol")
                || reply.containsKey("shims"))) {
            Log.log((reply.get("ok") == Boolean.TRUE ? "reply " : "error reply ") + out);
        }
        return new Reply(out, bye);
    }

    private void sayWedged(Map<String, Object> reply) {
        if (wedged != null) {
            reply.put("wedged", wedged);
        }
    }

    private static Map<String, Object> ok(Object id) {
        Map<String, Object> r = new LinkedHashMap<String, Object>();
        r.put("id", id);
        r.put("ok", Boolean.TRUE);
        return r;
    }

    static Map<String, Object> error(Object id, String code, String where, String message) {
        Map<String, Object> r = new LinkedHashMap<String, Object>();
        r.put("id", id);
        r.put("ok", Boolean.FALSE);
        Map<String, Object> e = new LinkedHashMap<String, Object>();
        e.put("code", code);
        if (where != null) {
            e.put("where", where);
        }
        e.put("message", message);
        r.put("error", e);
        return r;
    }

    private void hello(Map<?, ?> m, Map<String, Object> reply) throws ProtocolError {
        Object p = m.get("protocol");
        if (!(p instanceof Long)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, null, p == null ? "hello needs \"protocol\""
                    : "\"protocol\" must be an integer, not " + Json.typeName(p));
        }
        if (((Long) p).longValue() != PROTOCOL_VERSION) {
            throw new ProtocolError(ProtocolError.PROTOCOL, null, "this harness speaks protocol " + PROTOCOL_VERSION
                    + ", not " + p);
        }
        Object host = m.get("host");
        if (host != null) {
            Log.log("hello from " + host);
        }
        reply.put("protocol", Integer.valueOf(PROTOCOL_VERSION));
        reply.put("harness", HARNESS_VERSION);
        reply.put("platform", platform.name());
        reply.put("sdk", Integer.valueOf(platform.sdk()));
        reply.put("release", platform.release());
        reply.put("model", platform.model());
        reply.put("manufacturer", platform.manufacturer());
    }

    private void configure(final Map<?, ?> m, Map<String, Object> reply) throws Exception {
        config = null;
        // On the main thread: resolving loads and initialises the purpose's
        // classes ({"constant"} literals read static fields), and a framework
        // class whose initialiser makes a Handler must do so on the main
        // looper, as it would in an app.
        Configuration c;
        try {
            c = platform.mainThread().call(new java.util.concurrent.Callable<Configuration>() {
                @Override
                public Configuration call() throws ProtocolError {
                    return Configuration.parse(m.get("purpose"), platform);
                }
            }, CONFIGURE_TIMEOUT_MS);
        } catch (MainThreadTimeout e) {
            wedged = "resolving the purpose " + e.getMessage()
                    + ", which is still blocked: this harness runs no more queries (restart it)";
            Log.log("wedged: " + wedged);
            throw new ProtocolError(ProtocolError.WEDGED, null, wedged);
        }
        config = c;
        Log.log("configured " + c.name() + ": callins " + c.callinSymbols() + ", callbacks " + c.callbackNames());
        reply.put("callins", c.callinSymbols());
        reply.put("callbacks", c.callbackNames());
        reply.put("shims", new ArrayList<String>(c.shims()));
    }

    /**
     * The run's quiescence timeout: the request's "quiescence" when given (a
     * host calibrating the timeout runs shorter waits than the purpose's),
     * never more than the purpose's timeouts.quiescence, from which the
     * main-thread timeout and the host's request deadlines are derived.
     */
    private long runQuiescence(Map<?, ?> m) throws ProtocolError {
        Object q = m.get("quiescence");
        if (q == null) {
            return config.quiescenceMs;
        }
        return timeoutMs(q, "\"quiescence\"");
    }

    /**
     * A timeout of the request, named what in the messages: a non-negative
     * integer of milliseconds, at most the purpose's timeouts.quiescence.
     */
    private long timeoutMs(Object v, String what) throws ProtocolError {
        if (!(v instanceof Long) || ((Long) v).longValue() < 0) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, null,
                    what + " must be a non-negative integer of milliseconds, not " + Json.describe(v));
        }
        long ms = ((Long) v).longValue();
        if (ms > config.quiescenceMs) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, null, what + " (" + ms
                    + " ms) may not exceed the purpose's timeouts.quiescence (" + config.quiescenceMs + " ms)");
        }
        return ms;
    }

    /**
     * The run's per-wait timeouts: the request's "waits" when given (a host
     * calibrating one timeout per wait context), one array per query with
     * one timeout per wait of that query, each at most the purpose's
     * timeouts.quiescence; null when the request has none.
     */
    private List<long[]> runWaits(Map<?, ?> m, List<List<String>> queries) throws ProtocolError {
        Object w = m.get("waits");
        if (w == null) {
            return null;
        }
        if (!(w instanceof List)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, null,
                    "\"waits\" must be an array with an array of milliseconds per query, not " + Json.typeName(w));
        }
        List<?> wl = (List<?>) w;
        if (wl.size() != queries.size()) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, null, "\"waits\" has " + wl.size()
                    + (wl.size() == 1 ? " array" : " arrays") + " for " + queries.size()
                    + (queries.size() == 1 ? " query" : " queries"));
        }
        List<long[]> out = new ArrayList<long[]>();
        for (int i = 0; i < wl.size(); i++) {
            if (!(wl.get(i) instanceof List)) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, null,
                        "waits[" + i + "] must be an array of milliseconds, not " + Json.typeName(wl.get(i)));
            }
            List<?> ts = (List<?>) wl.get(i);
            int n = 0;
            for (String sym : queries.get(i)) {
                if (sym.equals(QueryRunner.WAIT)) {
                    n++;
                }
            }
            if (ts.size() != n) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, null, "waits[" + i + "] has " + ts.size()
                        + (ts.size() == 1 ? " timeout" : " timeouts") + " for the " + n + (n == 1 ? " wait" : " waits")
                        + " of queries[" + i + "]");
            }
            long[] timeouts = new long[n];
            for (int k = 0; k < n; k++) {
                timeouts[k] = timeoutMs(ts.get(k), "waits[" + i + "][" + k + "]");
            }
            out.add(timeouts);
        }
        return out;
    }

    private void run(Map<?, ?> m, Map<String, Object> reply) throws ProtocolError, InterruptedException {
        if (config == null) {
            throw new ProtocolError(ProtocolError.NOT_CONFIGURED, null, "run before a successful configure");
        }
        Object qs = m.get("queries");
        if (!(qs instanceof List)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, null, qs == null ? "run needs \"queries\""
                    : "\"queries\" must be an array of arrays of symbols, not " + Json.typeName(qs));
        }
        List<List<String>> queries = new ArrayList<List<String>>();
        List<?> ql = (List<?>) qs;
        for (int i = 0; i < ql.size(); i++) {
            if (!(ql.get(i) instanceof List)) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, null,
                        "queries[" + i + "] must be an array of symbols, not " + Json.typeName(ql.get(i)));
            }
            List<?> syms = (List<?>) ql.get(i);
            List<String> query = new ArrayList<String>();
            for (int k = 0; k < syms.size(); k++) {
                Object s = syms.get(k);
                if (!(s instanceof String)) {
                    throw new ProtocolError(ProtocolError.BAD_REQUEST, null,
                            "queries[" + i + "][" + k + "] must be a symbol (a string), not " + Json.typeName(s));
                }
                if (!s.equals(QueryRunner.WAIT) && !config.callins.containsKey(s)) {
                    throw new ProtocolError(ProtocolError.UNKNOWN_SYMBOL, null, "queries[" + i + "][" + k + "]: \""
                            + s + "\" is neither a callin of " + config.name() + " nor wait");
                }
                query.add((String) s);
            }
            queries.add(query);
        }
        QueryRunner runner = new QueryRunner(platform, config, buffer, runQuiescence(m));
        List<long[]> waits = runWaits(m, queries);
        List<Object> results = new ArrayList<Object>();
        for (int i = 0; i < queries.size(); i++) {
            results.add(runner.run(queries.get(i), waits == null ? null : waits.get(i)));
            if (runner.wedged() != null) {
                // nothing more can run on the main thread
                wedged = runner.wedged();
                break;
            }
        }
        reply.put("results", results);
        sayWedged(reply);
    }
}
