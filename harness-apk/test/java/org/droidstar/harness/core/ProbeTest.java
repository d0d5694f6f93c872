package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.Test;

/**
 * The probe op on the test platform: every check's exact answer where the
 * platform decides it, the shape and sense of the timings where the clock
 * does.
 */
public class ProbeTest extends ServerTestBase {
    private Map<?, ?> probe(String request) throws Exception {
        Map<?, ?> reply = (Map<?, ?>) Json.parse(send(request));
        assertEquals(reply.toString(), Boolean.TRUE, reply.get("ok"));
        return reply;
    }

    private static Map<?, ?> map(Object o, String... path) {
        Object v = o;
        for (String k : path) {
            v = ((Map<?, ?>) v).get(k);
        }
        return (Map<?, ?>) v;
    }

    @Test
    public void filesInAPrivateFolderAllowEverything() throws Exception {
        Files.write(new File(dir, "doctor-probe.txt").toPath(), "staged\n".getBytes("UTF-8"));
        Map<?, ?> r = probe("{'id':1,'op':'probe','samples':0,'audio_ms':0}");
        assertNull(map(r, "files").get("staging"));
        assertEquals("{read={ok=true}, create={ok=true}, append={ok=true}, truncate={ok=true}, unlink={ok=true}}",
                map(r, "files", "private").toString());
        assertTrue("the probe removes what it made: " + java.util.Arrays.toString(dir.list()),
                !new File(dir, "doctor-probe.txt").exists() && !new File(dir, "doctor-probe.txt.created").exists());
    }

    @Test
    public void everyFileOperationNamesItsErrno() throws Exception {
        // A staging folder that is not there: each operation fails on its
        // own, with the errno the platform named.
        platform.staging = new File(dir, "gone");
        Map<?, ?> r = probe("{'id':1,'op':'probe','file':'f.txt','samples':0,'audio_ms':0}");
        Map<?, ?> staging = map(r, "files", "staging");
        assertEquals("[read, create, append, truncate, unlink]", staging.keySet().toString());
        for (Object op : staging.keySet()) {
            Map<?, ?> a = (Map<?, ?>) staging.get(op);
            assertEquals(op + ": " + a, Boolean.FALSE, a.get("ok"));
            assertEquals(op + ": " + a, "ENOENT", a.get("errno"));
        }
        String gone = new File(platform.staging, "f.txt").getPath();
        assertEquals("java.io.FileNotFoundException: " + gone + " (No such file or directory)",
                ((Map<?, ?>) staging.get("read")).get("message"));
        assertEquals("java.nio.file.NoSuchFileException: " + gone, ((Map<?, ?>) staging.get("unlink")).get("message"));
    }

    @Test
    public void errnoIsReadFromBionicAndJvmMessages() {
        assertEquals("EACCES", Probe.errno("java.io.FileNotFoundException: /data/local/tmp/x: open failed: EACCES (Permission denied)"));
        assertEquals("EACCES", Probe.errno("java.lang.SecurityException: /data/local/tmp/x: EACCES (Permission denied): avc: denied { create }"));
        assertEquals("EROFS", Probe.errno("java.io.IOException: /system/x (Read-only file system)"));
        assertEquals("ECONNREFUSED", Probe.errno("java.net.ConnectException: Connection refused"));
        assertEquals("EACCES", Probe.errno("java.nio.file.AccessDeniedException: /x"));
        assertEquals(null, Probe.errno("java.lang.IllegalStateException: E (no errno)"));
    }

