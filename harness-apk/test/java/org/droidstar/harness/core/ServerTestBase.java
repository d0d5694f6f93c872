package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;

import org.junit.After;
import org.junit.Before;

/**
 * A Server on a TestPlatform with a fresh files directory, and helpers that
 * write JSON with single quotes (q turns them into double quotes).
 */
public abstract class ServerTestBase {
    public static final String TARGET = "org.droidstar.harness.core.Fixtures$Target";
    public static final String LISTENER = "org.droidstar.harness.core.Fixtures$Listener";

    protected File dir;
    protected TestPlatform platform;
    protected Server server;

    @Before
    public void startServer() throws IOException {
        Fixtures.reset();
        dir = Files.createTempDirectory("droidstar-test").toFile();
        platform = new TestPlatform(dir);
        server = new Server(platform);
    }

    @After
    public void stopServer() {
        platform.shutdown();
        deleteTree(dir);
        Fixtures.reset();
    }

    static void deleteTree(File f) {
        File[] children = f.isDirectory() && !Files.isSymbolicLink(f.toPath()) ? f.listFiles() : null;
        if (children != null) {
            for (File c : children) {
                deleteTree(c);
            }
        }
        f.delete();
    }

    /** JSON with single quotes for double quotes. */
    public static String q(String s) {
        return s.replace('\'', '"');
    }

    /** Sends one request line (single-quoted JSON) and returns the reply line. */
    protected String send(String line) {
        return server.handle(q(line)).line;
    }

    @SuppressWarnings("unchecked")
    protected Map<String, Object> reply(String line) throws Exception {
        return (Map<String, Object>) Json.parse(send(line));
    }

    /** The purpose of most runner tests, with the given timeouts. */
    public static String basePurpose(long quiescenceMs, long settleMs, long postResetMs) {
        return "{'name':'Fixture','class':'" + TARGET + "',"
                + "'target':{'listeners':[{'type':'" + LISTENER + "','register':'setListener'}],"
                + "'dispose':{'call':'close','args':[]}},"
                + "'callins':["
                + "{'symbol':'fireA','call':'fire','args':['a']},"
                + "{'symbol':'fireB','call':'fire','args':['b']},"
                + "{'symbol':'fire2','call':'fire2','args':['a','b']},"
                + "{'symbol':'err','call':'fireError','args':[]},"
                + "{'symbol':'ping','call':'ping'},"
                + "{'symbol':'fail','call':'fail','args':[]},"
                + "{'symbol':'failChecked','call':'failChecked'},"
                + "{'symbol':'failError','call':'failError'},"
                + "{'symbol':'failNull','call':'failNullMessage'},"
                + "{'symbol':'async','call':'asyncFire','args':['b']},"
                + "{'symbol':'arm','call':'armStraggler'},"
                + "{'symbol':'release','call':'releaseStraggler'},"
                + "{'symbol':'where','call':'where'},"
                + "{'symbol':'ask','call':'ask'},"
                + "{'symbol':'noop','call':null,'on':null,'args':[],'do':[]}"
                + "],"
                + "'callbacks':[{'symbol':'eventA','from':['onEvent/a']},{'symbol':'onEvent'},"
                + "{'symbol':'onError','error':true}],"
                + "'timeouts':{'quiescence':" + quiescenceMs + ",'settle':" + settleMs + ",'post_reset':"
                + postResetMs + "}}";
    }

    protected void configure(String purpose) throws Exception {
        Map<String, Object> r = reply("{'id':1,'op':'configure','purpose':" + purpose + "}");
        assertEquals("configure failed: " + Json.write(r), Boolean.TRUE, r.get("ok"));
    }

    /** The error object of a configure that must fail. */
    @SuppressWarnings("unchecked")
    protected Map<String, Object> configureError(String purpose) throws Exception {
        Map<String, Object> r = reply("{'id':1,'op':'configure','purpose':" + purpose + "}");
        assertEquals("configure should fail: " + Json.write(r), Boolean.FALSE, r.get("ok"));
        return (Map<String, Object>) r.get("error");
    }

    /** Runs queries (single-quoted JSON array of arrays) and returns the results. */
    @SuppressWarnings("unchecked")
    protected List<Map<String, Object>> run(String queries) throws Exception {
        Map<String, Object> r = reply("{'id':9,'op':'run','queries':" + queries + "}");
        assertEquals("run failed: " + Json.write(r), Boolean.TRUE, r.get("ok"));
        List<Map<String, Object>> results = (List<Map<String, Object>>) r.get("results");
        for (Map<String, Object> res : results) {
            List<?> outputs = (List<?>) res.get("outputs");
            List<?> ms = (List<?>) res.get("ms");
            assertEquals("one ms per output", outputs.size(), ms.size());
            for (Object m : ms) {
                assertTrue(((Number) m).doubleValue() >= 0);
            }
        }
        return results;
    }

    protected Map<String, Object> run1(String query) throws Exception {
        return run("[" + query + "]").get(0);
    }

    protected static String outputs(Map<String, Object> result) {
        return Json.write(result.get("outputs"));
    }
}
