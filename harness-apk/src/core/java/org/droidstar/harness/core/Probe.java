package org.droidstar.harness.core;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The probe op (PROTOCOL.md): what the device lets the harness do, tried
 * rather than assumed, for droidstar doctor. Everything a learning session
 * relies on and only a device can confirm: the file operations in the
 * staging and private folders, loading a jar with the platform's loader,
 * a framework calling a proxy listener, how late main-looper callbacks
 * arrive, the microphone, and the network. Each check answers on its own:
 * one that fails is reported, and the others still run.
 */
final class Probe {
    /** The embedded adapter jar, a resource beside this class (harness-apk/src/probe). */
    static final String ADAPTER_JAR = "probe-adapter.jar";
    /** The adapter class in it. */
    static final String ADAPTER_CLASS = "org.droidstar.harness.probe.ProbeAdapter";
    /** The content the host stages in the probe file. */
    static final String DEFAULT_FILE = "doctor-probe.txt";

    /** How long a framework callback may take before it counts as missed. */
    static final long CALLBACK_GRACE_MS = 2000;

    private final Platform platform;
    private final ProbeHooks hooks;
    /** CALLBACK_GRACE_MS; shorter in tests of callbacks that never come. */
    long graceMs = CALLBACK_GRACE_MS;

    Probe(Platform platform) {
        this.platform = platform;
        this.hooks = platform instanceof ProbeHooks ? (ProbeHooks) platform : null;
    }

    /** The request's options, checked before anything runs. */
    static final class Request {
        String file = DEFAULT_FILE;
        int samples = 20;
        int audioMs = 500;
        int urlTimeoutMs = 5000;
        List<String> urls = new ArrayList<String>();
        List<String> permissions = new ArrayList<String>();
        List<String> bluetoothPaired = new ArrayList<String>();

        static Request parse(Map<?, ?> m) throws ProtocolError {
            Request r = new Request();
            Object f = m.get("file");
            if (f != null) {
                if (!(f instanceof String)) {
                    throw bad("\"file\" must be a string, not " + Json.typeName(f));
                }
                if (!plainName((String) f)) {
                    throw bad("\"file\" must be a plain file name, not " + Json.write(f));
                }
                r.file = (String) f;
            }
            r.samples = integer(m, "samples", r.samples, 0, 1000);
            r.audioMs = integer(m, "audio_ms", r.audioMs, 0, 10000);
            r.urlTimeoutMs = integer(m, "url_timeout_ms", r.urlTimeoutMs, 1, 60000);
            r.urls = strings(m, "urls");
            r.permissions = strings(m, "permissions");
            r.bluetoothPaired = strings(m, "bluetooth_paired");
            return r;
        }

        private static boolean plainName(String s) {
            return !s.isEmpty() && !s.equals(".") && !s.equals("..") && s.indexOf('/') < 0 && s.indexOf('\\') < 0
                    && s.indexOf('\0') < 0;
        }

        private static int integer(Map<?, ?> m, String key, int def, int min, int max) throws ProtocolError {
            Object v = m.get(key);
            if (v == null) {
                return def;
            }
            if (!(v instanceof Long) || (Long) v < min || (Long) v > max) {
                throw bad("\"" + key + "\" must be an integer from " + min + " to " + max + ", not "
                        + (v instanceof Number ? Json.write(v) : Json.typeName(v)));
            }
            return ((Long) v).intValue();
        }

        private static List<String> strings(Map<?, ?> m, String key) throws ProtocolError {
            Object v = m.get(key);
            List<String> out = new ArrayList<String>();
            if (v == null) {
                return out;
            }
            if (!(v instanceof List)) {
                throw bad("\"" + key + "\" must be an array of strings, not " + Json.typeName(v));
            }
            List<?> l = (List<?>) v;
            for (int i = 0; i < l.size(); i++) {
                if (!(l.get(i) instanceof String)) {
                    throw bad("\"" + key + "\"[" + i + "] must be a string, not " + Json.typeName(l.get(i)));
                }
                out.add((String) l.get(i));
            }
            return out;
        }

