package org.droidstar.harness.shimgen;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.droidstar.harness.core.ClassNames;
import org.droidstar.harness.core.Json;
import org.droidstar.harness.core.ShimRegistry;
import org.droidstar.harness.jvm.JvmPlatform;

/**
 * Generates shims for a purpose's abstract listener classes (see
 * Generator), compiles them with the JDK's compiler, and writes them and
 * an adapter that registers them into a jar, on the host, for droidstar's
 * jvm and adb backends (internal/shimgen):
 *
 * <pre>java -cp droidstar-harness.jar org.droidstar.harness.shimgen.Main --platform jvm|android
 *     --out JAR [--classpath PATH]... [--bootclasspath ANDROID_JAR] [--callback METHOD]...
 *     --listener INDEX=TYPE...</pre>
 *
 * Each listener is the purpose's target.listeners[INDEX].type; callbacks
 * are the method names the purpose's callbacks name. Interfaces (a proxy
 * stands for them) and classes the platform has a built-in shim for are
 * skipped. The answer, one line of JSON on standard output, is
 * {"ok": true, "adapter": CLASS or null, "shims": [{"index", "type",
 * "shim", "methods"}], "skipped": [{"index", "type", "why"}]}, with the
 * jar written when adapter is not null; or {"ok": false, "errors":
 * [{"where", "code", "message"}]}, where is the purpose field at fault
 * (or "" for the host), code one of unknown-listener, no-compiler,
 * compile. For android, a listener type the class path does not hold is
 * skipped, not refused: it may come from a purpose's dex jar, which only the
 * device reads.
 */
public final class Main {
    /** The adapter's simple name in every generated jar. */
    static final String ADAPTER = "ShimAdapter";

    /**
     * The Android platform's built-in shims (AndroidPlatform.registerBuiltIns),
     * which are not in this jar: ShimgenTest checks the list against that
     * source.
     */
    static final Set<String> ANDROID_BUILT_INS = new TreeSet<String>(Arrays.asList(
            "android.os.AsyncTask", "android.os.CountDownTimer", "android.os.FileObserver",
            "android.database.sqlite.SQLiteOpenHelper", "android.media.MediaCodec$Callback",
            "android.content.BroadcastReceiver"));

    private Main() {
    }

    private static final String USAGE = "usage: java -cp droidstar-harness.jar org.droidstar.harness.shimgen.Main"
            + " --platform jvm|android --out JAR [--classpath PATH]... [--bootclasspath ANDROID_JAR]"
            + " [--callback METHOD]... --listener INDEX=TYPE...";

