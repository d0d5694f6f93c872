package org.droidstar.harness.draft;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TimerTask;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.droidstar.harness.core.Json;
import org.junit.Test;

/** droidstar init's class reader: what it reads of a class, and its answers. */
public class DraftTest {
    /**
     * A class with one of each thing the reader looks for; addWatcher is
     * no registration (add*Listener is), registerWatcher is.
     */
    public static class Gadget {
        public interface ChangeListener {
            void onChange(int level);

            default void ignored() {
            }
        }

        public interface Watcher {
            void seen(String what);

            void gone();
        }

        public Gadget(String name, int size) {
        }

        public Gadget() {
        }

        public static Gadget open(String name) {
            return new Gadget();
        }

        public static int helper() {
            return 0;
        }

        public void setOnChangeListener(ChangeListener l) {
        }

        public void addWatcher(Watcher w) {
        }

        public void registerWatcher(Watcher w) {
        }

        public void schedule(TimerTask t, long delay) {
        }

        public void turn(int level) {
        }

        public void turn(double level, boolean fast) {
        }

        public String[] names(Gadget other) {
            return null;
        }
    }

    @Test
    public void describesConstructorsFactoriesMethodsAndListeners() {
        String want = "{\"class\":\"org.droidstar.harness.draft.DraftTest$Gadget\",\"kind\":\"class\",\"shim\":null,"
                + "\"constructors\":["
                + "{\"params\":[],\"signature\":\"new org.droidstar.harness.draft.DraftTest.Gadget()\"},"
                + "{\"params\":[\"java.lang.String\",\"int\"],\"signature\":\"new org.droidstar.harness.draft.DraftTest.Gadget(String, int)\"}],"
                + "\"factories\":[{\"name\":\"open\",\"params\":[\"java.lang.String\"],"
                + "\"signature\":\"static org.droidstar.harness.draft.DraftTest.Gadget open(String)\"}],"
                + "\"methods\":["
                + "{\"name\":\"addWatcher\",\"params\":[\"org.droidstar.harness.draft.DraftTest$Gadget$Watcher\"],"
                + "\"signature\":\"void addWatcher(org.droidstar.harness.draft.DraftTest.Gadget.Watcher)\"},"
                + "{\"name\":\"names\",\"params\":[\"org.droidstar.harness.draft.DraftTest$Gadget\"],"
                + "\"signature\":\"String[] names(org.droidstar.harness.draft.DraftTest.Gadget)\"},"
                + "{\"name\":\"schedule\",\"params\":[\"java.util.TimerTask\",\"long\"],\"signature\":\"void schedule(java.util.TimerTask, long)\"},"
                + "{\"name\":\"turn\",\"params\":[\"int\"],\"signature\":\"void turn(int)\"},"
                + "{\"name\":\"turn\",\"params\":[\"double\",\"boolean\"],\"signature\":\"void turn(double, boolean)\"}],"
                + "\"listeners\":["
                + "{\"type\":\"java.util.TimerTask\",\"register\":null,\"shim\":true,"
                + "\"callbacks\":[{\"name\":\"run\",\"signature\":\"void run()\"}],"
                + "\"callins\":[{\"name\":\"cancel\",\"params\":[],\"signature\":\"boolean cancel()\"},"
                + "{\"name\":\"scheduledExecutionTime\",\"params\":[],\"signature\":\"long scheduledExecutionTime()\"}]},"
                + "{\"type\":\"org.droidstar.harness.draft.DraftTest$Gadget$ChangeListener\",\"register\":\"setOnChangeListener\",\"shim\":false,"
                + "\"callbacks\":[{\"name\":\"onChange\",\"signature\":\"void onChange(int)\"}],\"callins\":[]},"
                + "{\"type\":\"org.droidstar.harness.draft.DraftTest$Gadget$Watcher\",\"register\":\"registerWatcher\",\"shim\":false,"
                + "\"callbacks\":[{\"name\":\"gone\",\"signature\":\"void gone()\"},{\"name\":\"seen\",\"signature\":\"void seen(String)\"}],"
                + "\"callins\":[]}],\"interfaces\":[]}";
        assertEquals(want, Json.write(Reflector.describe(Gadget.class)));
    }

    @Test
    public void registrationNames() {
        for (String yes : new String[] {"setOnPreparedListener", "addListener", "addStateListener", "registerCallback", "register"}) {
            assertTrue(yes, Reflector.isRegistration(yes));
        }
        for (String no : new String[] {"setListener", "setOnPrepared", "addItem", "removeListener", "unregisterCallback"}) {
            assertTrue(no, !Reflector.isRegistration(no));
        }
    }