        private static ProtocolError bad(String message) {
            return new ProtocolError(ProtocolError.BAD_REQUEST, null, message);
        }
    }

    /** Runs every check and fills the reply. */
    void run(Request req, Map<String, Object> reply) throws InterruptedException {
        Map<String, Object> files = new LinkedHashMap<String, Object>();
        File staging = platform.workspace().staging();
        files.put("staging", staging == null ? null : folder(staging, req.file));
        files.put("private", folder(platform.workspace().files(), req.file));
        reply.put("files", files);
        reply.put("jar", jar());
        reply.put("proxy", proxy());
        List<Object> callbacks = new ArrayList<Object>();
        double worst = -1;
        if (hooks != null) {
            for (ProbeHooks.CallbackSource s : hooks.callbackSources()) {
                Latency l = latency(s, req.samples);
                callbacks.add(l.reply());
                if (l.samples.length > 0) {
                    worst = Math.max(worst, l.percentile(99));
                }
            }
        }
        reply.put("callbacks", callbacks);
        reply.put("quiescence_ms", worst < 0 ? null : Long.valueOf(suggestQuiescence(worst)));
        reply.put("audio", audio(req.audioMs));
        List<Object> perms = new ArrayList<Object>();
        for (String p : req.permissions) {
            Boolean held = hooks != null ? hooks.holds(p) : null;
            if (held != null) {
                Map<String, Object> one = new LinkedHashMap<String, Object>();
                one.put("permission", p);
                one.put("granted", held);
                perms.add(one);
            }
        }
        reply.put("permissions", perms);
        List<Object> urls = new ArrayList<Object>();
        for (String u : req.urls) {
            urls.add(url(u, req.urlTimeoutMs));
        }
        reply.put("urls", urls);
        reply.put("bluetooth", req.bluetoothPaired.isEmpty() ? null : bluetooth(req.bluetoothPaired));
    }

    /**
     * A quiescence timeout for callbacks the framework posts at once: three
     * times the worst p99 latency, at least 100 ms, rounded up to 50 ms.
     */
    static long suggestQuiescence(double worstP99Ms) {
        double ms = Math.max(100, 3 * worstP99Ms);
        return (long) (Math.ceil(ms / 50.0) * 50);
    }

    // ------------------------------------------------------------ files ---

    /**
     * The five file operations a purpose's environment actions and classes
     * use, in one folder, on the staged file name: read it, create
     * NAME.created, append to it, truncate it (writing its content back),
     * unlink it. The created file is removed afterwards, quietly.
     */
    private Map<String, Object> folder(File dir, String name) {
        final File f = new File(dir, name);
        final File created = new File(dir, name + ".created");
        Map<String, Object> out = new LinkedHashMap<String, Object>();
        final byte[][] content = {new byte[0]};
        out.put("read", attempt(new Callable<Object>() {
            @Override
            public Object call() throws Exception {
                content[0] = readAll(f);
                return null;
            }
        }));
        quietDelete(created);
        out.put("create", attempt(new Callable<Object>() {
            @Override
            public Object call() throws Exception {
                if (!created.createNewFile()) {
                    throw new IOException(created + ": EEXIST (File exists)");
                }
                return null;
            }
        }));
        out.put("append", attempt(new Callable<Object>() {
            @Override
            public Object call() throws Exception {
                write(f, true, "droidstar doctor\n".getBytes(EnvAction.UTF8));
                return null;
            }
        }));
        out.put("truncate", attempt(new Callable<Object>() {
            @Override
            public Object call() throws Exception {
                write(f, false, content[0]);
                return null;
            }
        }));
        out.put("unlink", attempt(new Callable<Object>() {
            @Override
            public Object call() throws Exception {
                if (hooks != null) {
                    hooks.unlink(f);
                } else if (!f.delete()) {
                    throw new IOException(f + ": File.delete failed");
                }
                return null;
            }
        }));
        quietDelete(created);
        return out;
    }

