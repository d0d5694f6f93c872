package org.droidstar.harness.draft;

import java.io.File;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import org.droidstar.harness.core.ClassNames;
import org.droidstar.harness.core.Json;

/**
 * Describes one class for `droidstar init` (see Reflector), on standard
 * output as one line of JSON:
 *
 * <pre>java -cp droidstar-harness.jar org.droidstar.harness.draft.Main [--classpath PATH]... CLASS</pre>
 *
 * The answer is {"ok": true, "java": VERSION, "class": DESCRIPTION}, or
 * {"ok": false, "error": {"code", "message", "suggestions"}} with code
 * unknown-class (suggestions: classes of the same or a close simple name
 * on the class path and in the JDK), not-public, or unreadable (a class
 * its API names is missing). The class path entries
 * (jars, folders: android.jar, libraries) are searched after the JDK.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws IOException {
        List<File> classpath = new ArrayList<File>();
        String name = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--classpath") && i + 1 < args.length) {
                classpath.add(new File(args[++i]));
            } else if (name == null && !args[i].startsWith("-")) {
                name = args[i];
            } else {
                System.err.println("usage: java -cp droidstar-harness.jar org.droidstar.harness.draft.Main [--classpath PATH]... CLASS");
                System.exit(2);
            }
        }
        if (name == null) {
            System.err.println("usage: java -cp droidstar-harness.jar org.droidstar.harness.draft.Main [--classpath PATH]... CLASS");
            System.exit(2);
        }
        Writer out = new OutputStreamWriter(System.out, StandardCharsets.UTF_8);
        out.write(Json.write(answer(name, classpath)));
        out.write('\n');
        out.flush();
    }

    static Map<String, Object> answer(String name, List<File> classpath) throws IOException {
        Map<String, Object> reply = new LinkedHashMap<String, Object>();
        URL[] urls = new URL[classpath.size()];
        for (int i = 0; i < urls.length; i++) {
            urls[i] = classpath.get(i).getAbsoluteFile().toURI().toURL();
        }
        URLClassLoader loader = new URLClassLoader(urls, Main.class.getClassLoader());
        try {
            Class<?> cls = load(name, loader);
            if (cls == null) {
                reply.put("ok", Boolean.FALSE);
                reply.put("error", error("unknown-class", "no class " + name + " on the class path",
                        suggestions(name, classpath)));
                return reply;
            }
            if (!Modifier.isPublic(cls.getModifiers())) {
                reply.put("ok", Boolean.FALSE);
                reply.put("error", error("not-public", cls.getName() + " is not public: the harness calls public API only",
                        new ArrayList<String>()));
                return reply;
            }
            Map<String, Object> description;
            try {
                description = Reflector.describe(cls);
            } catch (LinkageError e) {
                // A class its API names is not on the class path.
                reply.put("ok", Boolean.FALSE);
                reply.put("error", error("unreadable", "cannot read the methods of " + cls.getName() + ": " + e
                        + " (a class its API uses is missing: add the jar that holds it with --jar)", new ArrayList<String>()));
                return reply;
            }
            reply.put("ok", Boolean.TRUE);
            reply.put("java", System.getProperty("java.specification.version"));
            reply.put("class", description);
            return reply;
        } finally {
            loader.close();
        }
    }

    /**
     * The class of a binary name or a source name (a.B.C for the nested
     * a.B$C), not initialised; null when there is none.
     */
    static Class<?> load(String name, ClassLoader loader) {
        return ClassNames.load(name, loader, null);
    }

    private static Map<String, Object> error(String code, String message, List<String> suggestions) {
        Map<String, Object> e = new LinkedHashMap<String, Object>();
        e.put("code", code);
        e.put("message", message);
        e.put("suggestions", suggestions);
        return e;
    }

    /**
     * Up to five classes whose simple name is the wanted one's up to case,
     * or else within two edits of it: only those of the nearest distance.
     */
    static List<String> suggestions(String name, List<File> classpath) {
        String want = simpleName(name).toLowerCase();
        TreeSet<String> scored = new TreeSet<String>();
        List<String> all = new ArrayList<String>();
        for (File f : classpath) {
            listJar(f, all);
        }
        listJdk(all);
        for (String c : all) {
            String simple = simpleName(c).toLowerCase();
            int d = simple.equals(want) ? 0 : distance(simple, want, 2);
            if (d <= 2) {
                scored.add(d + " " + c);
            }
        }
        List<String> out = new ArrayList<String>();
        String best = scored.isEmpty() ? "" : scored.first().substring(0, 1);
        for (String s : scored) {
            if (!s.startsWith(best)) {
                break; // only the nearest: a worse match is noise beside them
            }
            String c = s.substring(s.indexOf(' ') + 1);
            if (!c.equals(name) && !out.contains(c)) {
                out.add(c);
            }
            if (out.size() == 5) {
                break;
            }
        }
        return out;
    }

    private static String simpleName(String name) {
        int i = Math.max(name.lastIndexOf('.'), name.lastIndexOf('$'));
        return name.substring(i + 1);
    }

    private static void listJar(File f, List<String> out) {
        if (f.isDirectory()) {
            listFolder(f, "", out);
            return;
        }
        if (!f.isFile()) {
            return;
        }
        try {
            ZipFile z = new ZipFile(f);
            try {
                Enumeration<? extends ZipEntry> es = z.entries();
                while (es.hasMoreElements()) {
                    addClass(es.nextElement().getName(), out);
                }
            } finally {
                z.close();
            }
        } catch (IOException e) {
            // not a jar: no suggestions from it
        }
    }

    private static void listFolder(File dir, String prefix, List<String> out) {
        File[] children = dir.listFiles();
        if (children == null) {
            return;
        }
        for (File c : children) {
            if (c.isDirectory()) {
                listFolder(c, prefix + c.getName() + "/", out);
            } else {
                addClass(prefix + c.getName(), out);
            }
        }
    }

    /** The classes of the JDK's java.* modules (Java 9 and later; nothing on Java 8). */
    private static void listJdk(List<String> out) {
        FileSystem jrt;
        try {
            jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
        } catch (RuntimeException e) {
            return;
        }
        try {
            DirectoryStream<Path> modules = Files.newDirectoryStream(jrt.getPath("/modules"), "java.*");
            try {
                for (Path m : modules) {
                    List<Path> stack = new ArrayList<Path>();
                    stack.add(m);
                    while (!stack.isEmpty()) {
                        Path p = stack.remove(stack.size() - 1);
                        if (Files.isDirectory(p)) {
                            DirectoryStream<Path> ds = Files.newDirectoryStream(p);
                            try {
                                for (Path c : ds) {
                                    stack.add(c);
                                }
                            } finally {
                                ds.close();
                            }
                        } else if (p.toString().startsWith(m + "/java")) {
                            // java.* and javax.*: what a purpose would name
                            addClass(m.relativize(p).toString(), out);
                        }
                    }
                }
            } finally {
                modules.close();
            }
        } catch (IOException e) {
            // no JDK listing: no suggestions from it
        }
    }

    private static void addClass(String entry, List<String> out) {
        if (!entry.endsWith(".class") || entry.endsWith("module-info.class") || entry.endsWith("package-info.class")) {
            return;
        }
        String c = entry.substring(0, entry.length() - ".class".length()).replace('/', '.');
        // anonymous and local classes ($1, $1Local) are no one's API
        int d = c.lastIndexOf('$');
        if (d >= 0 && d + 1 < c.length() && Character.isDigit(c.charAt(d + 1))) {
            return;
        }
        out.add(c);
    }

    /** Levenshtein distance of a and b, or max+1 once it exceeds max. */
    static int distance(String a, String b, int max) {
        if (Math.abs(a.length() - b.length()) > max) {
            return max + 1;
        }
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            int rowMin = cur[0];
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
                rowMin = Math.min(rowMin, cur[j]);
            }
            if (rowMin > max) {
                return max + 1;
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
