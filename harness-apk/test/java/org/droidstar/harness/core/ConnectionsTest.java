package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.Charset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

import org.junit.Test;

public class ConnectionsTest {
    private static final Charset UTF8 = Charset.forName("UTF-8");
    private static final int OWN_UID = 10123;

    /** A connection that reads given request lines and records the replies. */
    static final class Scripted implements Connections.Connection {
        final int uid;
        final ByteArrayInputStream in;
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        boolean closed;

        Scripted(int uid, String... lines) {
            this.uid = uid;
            StringBuilder b = new StringBuilder();
            for (String l : lines) {
                b.append(l).append('\n');
            }
            this.in = new ByteArrayInputStream(b.toString().getBytes(UTF8));
        }

        @Override
        public int peerUid() {
            return uid;
        }

        @Override
        public InputStream in() {
            return in;
        }

        @Override
        public OutputStream out() {
            return out;
        }

        @Override
        public void close() {
            closed = true;
        }

        String replies() {
            return new String(out.toByteArray(), UTF8);
        }
    }

    private static Connections.Listener listener(final Scripted... conns) {
        final Deque<Scripted> q = new ArrayDeque<Scripted>(Arrays.asList(conns));
        return new Connections.Listener() {
            @Override
            public Connections.Connection accept() throws IOException {
                if (q.isEmpty()) {
                    throw new IOException("no more connections");
                }
                return q.poll();
            }
        };
    }

    @Test
    public void refusesOtherAppsAndKeepsOneServerAcrossConnections() throws IOException {
        TestPlatform platform = new TestPlatform(new File(System.getProperty("java.io.tmpdir")));
        final List<String> log = new ArrayList<String>();
        Log.setSink(new Log.Sink() {
            @Override
            public void log(String line) {
                log.add(line);
            }
        });
        try {
            Server server = new Server(platform);
            String configure = "{\"id\":2,\"op\":\"configure\",\"purpose\":{\"name\":\"T\",\"class\":\""
                    + ServerTestBase.TARGET + "\",\"callins\":[{\"symbol\":\"a\",\"call\":\"ping\"}],"
                    + "\"timeouts\":{\"quiescence\":10}}}";
            Scripted intruder = new Scripted(10200, "{\"id\":1,\"op\":\"ping\"}");
            Scripted first = new Scripted(Connections.SHELL_UID, configure);
            // a second connection runs without configuring again
            Scripted second = new Scripted(Connections.ROOT_UID, "{\"id\":3,\"op\":\"run\",\"queries\":[[]]}",
                    "{\"id\":4,\"op\":\"bye\"}", "{\"id\":5,\"op\":\"ping\"}");
            Scripted never = new Scripted(OWN_UID, "{\"id\":6,\"op\":\"ping\"}");
            int n = new Connections(server, OWN_UID).serve(listener(intruder, first, second, never));
            assertEquals(3, n);
            assertEquals("", intruder.replies());
            assertTrue(intruder.closed && first.closed && second.closed);
            assertTrue(first.replies(), first.replies().startsWith("{\"id\":2,\"ok\":true"));
            assertTrue(second.replies(), second.replies().startsWith("{\"id\":3,\"ok\":true,\"results\":[{\"outputs\":[]"));
            assertTrue("nothing after bye is read", second.replies().endsWith("{\"id\":4,\"ok\":true}\n"));
            assertEquals("", never.replies());
            assertEquals(Arrays.asList("connection 1 from uid 10200 refused (only adb's shell, root or uid 10123)",
                    "connection 2 accepted (uid 2000)", "connection 2 closed without bye; listening again",
                    "connection 3 accepted (uid 0)", "bye on connection 3: finishing"), filter(log));
        } finally {
            platform.shutdown();
            Log.setSink(new Log.Sink() {
                @Override
                public void log(String line) {
                    System.err.println("droidstar-harness: " + line);
                }
            });
        }
    }

    private static List<String> filter(List<String> log) {
        List<String> out = new ArrayList<String>();
        for (String l : log) {
            if (l.startsWith("connection ") || l.startsWith("bye ")) {
                out.add(l);
            }
        }
        return out;
    }

    @Test
    public void uidPolicy() {
        Connections c = new Connections(null, OWN_UID);
        assertTrue(c.allowed(0) && c.allowed(2000) && c.allowed(OWN_UID));
        assertTrue(!c.allowed(-1) && !c.allowed(1000) && !c.allowed(10124));
    }
}
