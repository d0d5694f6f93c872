package org.droidstar.harness.shimgen;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.droidstar.harness.core.Json;
import org.droidstar.harness.core.ServerTestBase;
import org.junit.Test;

public class ShimgenTest extends ServerTestBase {
    private static final String F = "org.droidstar.harness.shimgen.ShimFixtures$";

    /** The folder of the test classes: the "user's jar" the fixtures come from. */
    private static File testClasses() throws URISyntaxException {
        return new File(ShimgenTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private Main.Request request(String... listeners) throws Exception {
        Main.Request r = new Main.Request();
        r.out = new File(dir, "shims.jar");
        r.classpath.add(testClasses());
        for (int i = 0; i < listeners.length; i++) {
            r.listeners.put(Integer.valueOf(i), listeners[i]);
        }
        return r;
    }

    /** The purpose around Station, its watcher registered as listener (named when name is not null). */
    private static String purpose(String jar, String type, String register, String name, String decide) {
        return "{'name':'Station','class':'" + F + "Station','target':{'new':[],'listeners':[{'type':'" + type
                + "','register':'" + register + "'" + (name == null ? "" : ",'name':'" + name + "'") + "}]},"
                + (jar == null ? "" : "'jars':['" + jar + "'],'adapters':['org.droidstar.harness.generated.ShimAdapter'],")
                + "'callins':[{'symbol':'ping','call':'ping'},{'symbol':'idle','call':'idle'},{'symbol':'ask','call':'ask'}],"
                + "'callbacks':[{'symbol':'" + (name == null ? "" : name + ".") + "onPing'},{'symbol':'"
                + (name == null ? "" : name + ".") + "onIdle'},{'symbol':'" + (name == null ? "" : name + ".")
                + "decide'," + decide + "}],'timeouts':{'quiescence':50}}";
    }

    @Test
    public void aGeneratedShimReportsAndAnswersAsAProxyDoes() throws Exception {
        Main.Request r = request(F + "Watcher");
        r.callbacks.add("decide");
        Map<String, Object> reply = Main.run(r);
        assertEquals(q("{'ok':true,'adapter':'org.droidstar.harness.generated.ShimAdapter','shims':[{'index':0,"
                + "'type':'" + F + "Watcher','shim':'org.droidstar.harness.generated."
                + "org_droidstar_harness_shimgen_ShimFixtures_WatcherShim','methods':['decide','onIdle','onPing']}],"
                + "'skipped':[]}"), Json.write(reply));
        String jar = r.out.getAbsolutePath();
        String query = "['ping','wait','idle','wait','ask','wait','wait']";
        String[] behaviours = {"'returns':true", "'returns':false", "'throws':{'new':['java.io.IOException','boom']}",
            "'throws':{'new':['java.lang.Exception','undeclared']}", "'sleep_ms':1"};
        for (String b : behaviours) {
            configure(purpose(null, F + "WatcherInterface", "setTwin", null, b));
            Map<String, Object> proxy = run1(query);
            configure(purpose(jar, F + "Watcher", "setWatcher", null, b));
            Map<String, Object> shim = run1(query);
            assertEquals(b, Json.write(proxy.get("outputs")), Json.write(shim.get("outputs")));
            assertEquals(b, Json.write(proxy.get("err")), Json.write(shim.get("err")));
        }
        configure(purpose(jar, F + "Watcher", "setWatcher", null, "'returns':true"));
        assertEquals(q("['ok','onPing','ok','onIdle','ok','decide','quiet']"), outputs(run1(query)));
        configure(purpose(jar, F + "Watcher", "setWatcher", null, "'throws':{'new':['java.io.IOException','boom']}"));
        Map<String, Object> res = run1(query);
        assertEquals(q("['ok','onPing','ok','onIdle','err']"), outputs(res));
        assertEquals("java.io.IOException", ((Map<?, ?>) res.get("err")).get("exception"));

        // a checked exception decide does not declare: wrapped, as a proxy wraps it
        configure(purpose(jar, F + "Watcher", "setWatcher", null, behaviours[3]));
        res = run1(query);
        assertEquals(q("['ok','onPing','ok','onIdle','err']"), outputs(res));
        assertEquals("java.lang.reflect.UndeclaredThrowableException", ((Map<?, ?>) res.get("err")).get("exception"));

        // a named listener's calls are NAME.METHOD, as a named proxy's
        configure(purpose(jar, F + "Watcher", "setWatcher", "second", "'returns':true"));
        assertEquals(q("['ok','second.onPing','ok','second.onIdle','ok','second.decide','quiet']"), outputs(run1(query)));
    }

    @Test
    public void refusalsSayWhichListenerAndWhy() throws Exception {
        Main.Request r = request("java.lang.String", F + "NeedsArgs", F + "Sealed", F + "Hidden", F + "Inner",
                "no.such.Listener", F + "Watcher");
        r.callbacks.add("onFinal");
        Map<String, Object> reply = Main.run(r);
        assertEquals(Boolean.FALSE, reply.get("ok"));
        List<?> errors = (List<?>) reply.get("errors");
        String[] want = {
            "java.lang.String is final: no subclass of it can report its calls",
            F + "NeedsArgs has no public or protected constructor without parameters, which a generated shim calls,"
                    + " and droidstar does not guess arguments for the others: NeedsArgs(int, String),"
                    + " NeedsArgs(long) (write a shim in an adapter jar that passes them)",
            F + "Sealed has no public or protected constructor: no class outside its package can subclass it",
            F + "Hidden has the package-private abstract method " + F + "Hidden.onHidden(), which no class outside"
                    + " org.droidstar.harness.shimgen can implement",
            F + "Inner is an inner class of org.droidstar.harness.shimgen.ShimFixtures (not static): a subclass needs"
                    + " an instance of org.droidstar.harness.shimgen.ShimFixtures to make one",
            "no class no.such.Listener on the class path",
            F + "Watcher.onFinal() is final: it cannot be overridden, so a shim cannot report its calls",
        };
        assertEquals(Json.write(errors), want.length, errors.size());
        for (int i = 0; i < want.length; i++) {
            Map<?, ?> e = (Map<?, ?>) errors.get(i);
            assertEquals("target.listeners[" + i + "].type", e.get("where"));
            assertEquals("unknown-listener", e.get("code"));
            assertEquals(want[i], e.get("message"));
        }
        assertFalse("no jar when a listener is refused", r.out.exists());
    }

    @Test
    public void interfacesAndBuiltInShimsNeedNone() throws Exception {
        Main.Request r = request("java.lang.Runnable", "java.util.TimerTask", "java.util.concurrent.FutureTask");
        assertEquals(q("{'ok':true,'adapter':null,'shims':[],'skipped':[{'index':0,'type':'java.lang.Runnable',"
                + "'why':'interface'},{'index':1,'type':'java.util.TimerTask','why':'built-in shim'},{'index':2,'type':"
                + "'java.util.concurrent.FutureTask','why':'built-in shim'}]}"), Json.write(Main.run(r)));
        assertFalse(r.out.exists());
        // Android's built-in shims are others, and a class the host cannot
        // read (from a dex jar) is the device's to resolve
        r.platform = "android";
        r.listeners.clear();
        r.listeners.put(Integer.valueOf(3), "java.util.TimerTask");
        r.listeners.put(Integer.valueOf(4), "okhttp3.Callback");
        Map<String, Object> reply = Main.run(r);
        assertEquals("org.droidstar.harness.generated.java_util_TimerTaskShim",
                ((Map<?, ?>) ((List<?>) reply.get("shims")).get(0)).get("shim"));
        assertEquals(q("[{'index':4,'type':'okhttp3.Callback','why':") + "\"not on the host's class path\"}]",
                Json.write(reply.get("skipped")));
    }

    @Test
    public void withoutACompilerTheErrorNamesAJdk() throws Exception {
        Main.Request r = request("java.util.logging.Handler");
        Map<String, Object> reply = Main.run(r, null);
        Map<?, ?> e = (Map<?, ?>) ((List<?>) reply.get("errors")).get(0);
        assertEquals("target.listeners[0].type", e.get("where"));
        assertEquals("no-compiler", e.get("code"));
        assertEquals("java.util.logging.Handler is an abstract class, and droidstar generates a shim for it with the"
                + " JDK's compiler, which this java (" + System.getProperty("java.home") + ", a JRE) does not have:"
                + " install a JDK (on Debian or Ubuntu: apt-get install default-jdk-headless) and point JAVA_HOME or"
                + " backend.jvm.java at it", e.get("message"));
    }

    /** Main's list of Android's built-in shims is AndroidPlatform.registerBuiltIns's. */
    @Test
    public void androidBuiltInsAreAndroidPlatforms() throws Exception {
        String src = new String(Files.readAllBytes(new File(
                "src/android/java/org/droidstar/harness/android/AndroidPlatform.java").toPath()), StandardCharsets.UTF_8);
        Matcher body = Pattern.compile("registerBuiltIns\\(ShimRegistry registry\\) \\{(.*?)\\n    \\}", Pattern.DOTALL)
                .matcher(src);
        assertTrue(body.find());
        Matcher reg = Pattern.compile("registry\\.register\\(([A-Za-z.]+)\\.class\\.getName\\(\\)").matcher(body.group(1));
        Set<String> have = new TreeSet<String>();
        while (reg.find()) {
            String simple = reg.group(1);
            Matcher imp = Pattern.compile("import (android[a-z.]*\\." + simple.split("\\.")[0] + ");").matcher(src);
            assertTrue(simple, imp.find());
            have.add(imp.group(1) + (simple.contains(".") ? "$" + simple.substring(simple.indexOf('.') + 1) : ""));
        }
        assertEquals(new TreeSet<String>(Arrays.asList(have.toArray(new String[0]))), Main.ANDROID_BUILT_INS);
        assertNull(Main.load("no.such.Type", getClass().getClassLoader()));
    }
}
