package org.droidstar.harness.resolve;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.droidstar.harness.core.Configuration;
import org.droidstar.harness.core.Json;
import org.droidstar.harness.core.ProtocolError;

/**
 * Resolves device purposes on the host JVM, against android.jar's stubs
 * and the JVM class files of the purposes' jars, with the harness core's
 * own resolution (Configuration.resolve): a misspelt method, a wrong
 * argument type or an unknown listener fails here with the error a device
 * would give at configure, and no framework code runs (android.jar's
 * method bodies only throw).
 *
 * <pre>java -cp RESOLVER-CLASSES:android.jar org.droidstar.harness.resolve.Main</pre>
 *
 * Each line of standard input is one request,
 * {"purpose": PURPOSE, "classpath": [PATH, ...]}, where PURPOSE is the
 * purpose object of a configure request (PROTOCOL.md) and the class path
 * holds what its jars were dexed from. Each gets one line on standard
 * output: {"ok": true, "shims": [...]}, or {"ok": false, "error": {"code",
 * "where", "message"}} as a configure reply would carry it.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 0) {
            System.err.println("usage: java -cp RESOLVER-CLASSES:android.jar org.droidstar.harness.resolve.Main <REQUESTS");
            System.exit(2);
        }
        // Standard output carries the answers only: whatever an adapter
        // prints goes to standard error.
        Writer out = new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8);
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.trim().isEmpty()) {
                continue;
            }
            out.write(Json.write(answer(line)));
            out.write('\n');
            out.flush();
        }
    }

    static Map<String, Object> answer(String line) {
        Map<String, Object> reply = new LinkedHashMap<String, Object>();
        File dir = null;
        try {
            Object req = Json.parse(line);
            if (!(req instanceof Map)) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, null, "a request is an object, not " + Json.typeName(req));
            }
            Map<?, ?> m = (Map<?, ?>) req;
            dir = Files.createTempDirectory("droidstar-resolve").toFile();
            Object purpose = m.get("purpose");
            stageJars(purpose, dir);
            ResolvePlatform platform = new ResolvePlatform(dir, urls(m.get("classpath")));
            try {
                Configuration c = Configuration.resolve(purpose, platform, android.content.Context.class);
                reply.put("ok", Boolean.TRUE);
                reply.put("shims", new ArrayList<Object>(c.shims()));
            } finally {
                platform.close();
            }
        } catch (ProtocolError e) {
            reply.put("ok", Boolean.FALSE);
            reply.put("error", error(e.code(), e.where(), e.getMessage()));
        } catch (Json.SyntaxException e) {
            reply.put("ok", Boolean.FALSE);
            reply.put("error", error(ProtocolError.PROTOCOL, null, "the request is not JSON: " + e.getMessage()));
        } catch (Exception e) {
            reply.put("ok", Boolean.FALSE);
            reply.put("error", error(ProtocolError.INTERNAL, null, "resolving failed: " + e));
        } catch (LinkageError e) {
            reply.put("ok", Boolean.FALSE);
            reply.put("error", error(ProtocolError.INTERNAL, null, "resolving failed: " + e));
        } finally {
            delete(dir);
        }
        return reply;
    }

    private static Map<String, Object> error(String code, String where, String message) {
        Map<String, Object> e = new LinkedHashMap<String, Object>();
        e.put("code", code);
        if (where != null) {
            e.put("where", where);
        }
        e.put("message", message);
        return e;
    }

    /**
     * An empty file for each of the purpose's jars, where the host stages
     * them on a device, so that configure finds them as it would there;
     * their content is the request's class path. Names that are not plain
     * relative paths are left for configure to refuse.
     */
    private static void stageJars(Object purpose, File dir) throws IOException {
        if (!(purpose instanceof Map) || !(((Map<?, ?>) purpose).get("jars") instanceof List)) {
            return;
        }
        for (Object j : (List<?>) ((Map<?, ?>) purpose).get("jars")) {
            if (!(j instanceof String) || ((String) j).isEmpty() || ((String) j).startsWith("/")
                    || ("/" + j + "/").contains("/../")) {
                continue;
            }
            File f = new File(dir, (String) j);
            if (!f.getParentFile().isDirectory() && !f.getParentFile().mkdirs()) {
                throw new IOException("cannot create " + f.getParentFile());
            }
            if (!f.isFile() && !f.createNewFile()) {
                throw new IOException("cannot create " + f);
            }
        }
    }

    private static URL[] urls(Object classpath) throws ProtocolError, IOException {
        List<URL> out = new ArrayList<URL>();
        if (classpath == null) {
            return new URL[0];
        }
        if (!(classpath instanceof List)) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, null, "classpath is an array of paths, not " + Json.typeName(classpath));
        }
        for (Object p : (List<?>) classpath) {
            if (!(p instanceof String)) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, null, "a class path entry is a path, not " + Json.typeName(p));
            }
            File f = new File((String) p);
            if (!f.exists()) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, null, "the class path entry " + p + " does not exist");
            }
            out.add(f.getAbsoluteFile().toURI().toURL());
        }
        return out.toArray(new URL[0]);
    }

    private static void delete(File f) {
        if (f == null) {
            return;
        }
        File[] children = f.listFiles();
        if (children != null) {
            for (File c : children) {
                delete(c);
            }
        }
        f.delete();
    }
}
