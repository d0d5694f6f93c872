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
     * A class with one of each thing the reader looks for; addWatcher and
     * registerWatcher are both registrations, the first by name wins.
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
        String gadget = "org.droidstar.harness.draft.DraftTest$Gadget";
        String want = "{\"class\":\"" + gadget + "\",\"kind\":\"class\",\"shim\":null,"
                + "\"constructors\":["
                + "{\"params\":[],\"signature\":\"new org.droidstar.harness.draft.DraftTest.Gadget()\"},"
                + "{\"params\":[\"java.lang.String\",\"int\"],\"signature\":\"new org.droidstar.harness.draft.DraftTest.Gadget(String, int)\"}],"
                + "\"factories\":[{\"name\":\"open\",\"params\":[\"java.lang.String\"],\"returns\":\"" + gadget + "\","
                + "\"signature\":\"static org.droidstar.harness.draft.DraftTest.Gadget open(String)\"}],"
                + "\"methods\":["
                + "{\"name\":\"names\",\"params\":[\"" + gadget + "\"],\"returns\":\"java.lang.String[]\","
                + "\"signature\":\"String[] names(org.droidstar.harness.draft.DraftTest.Gadget)\"},"
                + "{\"name\":\"schedule\",\"params\":[\"java.util.TimerTask\",\"long\"],\"returns\":\"void\",\"signature\":\"void schedule(java.util.TimerTask, long)\"},"
                + "{\"name\":\"turn\",\"params\":[\"int\"],\"returns\":\"void\",\"signature\":\"void turn(int)\"},"
                + "{\"name\":\"turn\",\"params\":[\"double\",\"boolean\"],\"returns\":\"void\",\"signature\":\"void turn(double, boolean)\"}],"
                + "\"listeners\":["
                + "{\"type\":\"java.util.TimerTask\",\"register\":null,\"shim\":true,\"kind\":\"abstract\","
                + "\"callbacks\":[{\"name\":\"run\",\"signature\":\"void run()\"}],"
                + "\"callins\":[{\"name\":\"cancel\",\"params\":[],\"returns\":\"boolean\",\"signature\":\"boolean cancel()\"},"
                + "{\"name\":\"scheduledExecutionTime\",\"params\":[],\"returns\":\"long\",\"signature\":\"long scheduledExecutionTime()\"}]},"
                + "{\"type\":\"" + gadget + "$ChangeListener\",\"register\":\"setOnChangeListener\",\"shim\":false,\"kind\":\"interface\","
                + "\"callbacks\":[{\"name\":\"onChange\",\"signature\":\"void onChange(int)\",\"params\":[\"int\"]}],\"callins\":[]},"
                // addWatcher, first by name, registers it (add* does, as register* does)
                + "{\"type\":\"" + gadget + "$Watcher\",\"register\":\"addWatcher\",\"shim\":false,\"kind\":\"interface\","
                + "\"callbacks\":[{\"name\":\"gone\",\"signature\":\"void gone()\",\"params\":[]},"
                + "{\"name\":\"seen\",\"signature\":\"void seen(String)\",\"params\":[\"java.lang.String\"]}],"
                + "\"callins\":[]}],\"interfaces\":[],"
                + "\"types\":{\"java.util.TimerTask\":{\"kind\":\"abstract\",\"throwable\":false,\"constants\":[],\"constructors\":[],"
                + "\"factories\":[],\"methods\":[\"cancel\",\"run\",\"scheduledExecutionTime\"]},"
                + "\"" + gadget + "\":{\"kind\":\"class\",\"throwable\":false,\"constants\":[],"
                + "\"constructors\":[{\"params\":[]},{\"params\":[\"java.lang.String\",\"int\"]}],"
                + "\"factories\":[{\"name\":\"open\",\"params\":[\"java.lang.String\"]}],"
                + "\"methods\":[\"addWatcher\",\"names\",\"registerWatcher\",\"schedule\",\"setOnChangeListener\",\"turn\"]},"
                + "\"" + gadget + "$ChangeListener\":{\"kind\":\"interface\",\"throwable\":false,\"constants\":[],\"constructors\":[],"
                + "\"factories\":[],\"methods\":[\"ignored\",\"onChange\"]},"
                + "\"" + gadget + "$Watcher\":{\"kind\":\"interface\",\"throwable\":false,\"constants\":[],\"constructors\":[],"
                + "\"factories\":[],\"methods\":[\"gone\",\"seen\"]}}}";
        assertEquals(want, Json.write(Reflector.describe(Gadget.class)));
    }

    /** A door whose callback is an abstract class and whose other methods take things literals make. */
    public static class Door {
        public abstract static class Callback {
            public abstract void onOpened(Door d);

            public void onClosed() {
            }

            public final void onFinal() {
            }

            public void helper() {
            }
        }

        public static final Door MAIN = new Door();

        public void openDoor(String name, Callback cb) {
        }

        public void addAll(java.util.Collection<String> names) {
        }

        public void pause(java.util.concurrent.TimeUnit unit, Throwable why) {
        }
    }

    /**
     * open* with an abstract callback class among its arguments declares
     * it as a listener (for a generated shim) and keeps the method a
     * callin; add* of a Collection, whose size() answers, is no
     * registration; the types say what literals could make.
     */
    @Test
    public void abstractCallbackClassesAndTypes() {
        Map<String, Object> d = Reflector.describe(Door.class);
        String cb = "org.droidstar.harness.draft.DraftTest$Door$Callback";
        assertEquals("[{\"type\":\"" + cb + "\",\"register\":null,\"shim\":false,\"kind\":\"abstract\","
                + "\"callbacks\":[{\"name\":\"onClosed\",\"signature\":\"void onClosed()\",\"params\":[]},"
                + "{\"name\":\"onOpened\",\"signature\":\"void onOpened(org.droidstar.harness.draft.DraftTest.Door)\","
                + "\"params\":[\"org.droidstar.harness.draft.DraftTest$Door\"]}],\"callins\":[]}]", Json.write(d.get("listeners")));
        List<String> methods = new ArrayList<String>();
        for (Object m : (List<?>) d.get("methods")) {
            methods.add((String) ((Map<?, ?>) m).get("name"));
        }
        assertEquals("[addAll, openDoor, pause]", methods.toString());
        Map<?, ?> types = (Map<?, ?>) d.get("types");
        Map<?, ?> unit = (Map<?, ?>) types.get("java.util.concurrent.TimeUnit");
        assertEquals("enum", unit.get("kind"));
        assertEquals("[NANOSECONDS, MICROSECONDS, MILLISECONDS, SECONDS, MINUTES, HOURS, DAYS]", unit.get("constants").toString());
        Map<?, ?> why = (Map<?, ?>) types.get("java.lang.Throwable");
        assertEquals(Boolean.TRUE, why.get("throwable"));
        assertEquals("[{params=[]}, {params=[java.lang.String]}, {params=[java.lang.Throwable]}, {params=[java.lang.String, java.lang.Throwable]}]",
                why.get("constructors").toString());
        // the class's own static final field of its type is a constant
        assertEquals("[MAIN]", ((Map<?, ?>) types.get("org.droidstar.harness.draft.DraftTest$Door")).get("constants").toString());
        assertTrue(!Reflector.callbackType(java.util.Collection.class));
        assertTrue(Reflector.callbackType(Door.Callback.class));
        assertTrue(!Reflector.callbackType(String.class));
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