    public static void main(String[] args) throws IOException {
        Request r = new Request();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            if (v == null) {
                usage();
            }
            i++;
            if (a.equals("--platform")) {
                r.platform = v;
            } else if (a.equals("--out")) {
                r.out = new File(v);
            } else if (a.equals("--classpath")) {
                r.classpath.add(new File(v));
            } else if (a.equals("--bootclasspath")) {
                r.bootclasspath = new File(v);
            } else if (a.equals("--callback")) {
                r.callbacks.add(v);
            } else if (a.equals("--listener") && v.indexOf('=') > 0) {
                r.listeners.put(Integer.valueOf(v.substring(0, v.indexOf('='))), v.substring(v.indexOf('=') + 1));
            } else {
                usage();
            }
        }
        if (r.out == null || !(r.platform.equals("jvm") || r.platform.equals("android"))) {
            usage();
        }
        Writer out = new OutputStreamWriter(System.out, StandardCharsets.UTF_8);
        out.write(Json.write(run(r)));
        out.write('\n');
        out.flush();
    }

    private static void usage() {
        System.err.println(USAGE);
        System.exit(2);
    }

    /** What to generate. */
    static final class Request {
        String platform = "jvm";
        File out;
        List<File> classpath = new ArrayList<File>();
        File bootclasspath;
        Set<String> callbacks = new LinkedHashSet<String>();
        /** INDEX in target.listeners to the type it names, in order. */
        Map<Integer, String> listeners = new LinkedHashMap<Integer, String>();
    }

    /** Generates, compiles and writes the shims of r; the answer as a JSON tree. */
    static Map<String, Object> run(Request r) throws IOException {
        return run(r, ToolProvider.getSystemJavaCompiler());
    }

    /** As run, with javac the compiler (null: there is none, as on a JRE). */
    static Map<String, Object> run(Request r, JavaCompiler javac) throws IOException {
        List<File> path = new ArrayList<File>(r.classpath);
        if (r.bootclasspath != null) {
            path.add(r.bootclasspath);
        }
        URL[] urls = new URL[path.size()];
        for (int i = 0; i < urls.length; i++) {
            urls[i] = path.get(i).getAbsoluteFile().toURI().toURL();
        }
        URLClassLoader loader = new URLClassLoader(urls, Main.class.getClassLoader());
        try {
            Set<String> builtIns = builtIns(r.platform);
            List<Object> errors = new ArrayList<Object>();
            List<Object> skipped = new ArrayList<Object>();
            List<Object> made = new ArrayList<Object>();
            Map<Class<?>, Generator.Shim> shims = new LinkedHashMap<Class<?>, Generator.Shim>();
            Map<Class<?>, String> firstWhere = new LinkedHashMap<Class<?>, String>();
            for (Map.Entry<Integer, String> l : r.listeners.entrySet()) {
                String where = "target.listeners[" + l.getKey() + "].type";
                Class<?> type = load(l.getValue(), loader);
                if (type == null && r.platform.equals("android")) {
                    // a class of a dex jar, which the host cannot read: the
                    // device resolves it (an interface, or a shim of an adapter)
                    Map<String, Object> s = new LinkedHashMap<String, Object>();
                    s.put("index", Long.valueOf(l.getKey()));
                    s.put("type", l.getValue());
                    s.put("why", "not on the host's class path");
                    skipped.add(s);
                    continue;
                }
                if (type == null) {
                    errors.add(error(where, "unknown-listener", "no class " + l.getValue() + " on the class path"));
                    continue;
                }
                String why = type.isInterface() ? "interface" : builtIns.contains(type.getName()) ? "built-in shim" : null;
                if (why == null && shims.containsKey(type)) {
                    why = "generated for " + firstWhere.get(type);
                }
                if (why != null) {
                    Map<String, Object> s = new LinkedHashMap<String, Object>();
                    s.put("index", Long.valueOf(l.getKey()));
                    s.put("type", type.getName());
                    s.put("why", why);
                    skipped.add(s);
                    continue;
                }
                try {
                    Generator.Shim shim = Generator.generate(type, r.callbacks);
                    shims.put(type, shim);
                    firstWhere.put(type, where);
                    Map<String, Object> s = new LinkedHashMap<String, Object>();
                    s.put("index", Long.valueOf(l.getKey()));
                    s.put("type", type.getName());
                    s.put("shim", shim.className());
                    List<Object> names = new ArrayList<Object>();
                    for (java.lang.reflect.Method m : Generator.overridden(type, r.callbacks)) {
                        names.add(m.getName());
                    }
                    s.put("methods", names);
                    made.add(s);
                } catch (Generator.Refusal e) {
                    errors.add(error(where, "unknown-listener", e.getMessage()));
                } catch (LinkageError e) {
                    errors.add(error(where, "unknown-listener", "cannot read the methods of " + type.getName() + ": " + e
                            + " (a class its API uses is missing from the class path)"));
                }
            }
            Map<String, Object> reply = new LinkedHashMap<String, Object>();
            if (errors.isEmpty() && !shims.isEmpty()) {
                Map<String, Object> e = compile(r, javac, shims, firstWhere.values().iterator().next());
                if (e != null) {
                    errors.add(e);
                }
            }
            if (!errors.isEmpty()) {
                reply.put("ok", Boolean.FALSE);
                reply.put("errors", errors);
                return reply;
            }
            reply.put("ok", Boolean.TRUE);
            reply.put("adapter", shims.isEmpty() ? null : Generator.PACKAGE + "." + ADAPTER);
            reply.put("shims", made);
            reply.put("skipped", skipped);
            return reply;
        } finally {
            loader.close();
        }
    }

    /** The types the platform's own shims stand in for. */
    static Set<String> builtIns(String platform) {
        if (platform.equals("android")) {
            return ANDROID_BUILT_INS;
        }
        ShimRegistry registry = new ShimRegistry();
        new JvmPlatform(null).registerShims(registry);
        Set<String> out = new TreeSet<String>();
        for (String k : registry.classes()) {
            out.add(k);
        }
        return out;
    }

    /**
     * Compiles the shims and their adapter into r.out; an error (where: the
     * first listener that needed a shim) when there is no compiler or it
     * refuses the source.
     */
    private static Map<String, Object> compile(Request r, JavaCompiler javac, Map<Class<?>, Generator.Shim> shims,
            String where) throws IOException {
        if (javac == null) {
            return error(where, "no-compiler", shims.keySet().iterator().next().getName()
                    + " is an abstract class, and droidstar generates a shim for it with the JDK's compiler, which"
                    + " this java (" + System.getProperty("java.home") + ", a JRE) does not have: install a JDK"
                    + " (on Debian or Ubuntu: apt-get install default-jdk-headless) and point JAVA_HOME or"
                    + " backend.jvm.java at it");
        }
        File dir = Files.createTempDirectory("droidstar-shimgen-").toFile();
        try {
            File src = new File(dir, "src/" + Generator.PACKAGE.replace('.', '/'));
            File classes = new File(dir, "classes");
            if (!src.mkdirs() || !classes.mkdirs()) {
                throw new IOException("cannot make folders under " + dir);
            }
            List<File> sources = new ArrayList<File>();
            for (Generator.Shim s : shims.values()) {
                sources.add(write(new File(src, s.simpleName + ".java"), s.source));
            }
            sources.add(write(new File(src, ADAPTER + ".java"), Generator.adapter(ADAPTER, shims)));
            List<String> options = new ArrayList<String>();
            options.add("-encoding");
            options.add("UTF-8");
            options.add("-nowarn");
            options.add("-proc:none");
            options.add("-implicit:none");
            options.add("-g:source,lines");
            if (r.bootclasspath != null) {
                // Android: class files dx and d8 read (Java 8), against android.jar
                options.add("-source");
                options.add("8");
                options.add("-target");
                options.add("8");
                options.add("-Xlint:-options");
                options.add("-bootclasspath");
                options.add(r.bootclasspath.getPath());
            }
            StringBuilder cp = new StringBuilder(harnessJar());
            for (File f : r.classpath) {
                cp.append(File.pathSeparatorChar).append(f.getPath());
            }
            options.add("-classpath");
            options.add(cp.toString());
            options.add("-d");
            options.add(classes.getPath());
            DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<JavaFileObject>();
            StandardJavaFileManager fm = javac.getStandardFileManager(diags, Locale.ROOT, StandardCharsets.UTF_8);
            try {
                boolean ok = javac.getTask(null, fm, diags, options, null, fm.getJavaFileObjectsFromFiles(sources)).call();
                if (!ok) {
                    StringBuilder b = new StringBuilder();
                    for (Diagnostic<? extends JavaFileObject> d : diags.getDiagnostics()) {
                        if (d.getKind() == Diagnostic.Kind.ERROR) {
                            b.append(b.length() == 0 ? "" : "; ").append(d.getSource() == null ? ""
                                    : new File(d.getSource().getName()).getName() + ":" + d.getLineNumber() + ": ")
                                    .append(d.getMessage(Locale.ROOT));
                        }
                    }
                    return error(where, "compile", "the generated shim does not compile (a droidstar bug; please"
                            + " report it with the class): " + b);
                }
            } finally {
                fm.close();
            }
            writeJar(classes, r.out);
            return null;
        } finally {
            delete(dir);
        }
    }

    /** The jar (or class folder) this class came from: the generated code compiles against its core. */
    private static String harnessJar() throws IOException {
        try {
            return new File(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getPath();
        } catch (URISyntaxException e) {
            throw new IOException("where is the harness jar: " + e, e);
        }
    }

    private static File write(File f, String text) throws IOException {
        Files.write(f.toPath(), text.getBytes(StandardCharsets.UTF_8));
        return f;
    }

    /** The class files under dir into jar, sorted and stamped alike, so the same shims make the same jar. */
    private static void writeJar(File dir, File jar) throws IOException {
        List<String> names = new ArrayList<String>();
        list(dir, "", names);
        java.util.Collections.sort(names);
        File tmp = new File(jar.getPath() + ".tmp");
        OutputStream fo = new FileOutputStream(tmp);
        try {
            JarOutputStream jo = new JarOutputStream(fo);
            for (String n : names) {
                JarEntry e = new JarEntry(n);
                e.setTime(315532800000L + 2000L); // 1980-01-01 00:00:02 UTC, as the harness jar's
                jo.putNextEntry(e);
                jo.write(Files.readAllBytes(new File(dir, n).toPath()));
                jo.closeEntry();
            }
            jo.close();
        } finally {
            fo.close();
        }
        if (!tmp.renameTo(jar)) {
            throw new IOException("cannot rename " + tmp + " to " + jar);
        }
    }

    private static void list(File dir, String prefix, List<String> out) {
        File[] fs = dir.listFiles();
        if (fs == null) {
            return;
        }
        for (File f : fs) {
            if (f.isDirectory()) {
                list(f, prefix + f.getName() + "/", out);
            } else {
                out.add(prefix + f.getName());
            }
        }
    }

    private static void delete(File f) {
        File[] fs = f.listFiles();
        if (fs != null) {
            for (File c : fs) {
                delete(c);
            }
        }
        if (!f.delete()) {
            f.deleteOnExit();
        }
    }

    private static Map<String, Object> error(String where, String code, String message) {
        Map<String, Object> e = new LinkedHashMap<String, Object>();
        e.put("where", where);
        e.put("code", code);
        e.put("message", message);
        return e;
    }

    /**
     * The class of a binary name or a source name (a.B.C for the nested
     * a.B$C), not initialised; null when there is none.
     */
    static Class<?> load(String name, ClassLoader loader) {
        return ClassNames.load(name, loader, null);
    }
}