    private static byte[] readAll(File f) throws IOException {
        InputStream in = new FileInputStream(f);
        try {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) > 0) {
                out.write(buf, 0, n);
            }
            return out.toByteArray();
        } finally {
            in.close();
        }
    }

    private static void write(File f, boolean append, byte[] data) throws IOException {
        OutputStream out = new FileOutputStream(f, append);
        try {
            out.write(data);
        } finally {
            out.close();
        }
    }

    private static void quietDelete(File f) {
        try {
            f.delete();
        } catch (RuntimeException e) {
            // a refused unlink is what the folder's own row reports
        }
    }

    /** {"ok":true}, or {"ok":false,"errno":E,"message":M} with what the call threw. */
    static Map<String, Object> attempt(Callable<Object> c) {
        Map<String, Object> r = new LinkedHashMap<String, Object>();
        try {
            c.call();
            r.put("ok", Boolean.TRUE);
        } catch (Throwable t) {
            failed(r, t);
        }
        return r;
    }

    static void failed(Map<String, Object> r, Throwable t) {
        r.put("ok", Boolean.FALSE);
        String text = describe(t);
        r.put("errno", errno(text));
        r.put("message", text);
    }

    static String describe(Throwable t) {
        String m = t.getMessage();
        return t.getClass().getName() + (m != null ? ": " + m : "");
    }

    private static final Pattern ERRNO = Pattern.compile("\\b(E[A-Z][A-Z0-9]+) \\(");
    private static final String[][] STRERROR = {
        {"Permission denied", "EACCES"},
        {"No such file or directory", "ENOENT"},
        {"Read-only file system", "EROFS"},
        {"Operation not permitted", "EPERM"},
        {"Is a directory", "EISDIR"},
        {"Not a directory", "ENOTDIR"},
        {"No space left on device", "ENOSPC"},
        {"File exists", "EEXIST"},
        {"Connection refused", "ECONNREFUSED"},
        // java.nio.file's exceptions name the failure by their class
        {"java.nio.file.NoSuchFileException", "ENOENT"},
        {"java.nio.file.AccessDeniedException", "EACCES"},
        {"java.nio.file.FileAlreadyExistsException", "EEXIST"},
        {"java.nio.file.DirectoryNotEmptyException", "ENOTEMPTY"},
    };

    /**
     * The errno a failure names: bionic's "EACCES (Permission denied)", or
     * the JVM's bare strerror text ("(Permission denied)"); null when it
     * names none.
     */
    static String errno(String text) {
        Matcher m = ERRNO.matcher(text);
        if (m.find()) {
            return m.group(1);
        }
        for (String[] s : STRERROR) {
            if (text.contains(s[0])) {
                return s[1];
            }
        }
        return null;
    }

    // -------------------------------------------------------------- jar ---

    /**
     * Copies the embedded adapter jar into the code folder, read-only as
     * user jars are, loads it with the platform's loader and lets its
     * adapter register a shim: the path every purpose's jars take.
     */
    private Map<String, Object> jar() {
        return attempt(new Callable<Object>() {
            @Override
            public Object call() throws Exception {
                InputStream in = Probe.class.getResourceAsStream(ADAPTER_JAR);
                if (in == null) {
                    throw new IllegalStateException("this harness has no embedded " + ADAPTER_JAR);
                }
                File dir = new File(platform.workspace().code(), "probe");
                File jar = new File(dir, ADAPTER_JAR);
                try {
                    if (!dir.isDirectory() && !dir.mkdirs()) {
                        throw new IOException(dir + ": cannot create the folder");
                    }
                    if (jar.exists()) {
                        jar.setWritable(true, false);
                        jar.delete();
                    }
                    Workspace.copy(in, jar);
                } finally {
                    in.close();
                }
                if (!jar.setWritable(false, false)) {
                    throw new IOException(jar + ": cannot make it read-only");
                }
                ClassLoader loader = Jars.load(platform, Collections.singletonList(jar), Probe.class.getClassLoader());
                Class<?> c = Class.forName(ADAPTER_CLASS, true, loader);
                if (c.getClassLoader() == Probe.class.getClassLoader()) {
                    throw new IllegalStateException(ADAPTER_CLASS + " came from the harness, not the jar");
                }
                Adapter a = (Adapter) c.getConstructor().newInstance();
                ShimRegistry registry = new ShimRegistry();
                a.register(registry, platform);
                if (registry.lookup(ADAPTER_CLASS) != c) {
                    throw new IllegalStateException(ADAPTER_CLASS + " did not register itself");
                }
                return null;
            }
        });
    }

    // ------------------------------------------------------------ proxy ---

    /** A ListenerProxy of a framework interface, called by the framework. */
    private Map<String, Object> proxy() {
        final Map<String, Object> r = new LinkedHashMap<String, Object>();
        if (hooks == null) {
            r.put("listener", null);
            r.put("ok", Boolean.FALSE);
            r.put("errno", null);
            r.put("message", "not available on this platform");
            return r;
        }
        final String name = hooks.frameworkListener();
        r.put("listener", name);
        final String[] called = new String[1];
        final CountDownLatch done = new CountDownLatch(1);
        Map<String, Object> a = attempt(new Callable<Object>() {
            @Override
            public Object call() throws Exception {
                Class<?> type = Class.forName(name, false, Probe.class.getClassLoader());
                final Object proxy = ListenerProxy.create(type, new CallbackSink() {
                    @Override
                    public void record(long generation, String method, String detail, Object[] args) {
                        synchronized (called) {
                            if (called[0] == null) {
                                called[0] = method;
                            }
                        }
                        done.countDown();
                    }
                }, 0, Probe.class.getClassLoader());
                platform.mainThread().call(new Callable<Object>() {
                    @Override
                    public Object call() throws Exception {
                        hooks.fireFrameworkListener(proxy);
                        return null;
                    }
                }, QueryRunner.mainThreadTimeoutMs(0));
                if (!done.await(graceMs, TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("the framework did not call the proxy within "
                            + graceMs + " ms");
                }
                return null;
            }
        });
        r.putAll(a);
        synchronized (called) {
            r.put("callback", called[0]);
        }
        return r;
    }

    // -------------------------------------------------------- callbacks ---

    /** Measured delivery latencies of one callback source, in ms past its delay. */
    static final class Latency {
        final String name;
        final long delayMs;
        final double[] samples;
        final int missed;
        final String error;

        Latency(String name, long delayMs, double[] samples, int missed, String error) {
            this.name = name;
            this.delayMs = delayMs;
            this.samples = samples.clone();
            Arrays.sort(this.samples);
            this.missed = missed;
            this.error = error;
        }

        /** The nearest-rank percentile; 0 without samples. */
        double percentile(int p) {
            if (samples.length == 0) {
                return 0;
            }
            int rank = (int) Math.ceil(p / 100.0 * samples.length);
            return samples[Math.max(0, Math.min(samples.length - 1, rank - 1))];
        }

        Map<String, Object> reply() {
            Map<String, Object> r = new LinkedHashMap<String, Object>();
            r.put("source", name);
            r.put("delay_ms", Long.valueOf(delayMs));
            r.put("samples", Integer.valueOf(samples.length));
            r.put("missed", Integer.valueOf(missed));
            boolean any = samples.length > 0;
            r.put("p50_ms", any ? Json.millis(percentile(50)) : null);
            r.put("p90_ms", any ? Json.millis(percentile(90)) : null);
            r.put("p99_ms", any ? Json.millis(percentile(99)) : null);
            r.put("max_ms", any ? Json.millis(samples[samples.length - 1]) : null);
            r.put("error", error);
            return r;
        }
    }

    /**
     * Asks for n callbacks one after another and measures how long after
     * its delay each arrives; stops after two that never come.
     */
    Latency latency(final ProbeHooks.CallbackSource source, int n) throws InterruptedException {
        List<Double> got = new ArrayList<Double>();
        int missed = 0;
        String error = null;
        for (int i = 0; i < n && missed < 2; i++) {
            final long[] times = new long[2];
            final CountDownLatch done = new CountDownLatch(1);
            final Runnable callback = new Runnable() {
                @Override
                public void run() {
                    times[1] = System.nanoTime();
                    done.countDown();
                }
            };
            try {
                platform.mainThread().call(new Callable<Object>() {
                    @Override
                    public Object call() throws Exception {
                        times[0] = System.nanoTime();
                        source.start(callback);
                        return null;
                    }
                }, QueryRunner.mainThreadTimeoutMs(0));
            } catch (InterruptedException e) {
                throw e;
            } catch (Throwable t) {
                error = describe(t);
                break;
            }
            if (!done.await(source.delayMs() + graceMs, TimeUnit.MILLISECONDS)) {
                missed++;
                continue;
            }
            got.add(Double.valueOf(Math.max(0, (times[1] - times[0]) / 1e6 - source.delayMs())));
        }
        double[] s = new double[got.size()];
        for (int i = 0; i < s.length; i++) {
            s[i] = got.get(i).doubleValue();
        }
        return new Latency(source.name(), source.delayMs(), s, missed, error);
    }

    // ------------------------------------------------------------ audio ---

    private Map<String, Object> audio(int ms) {
        Map<String, Object> r = new LinkedHashMap<String, Object>();
        if (hooks == null || ms == 0) {
            r.put("available", Boolean.FALSE);
            return r;
        }
        try {
            Map<String, Object> level = hooks.recordAudio(ms);
            if (level == null) {
                r.put("available", Boolean.FALSE);
                return r;
            }
            r.put("available", Boolean.TRUE);
            r.put("ok", Boolean.TRUE);
            r.put("ms", Integer.valueOf(ms));
            r.putAll(level);
        } catch (Throwable t) {
            r.put("available", Boolean.TRUE);
            failed(r, t);
        }
        return r;
    }

    // -------------------------------------------------------- bluetooth ---

    /**
     * Which of the addresses asked about are paired with the device:
     * {"available":false} where the platform has no Bluetooth API, else
     * the attempt and, when it worked, "paired", the addresses asked about
     * that are paired, as asked (Android writes addresses in upper case;
     * the comparison ignores case). The device's other paired devices are
     * not told: the host asked about its own.
     */
    private Map<String, Object> bluetooth(List<String> asked) {
        Map<String, Object> r = new LinkedHashMap<String, Object>();
        List<String> paired;
        try {
            paired = hooks == null ? null : hooks.pairedBluetoothDevices();
        } catch (Throwable t) {
            r.put("available", Boolean.TRUE);
            failed(r, t);
            return r;
        }
        if (paired == null) {
            r.put("available", Boolean.FALSE);
            return r;
        }
        List<Object> out = new ArrayList<Object>();
        for (String a : asked) {
            for (String p : paired) {
                if (p != null && p.equalsIgnoreCase(a)) {
                    out.add(a);
                    break;
                }
            }
        }
        r.put("available", Boolean.TRUE);
        r.put("ok", Boolean.TRUE);
        r.put("paired", out);
        return r;
    }

    // ------------------------------------------------------------- urls ---

    /**
     * Whether the device reaches a URL: any HTTP answer counts (a 404 is
     * an answer a purpose may want); only a failure to get one does not.
     */
    private static Map<String, Object> url(String u, int timeoutMs) {
        Map<String, Object> r = new LinkedHashMap<String, Object>();
        r.put("url", u);
        long start = System.nanoTime();
        try {
            URLConnection c = new URL(u).openConnection();
            if (!(c instanceof HttpURLConnection)) {
                throw new IOException("not an http(s) URL");
            }
            HttpURLConnection h = (HttpURLConnection) c;
            h.setConnectTimeout(timeoutMs);
            h.setReadTimeout(timeoutMs);
            h.setUseCaches(false);
            try {
                int status = h.getResponseCode();
                r.put("ok", Boolean.TRUE);
                r.put("status", Integer.valueOf(status));
            } finally {
                h.disconnect();
            }
        } catch (Throwable t) {
            failed(r, t);
        }
        r.put("ms", Json.millis((System.nanoTime() - start) / 1e6));
        return r;
    }
}
