package org.droidstar.harness.jvm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import org.droidstar.harness.core.Json;
import org.droidstar.harness.core.Server;
import org.droidstar.harness.core.Workspace;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/** The JVM layer: its platform, its shims, and Main as a process. */
public class JvmPlatformTest {
    private File dir;
    private JvmPlatform platform;

    @Before
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("droidstar-jvm-test").toFile();
        platform = new JvmPlatform(Workspace.direct(dir));
    }

    @After
    public void tearDown() {
        platform.shutdown();
        File[] fs = dir.listFiles();
        if (fs != null) {
            for (File f : fs) {
                f.delete();
            }
        }
        dir.delete();
    }

    static String q(String s) {
        return s.replace('\'', '"');
    }

    private List<Map<?, ?>> converse(String... lines) throws Exception {
        StringBuilder in = new StringBuilder();
        for (String l : lines) {
            in.append(q(l)).append('\n');
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new Server(platform).serve(new ByteArrayInputStream(in.toString().getBytes("UTF-8")), out);
        List<Map<?, ?>> replies = new ArrayList<Map<?, ?>>();
        for (String l : new String(out.toByteArray(), "UTF-8").split("\n")) {
            Map<?, ?> r = (Map<?, ?>) Json.parse(l);
            assertEquals(l, Boolean.TRUE, r.get("ok"));
            replies.add(r);
        }
        return replies;
    }

    private static String outputs(Map<?, ?> runReply, int i) {
        return Json.write(((Map<?, ?>) ((List<?>) runReply.get("results")).get(i)).get("outputs"));
    }

    @Test
    public void helloDescribesTheJvm() throws Exception {
        Map<?, ?> r = converse("{'id':1,'op':'hello','protocol':2}").get(0);
        assertEquals("jvm", r.get("platform"));
        assertEquals(0L, r.get("sdk"));
        assertEquals(System.getProperty("java.version"), r.get("release"));
        assertEquals(System.getProperty("java.vm.name"), r.get("model"));
        assertEquals(System.getProperty("java.vm.vendor"), r.get("manufacturer"));
    }

    @Test
    public void theMainThreadIsOneDaemonThreadAndRethrowsAsIs() throws Exception {
        Thread t = platform.mainThread().call(new Callable<Thread>() {
            @Override
            public Thread call() {
                return Thread.currentThread();
            }
        }, 10000);
        assertEquals("droidstar-main", t.getName());
        assertTrue(t.isDaemon());
        assertEquals(t, platform.mainThread().call(new Callable<Thread>() {
            @Override
            public Thread call() {
                return Thread.currentThread();
            }
        }, 10000));
        try {
            platform.mainThread().call(new Callable<Object>() {
                @Override
                public Object call() throws Exception {
                    throw new java.io.IOException("as is");
                }
            }, 10000);
            fail();
        } catch (java.io.IOException e) {
            assertEquals("as is", e.getMessage());
        }
    }

    @Test
    public void timerWithTheTimerTaskShim() throws Exception {
        List<Map<?, ?>> r = converse("{'id':2,'op':'configure','purpose':{'name':'Timer','class':'java.util.Timer',"
                + "'target':{'new':[true],'listeners':[{'type':'java.util.TimerTask','register':null}],"
                + "'dispose':{'call':'cancel','args':[]}},"
                + "'callins':[{'symbol':'schedule','call':'schedule','on':null,'args':[{'listener':'java.util.TimerTask'},5],"
                + "'do':[]},{'symbol':'cancel','call':'cancel','on':null,'args':[],'do':[]},"
                + "{'symbol':'taskcancel','call':'cancel','on':{'listener':'java.util.TimerTask'},'args':[],'do':[]}],"
                + "'callbacks':[{'symbol':'run','error':false}],"
                + "'timeouts':{'quiescence':5000,'settle':0,'post_reset':0}}}",
                "{'id':3,'op':'run','queries':[['schedule','wait'],['cancel','schedule'],['taskcancel','schedule'],"
                + "['schedule','schedule']]}");
        assertEquals(q("['java.util.TimerTask']"), Json.write(r.get(0).get("shims")));
        assertEquals(q("['ok','run']"), outputs(r.get(1), 0));
        assertEquals(q("['ok','err']"), outputs(r.get(1), 1));
        assertEquals(q("['ok','err']"), outputs(r.get(1), 2));
        assertEquals(q("['ok','err']"), outputs(r.get(1), 3));
        Map<?, ?> err = (Map<?, ?>) ((Map<?, ?>) ((List<?>) r.get(1).get("results")).get(1)).get("err");
        assertEquals(q("{'at':1,'kind':'thrown','exception':'java.lang.IllegalStateException',"
                + "'message':'Timer already cancelled.'}"), Json.write(err));
    }

    @Test
    public void futureTaskShimStartedOnANewThread() throws Exception {
        String purpose = "{'name':'FutureTask','class':'java.util.concurrent.FutureTask',"
                + "'target':{'shim':{'sleep_ms':'0'}},"
                + "'callins':[{'symbol':'start','call':'execute','on':{'constant':"
                + "'org.droidstar.harness.jvm.JvmExecutors.NEW_THREAD'},'args':[{'target':true}]},"
                + "{'symbol':'cancel','call':'cancel','args':[true]},{'symbol':'run','call':'run'}],"
                + "'callbacks':[{'symbol':'done','from':['done/completed','done/cancelled']}],"
                + "'timeouts':{'quiescence':2000,'settle':0,'post_reset':0}}";
        List<Map<?, ?>> r = converse("{'id':2,'op':'configure','purpose':" + purpose + "}",
                "{'id':3,'op':'run','queries':[['start','wait'],['cancel','wait','start','wait'],"
                + "['run','wait','cancel']]}");
        assertEquals(q("['java.util.concurrent.FutureTask']"), Json.write(r.get(0).get("shims")));
        assertEquals(q("['ok','done/completed']"), outputs(r.get(1), 0));
        assertEquals(q("['ok','done/cancelled','ok','quiet']"), outputs(r.get(1), 1));
        assertEquals(q("['ok','done/completed','ok']"), outputs(r.get(1), 2));
        r = converse("{'id':2,'op':'configure','purpose':" + purpose.replace("'sleep_ms':'0'",
                "'sleep_ms':'0','fail':'true'") + "}", "{'id':3,'op':'run','queries':[['run','wait']]}");
        assertEquals(q("['ok','done/completed']"), outputs(r.get(1), 0));
    }

    @Test
    public void mainServesStdinAndStdoutAndKeepsStdoutClean() throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                "org.droidstar.harness.jvm.Main", "--files", new File(dir, "files").getPath());
        File log = new File(dir, "stderr.txt");
        pb.redirectError(log);
        Process p = pb.start();
        OutputStream in = p.getOutputStream();
        String script = q("{'id':1,'op':'hello','protocol':2}\n"
                + "{'id':2,'op':'configure','purpose':{'name':'Noise','class':'java.lang.Object',"
                + "'callins':[{'symbol':'say','call':'println','on':{'constant':'java.lang.System.out'},"
                + "'args':['noise on System.out']},{'symbol':'mk','do':[{'touch':'made'}]}],"
                + "'timeouts':{'quiescence':1}}}\n"
                + "{'id':3,'op':'run','queries':[['say','mk']]}\n"
                + "{'id':4,'op':'bye'}\n");
        in.write(script.getBytes("UTF-8"));
        in.flush();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), "UTF-8"));
        List<String> lines = new ArrayList<String>();
        String line;
        while ((line = out.readLine()) != null) {
            lines.add(line);
        }
        assertTrue("the harness exits after bye", p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
        assertEquals(lines.toString(), 4, lines.size());
        for (String l : lines) {
            assertEquals(l, Boolean.TRUE, ((Map<?, ?>) Json.parse(l)).get("ok"));
        }
        assertTrue(lines.get(2), lines.get(2).contains(q("'outputs':['ok','ok']")));
        assertEquals(q("{'id':4,'ok':true}"), lines.get(3));
        assertTrue(new File(dir, "files/made").isFile());
        String err = new String(Files.readAllBytes(log.toPath()), "UTF-8");
        assertTrue(err, err.contains("noise on System.out"));
        assertTrue(err, err.contains("droidstar-harness: configured Noise"));
        log.delete();
        new File(dir, "files/made").delete();
        new File(dir, "files").delete();
        assertFalse(new File(dir, "files").exists());
    }
}