    @Test
    public void loadsBinaryAndSourceNamesWithoutRunningTheClass() {
        ClassLoader l = DraftTest.class.getClassLoader();
        assertSame(Map.Entry.class, Main.load("java.util.Map.Entry", l));
        assertSame(Map.Entry.class, Main.load("java.util.Map$Entry", l));
        assertNull(Main.load("java.util.Nope", l));
        assertSame(Loud.class, Main.load(DraftTest.class.getName() + ".Loud", l));
        assertTrue("loading ran the static initialiser", !Holder.ran);
    }

    /** Whose static initialiser would say that it ran. */
    public static class Loud {
        static {
            Holder.ran = true;
        }

        public void x() {
        }
    }

    static final class Holder {
        static boolean ran;
    }

    @Test
    public void answersUnknownClassesWithTheNearestNames() throws IOException {
        Map<String, Object> a = Main.answer("java.util.concurrent.CompletableFutur", new ArrayList<File>());
        assertEquals("{\"ok\":false,\"error\":{\"code\":\"unknown-class\",\"message\":\"no class java.util.concurrent.CompletableFutur on the class path\","
                + "\"suggestions\":[\"java.util.concurrent.CompletableFuture\"]}}", Json.write(a));
    }

    @Test
    public void answersNonPublicClasses() throws IOException {
        assertEquals("{\"ok\":false,\"error\":{\"code\":\"not-public\",\"message\":\"java.util.ArrayList$Itr is not public: the harness calls public API only\","
                + "\"suggestions\":[]}}", Json.write(Main.answer("java.util.ArrayList$Itr", new ArrayList<File>())));
    }

    @Test
    public void editDistance() {
        assertEquals(0, Main.distance("timer", "timer", 2));
        assertEquals(1, Main.distance("timr", "timer", 2));
        assertEquals(2, Main.distance("tmer", "timers", 2));
        assertEquals(3, Main.distance("abc", "xyzabcd", 2));
    }

    /**
     * The reader's table of shims is what the platforms register, with the
     * callback names each shim reports, in the order it declares them:
     * read from the sources, since the Android shims do not load on a host.
     */
    @Test
    public void shimTableMatchesThePlatformsShims() throws IOException {
        Map<String, List<String>> found = new TreeMap<String, List<String>>();
        // JvmPlatform: registry.register("java.util.TimerTask", JvmShims.TimerTaskShim.class)
        String jvm = read("src/jvm/java/org/droidstar/harness/jvm/JvmPlatform.java");
        String jvmShims = read("src/jvm/java/org/droidstar/harness/jvm/JvmShims.java");
        Matcher m = Pattern.compile("registry\\.register\\(\"([\\w.$]+)\", JvmShims\\.(\\w+)\\.class\\)").matcher(jvm);
        while (m.find()) {
            int start = jvmShims.indexOf("class " + m.group(2) + " ");
            int end = jvmShims.indexOf(" class ", start + 1);
            found.put(m.group(1), callbacks(jvmShims.substring(start, end < 0 ? jvmShims.length() : end)));
        }
        // AndroidPlatform: registry.register(MediaCodec.Callback.class.getName(), MediaCodecCallbackShim.class)
        String dir = "src/android/java/org/droidstar/harness/android/";
        String android = read(dir + "AndroidPlatform.java");
        Map<String, String> imports = new LinkedHashMap<String, String>();
        Matcher im = Pattern.compile("import ([\\w.]+)\\.(\\w+);").matcher(android);
        while (im.find()) {
            imports.put(im.group(2), im.group(1) + "." + im.group(2));
        }
        m = Pattern.compile("registry\\.register\\(([\\w.]+)\\.class\\.getName\\(\\), (\\w+)\\.class\\)").matcher(android);
        while (m.find()) {
            String[] parts = m.group(1).split("\\.");
            String name = imports.get(parts[0]);
            for (int i = 1; i < parts.length; i++) {
                name += "$" + parts[i];
            }
            found.put(name, callbacks(read(dir + m.group(2) + ".java")));
        }
        assertEquals(8, found.size());
        assertEquals(found, new TreeMap<String, List<String>>(Reflector.SHIMS));
    }

    private static List<String> callbacks(String source) {
        List<String> out = new ArrayList<String>();
        Matcher m = Pattern.compile("ctx\\.callback\\(\"(\\w+)\"").matcher(source);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    private static String read(String path) throws IOException {
        return new String(Files.readAllBytes(new File(path).toPath()), StandardCharsets.UTF_8);
    }
}