    @Test
    public void theEmbeddedJarLoadsAndTheFrameworkCallsTheProxy() throws Exception {
        Map<?, ?> r = probe("{'id':1,'op':'probe','samples':0,'audio_ms':0}");
        assertEquals("{ok=true}", r.get("jar").toString());
        assertEquals("{listener=java.lang.Runnable, ok=true, callback=run}", r.get("proxy").toString());
        assertTrue("the jar was copied read-only into the code folder",
                new File(dir, "probe/probe-adapter.jar").isFile() && !new File(dir, "probe/probe-adapter.jar").canWrite()
                        || isRoot());
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    @Test
    public void aProxyNobodyCallsIsReported() throws Exception {
        platform.listenerFires = false;
        Probe p = new Probe(platform);
        p.graceMs = 50;
        Map<String, Object> reply = new LinkedHashMap<String, Object>();
        p.run(Probe.Request.parse((Map<?, ?>) Json.parse("{\"samples\":0,\"audio_ms\":0}")), reply);
        assertEquals("{listener=java.lang.Runnable, ok=false, errno=null, message=java.lang.IllegalStateException: "
                + "the framework did not call the proxy within 50 ms, callback=null}", reply.get("proxy").toString());
    }

    @Test
    public void callbackLatenciesAndTheSuggestedQuiescence() throws Exception {
        Map<?, ?> r = probe("{'id':1,'op':'probe','samples':5,'audio_ms':0}");
        List<?> cbs = (List<?>) r.get("callbacks");
        assertEquals(1, cbs.size());
        Map<?, ?> c = (Map<?, ?>) cbs.get(0);
        assertEquals("[source, delay_ms, samples, missed, p50_ms, p90_ms, p99_ms, max_ms, error]", c.keySet().toString());
        assertEquals("test.Timer", c.get("source"));
        assertEquals(Long.valueOf(10), c.get("delay_ms"));
        assertEquals(Long.valueOf(5), c.get("samples"));
        assertEquals(Long.valueOf(0), c.get("missed"));
        double p50 = ((Number) c.get("p50_ms")).doubleValue();
        double p99 = ((Number) c.get("p99_ms")).doubleValue();
        double max = ((Number) c.get("max_ms")).doubleValue();
        assertTrue(c.toString(), 0 <= p50 && p50 <= p99 && p99 <= max);
        assertEquals(Long.valueOf(Probe.suggestQuiescence(p99)), r.get("quiescence_ms"));
        assertNull(c.get("error"));
    }

    @Test
    public void callbacksThatNeverComeStopAfterTwo() throws Exception {
        platform.callbacksFire = false;
        Probe p = new Probe(platform);
        p.graceMs = 20;
        Probe.Latency l = p.latency(platform.callbackSources().get(0), 10);
        assertEquals("{source=test.Timer, delay_ms=10, samples=0, missed=2, p50_ms=null, p90_ms=null, p99_ms=null, max_ms=null, error=null}",
                l.reply().toString());
    }

    @Test
    public void percentilesAreNearestRank() {
        Probe.Latency l = new Probe.Latency("x", 0, new double[] {5, 1, 4, 2, 3, 10, 6, 7, 8, 9}, 0, null);
        assertEquals(5.0, l.percentile(50), 0);
        assertEquals(9.0, l.percentile(90), 0);
        assertEquals(10.0, l.percentile(99), 0);
        assertEquals(100, Probe.suggestQuiescence(0.2));
        assertEquals(100, Probe.suggestQuiescence(33.3));
        assertEquals(150, Probe.suggestQuiescence(33.4));
        assertEquals(1550, Probe.suggestQuiescence(500.1));
    }

    @Test
    public void audio() throws Exception {
        assertEquals("{available=false}", probe("{'id':1,'op':'probe','samples':0}").get("audio").toString());
        Map<String, Object> level = new LinkedHashMap<String, Object>();
        level.put("peak", Integer.valueOf(1200));
        level.put("rms", Double.valueOf(150.5));
        platform.audio = level;
        assertEquals("{available=true, ok=true, ms=200, peak=1200, rms=150.5}",
                probe("{'id':1,'op':'probe','samples':0,'audio_ms':200}").get("audio").toString());
        assertEquals("{available=false}", probe("{'id':1,'op':'probe','samples':0,'audio_ms':0}").get("audio").toString());
        platform.audioFailure = new SecurityException("android.permission.RECORD_AUDIO is not granted");
        assertEquals("{available=true, ok=false, errno=null, message=java.lang.SecurityException: "
                + "android.permission.RECORD_AUDIO is not granted}",
                probe("{'id':1,'op':'probe','samples':0}").get("audio").toString());
    }

    @Test
    public void permissionsWhereThePlatformCanTell() throws Exception {
        String req = "{'id':1,'op':'probe','samples':0,'audio_ms':0,'permissions':['a.B','c.D']}";
        assertEquals("[]", probe(req).get("permissions").toString());
        platform.holds = Boolean.FALSE;
        assertEquals("[{permission=a.B, granted=false}, {permission=c.D, granted=false}]",
                probe(req).get("permissions").toString());
    }

    @Test
    public void pairedBluetoothDevicesAskedAbout() throws Exception {
        assertNull(probe("{'id':1,'op':'probe','samples':0,'audio_ms':0}").get("bluetooth"));
        String req = "{'id':1,'op':'probe','samples':0,'audio_ms':0,'bluetooth_paired':['00:11:22:AA:BB:CC','00:00:5E:00:53:01']}";
        assertEquals("{available=false}", probe(req).get("bluetooth").toString());
        platform.paired = Arrays.asList("E4:A4:71:9C:14:12", "00:11:22:aa:bb:cc");
        assertEquals("{available=true, ok=true, paired=[00:11:22:AA:BB:CC]}", probe(req).get("bluetooth").toString());
        platform.pairedFailure = new IllegalStateException("Bluetooth is off, and Android lists paired devices only while it is on");
        assertEquals("{available=true, ok=false, errno=null, message=java.lang.IllegalStateException: "
                + "Bluetooth is off, and Android lists paired devices only while it is on}",
                probe(req).get("bluetooth").toString());
    }

    @Test
    public void urls() throws Exception {
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/", new HttpHandler() {
            @Override
            public void handle(HttpExchange ex) throws IOException {
                ex.sendResponseHeaders(404, -1);
                ex.close();
            }
        });
        http.start();
        try {
            String ok = "http://127.0.0.1:" + http.getAddress().getPort() + "/missing";
            Map<?, ?> r = probe("{'id':1,'op':'probe','samples':0,'audio_ms':0,'urls':['" + ok
                    + "','http://127.0.0.1:1/','ftp://example.org/']}");
            List<?> urls = (List<?>) r.get("urls");
            Map<?, ?> reached = (Map<?, ?>) urls.get(0);
            assertEquals("[url, ok, status, ms]", reached.keySet().toString());
            assertEquals(ok, reached.get("url"));
            assertEquals(Long.valueOf(404), reached.get("status"));
            Map<?, ?> refused = (Map<?, ?>) urls.get(1);
            assertEquals("[url, ok, errno, message, ms]", refused.keySet().toString());
            assertEquals("ECONNREFUSED", refused.get("errno"));
            assertEquals("java.io.IOException: not an http(s) URL", ((Map<?, ?>) urls.get(2)).get("message"));
        } finally {
            http.stop(0);
        }
    }

    @Test
    public void badRequests() {
        String[][] cases = {
            {"{'id':1,'op':'probe','file':'../x'}", "\\\"file\\\" must be a plain file name, not \\\"../x\\\""},
            {"{'id':1,'op':'probe','file':7}", "\\\"file\\\" must be a string, not a number"},
            {"{'id':1,'op':'probe','samples':-1}", "\\\"samples\\\" must be an integer from 0 to 1000, not -1"},
            {"{'id':1,'op':'probe','audio_ms':1.5}", "\\\"audio_ms\\\" must be an integer from 0 to 10000, not 1.5"},
            {"{'id':1,'op':'probe','urls':'x'}", "\\\"urls\\\" must be an array of strings, not a string"},
            {"{'id':1,'op':'probe','permissions':[1]}", "\\\"permissions\\\"[0] must be a string, not a number"},
        };
        for (String[] c : cases) {
            assertEquals(c[0], q("{'id':1,'ok':false,'error':{'code':'bad-request','message':'") + c[1] + "\"}}",
                    send(c[0]));
        }
    }
}
