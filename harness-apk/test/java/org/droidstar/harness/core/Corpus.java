package org.droidstar.harness.core;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The protocol corpus (testdata/protocol/README.md): sessions of request
 * lines and the reply lines a fresh harness must answer, read by these
 * tests and by the Go simulated harness's tests alike.
 */
final class Corpus {
    private Corpus() {
    }

    /** One request and the reply it must get (null: the harness ended the session before it). */
    static final class Exchange {
        final String request;
        String reply;

        Exchange(String request) {
            this.request = request;
        }
    }

    /** One session file. */
    static final class Session {
        final String name;
        final List<Exchange> exchanges = new ArrayList<Exchange>();
        /** The only implementation that runs it ("java" or "sim"), or null for both. */
        String only;
        /** The last request has no line break after it. */
        boolean unterminated;
        /** The main-thread timeout of the session (@main-thread-timeout), or 0: the harness's own. */
        long mainThreadTimeoutMs;

        Session(String name) {
            this.name = name;
        }

        /** The requests as the harness reads them. */
        String input() {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < exchanges.size(); i++) {
                sb.append(exchanges.get(i).request);
                if (i < exchanges.size() - 1 || !unterminated) {
                    sb.append('\n');
                }
            }
            return sb.toString();
        }

        /** The replies the harness must write, in order. */
        List<String> replies() {
            List<String> out = new ArrayList<String>();
            for (Exchange e : exchanges) {
                if (e.reply != null) {
                    out.add(e.reply);
                }
            }
            return out;
        }
    }

    /** The corpus folder, which make junit passes as -Ddroidstar.test.corpus. */
    static File dir() {
        String d = System.getProperty("droidstar.test.corpus");
        if (d == null) {
            throw new IllegalStateException("run the tests with -Ddroidstar.test.corpus=DIR (make junit does)");
        }
        return new File(d);
    }

    /** Every session of the corpus, by file name. */
    static List<Session> load() throws IOException {
        File[] files = dir().listFiles();
        if (files == null) {
            throw new IOException("cannot list " + dir());
        }
        List<String> names = new ArrayList<String>();
        for (File f : files) {
            if (f.getName().endsWith(".session")) {
                names.add(f.getName());
            }
        }
        Collections.sort(names);
        List<Session> out = new ArrayList<Session>();
        for (String n : names) {
            out.add(read(new File(dir(), n)));
        }
        return out;
    }

    static Session read(File f) throws IOException {
        Session s = new Session(f.getName());
        List<String> lines = Files.readAllLines(f.toPath(), EnvAction.UTF8);
        boolean ended = false;
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            String at = f.getName() + ":" + (i + 1) + ": ";
            if (l.trim().isEmpty() || l.startsWith("#")) {
                continue;
            }
            if (l.startsWith("@only ")) {
                s.only = l.substring("@only ".length()).split(":", 2)[0].trim();
            } else if (l.equals("@unterminated")) {
                s.unterminated = true;
            } else if (l.startsWith("@main-thread-timeout ")) {
                s.mainThreadTimeoutMs = Long.parseLong(l.substring("@main-thread-timeout ".length()).trim());
            } else if (l.equals(">") || l.startsWith("> ")) {
                // a request after one that got no reply: the harness ended the session there
                ended |= !s.exchanges.isEmpty() && s.exchanges.get(s.exchanges.size() - 1).reply == null;
                s.exchanges.add(new Exchange(l.length() > 1 ? l.substring(2) : ""));
            } else if (l.equals("<") || l.startsWith("< ")) {
                Exchange last = s.exchanges.isEmpty() ? null : s.exchanges.get(s.exchanges.size() - 1);
                if (last == null || last.reply != null) {
                    throw new IOException(at + "a reply line must follow a request line");
                }
                if (ended) {
                    throw new IOException(at + "a reply after a request the harness did not answer");
                }
                last.reply = l.length() > 1 ? l.substring(2) : "";
            } else {
                throw new IOException(at + "a line is a comment (#), a directive (@), a request (>) or a reply (<)");
            }
        }
        if (s.exchanges.isEmpty()) {
            throw new IOException(f.getName() + ": no requests");
        }
        return s;
    }

    /** The wildcard for any value, and for a duration written as Json.millis writes one. */
    static final String ANY = "*";
    static final String MILLIS = "*ms";

    /**
     * Why actual does not match expected, or null when it does. Without
     * wildcards the lines must be equal byte for byte; with them, equal as
     * JSON values, objects with their keys in the same order.
     */
    static String mismatch(String expected, String actual) throws Json.SyntaxException {
        Object e = Json.parse(expected);
        if (!hasWildcard(e)) {
            return expected.equals(actual) ? null : "the lines differ";
        }
        return mismatch("", e, Json.parse(actual));
    }

    private static boolean hasWildcard(Object v) {
        if (ANY.equals(v) || MILLIS.equals(v)) {
            return true;
        }
        if (v instanceof Map) {
            for (Object o : ((Map<?, ?>) v).values()) {
                if (hasWildcard(o)) {
                    return true;
                }
            }
        }
        if (v instanceof List) {
            for (Object o : (List<?>) v) {
                if (hasWildcard(o)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String mismatch(String path, Object e, Object a) {
        String at = path.isEmpty() ? "the reply" : path;
        if (ANY.equals(e)) {
            return null;
        }
        if (MILLIS.equals(e)) {
            return a instanceof Double && ((Double) a).doubleValue() >= 0 ? null
                    : at + ": want a duration in milliseconds written with a fraction, got " + Json.write(a);
        }
        if (e instanceof Map) {
            if (!(a instanceof Map)) {
                return at + ": want an object, got " + Json.write(a);
            }
            Map<?, ?> em = (Map<?, ?>) e;
            Map<?, ?> am = (Map<?, ?>) a;
            if (!new ArrayList<Object>(em.keySet()).equals(new ArrayList<Object>(am.keySet()))) {
                return at + ": want the keys " + em.keySet() + ", got " + am.keySet();
            }
            for (Object k : em.keySet()) {
                String m = mismatch(path.isEmpty() ? (String) k : path + "." + k, em.get(k), am.get(k));
                if (m != null) {
                    return m;
                }
            }
            return null;
        }
        if (e instanceof List) {
            if (!(a instanceof List) || ((List<?>) a).size() != ((List<?>) e).size()) {
                return at + ": want " + Json.write(e) + ", got " + Json.write(a);
            }
            Iterator<?> ai = ((List<?>) a).iterator();
            int i = 0;
            for (Object eo : (List<?>) e) {
                String m = mismatch(path + "[" + i++ + "]", eo, ai.next());
                if (m != null) {
                    return m;
                }
            }
            return null;
        }
        boolean same = e == null ? a == null : e.equals(a);
        return same ? null : at + ": want " + Json.write(e) + ", got " + Json.write(a);
    }

    private static final Pattern CODE_ROW = Pattern.compile("^\\| `([a-z-]+)` \\|");
    private static final Pattern OP_HEADING = Pattern.compile("^### `([a-z]+)`(?: and `([a-z]+)`)?");

    /** The error codes of PROTOCOL.md's table of codes (the one headed "| code | meaning |"), in order. */
    static Set<String> protocolCodes() throws IOException {
        Set<String> out = new LinkedHashSet<String>();
        boolean inTable = false;
        for (String l : protocolLines()) {
            if (l.equals("| code | meaning |")) {
                inTable = true;
            } else if (inTable && !l.startsWith("|")) {
                break;
            }
            Matcher m = CODE_ROW.matcher(l);
            if (inTable && m.find()) {
                out.add(m.group(1));
            }
        }
        return out;
    }

    /** The ops of PROTOCOL.md's headings, in order. */
    static Set<String> protocolOps() throws IOException {
        Set<String> out = new LinkedHashSet<String>();
        for (String l : protocolLines()) {
            Matcher m = OP_HEADING.matcher(l);
            if (m.find()) {
                out.addAll(Arrays.asList(m.group(1)));
                if (m.group(2) != null) {
                    out.add(m.group(2));
                }
            }
        }
        return out;
    }

    private static List<String> protocolLines() throws IOException {
        // testdata/protocol sits two folders below PROTOCOL.md
        File doc = new File(dir().getAbsoluteFile().getParentFile().getParentFile(), "PROTOCOL.md");
        return Files.readAllLines(doc.toPath(), EnvAction.UTF8);
    }
}
