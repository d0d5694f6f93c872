package org.droidstar.harness.core;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.Charset;
import java.util.List;
import java.util.Map;

/**
 * An environment action of a purpose (PROTOCOL.md): write, append, delete,
 * touch, sqlite or sleep, on a file relative to the harness's files
 * directory. Checked once when the purpose is configured, run for every
 * query.
 */
public final class EnvAction {
    static final Charset UTF8 = Charset.forName("UTF-8");

    private final String kind;
    private final String file;
    private final String content;
    private final int version;
    private final long ms;

    private EnvAction(String kind, String file, String content, int version, long ms) {
        this.kind = kind;
        this.file = file;
        this.content = content;
        this.version = version;
        this.ms = ms;
    }

    public String kind() {
        return kind;
    }

    /** The action kinds: an action's one key. */
    static final List<String> KINDS = PurposeFields.keys("write", "append", "delete", "touch", "sqlite", "sleep");
    /** The keys of the argument of write and append. */
    static final List<String> WRITE_KEYS = PurposeFields.keys("file", "content");
    /** The keys of the argument of sqlite. */
    static final List<String> SQLITE_KEYS = PurposeFields.keys("file", "version");
    private static final String KIND_NAMES = PurposeFields.names(KINDS);

    /**
     * Reads and checks an action in the purpose file's shape: an object with
     * one key, the kind ({"write":{"file":F,"content":C}}, {"delete":F},
     * {"sqlite":{"file":F,"version":N}}, {"sleep":MS}, ...); where is its path
     * for errors.
     */
    public static EnvAction parse(Object json, String where) throws ProtocolError {
        if (!(json instanceof Map)) {
            throw new ProtocolError(ProtocolError.BAD_ACTION, where,
                    "an environment action is an object with one key (" + KIND_NAMES + "), not " + Json.typeName(json));
        }
        Map<?, ?> m = (Map<?, ?>) json;
        if (m.size() != 1) {
            throw new ProtocolError(ProtocolError.BAD_ACTION, where,
                    "an environment action has exactly one key (" + KIND_NAMES + "), not " + m.size());
        }
        String kind = (String) m.keySet().iterator().next();
        Object v = m.get(kind);
        String w = where + "." + kind;
        if (kind.equals("write") || kind.equals("append")) {
            Map<?, ?> a = argument(v, w, kind, "{\"file\": NAME, \"content\": TEXT}", WRITE_KEYS);
            Object c = a.get("content");
            if (c != null && !(c instanceof String)) {
                throw new ProtocolError(ProtocolError.BAD_ACTION, w + ".content",
                        kind + ": content must be a string, not " + Json.typeName(c));
            }
            return new EnvAction(kind, fileName(a.get("file"), w + ".file", kind), c == null ? "" : (String) c, 0, 0);
        }
        if (kind.equals("delete") || kind.equals("touch")) {
            return new EnvAction(kind, fileName(v, w, kind), null, 0, 0);
        }
        if (kind.equals("sqlite")) {
            Map<?, ?> a = argument(v, w, kind, "{\"file\": NAME, \"version\": N}", SQLITE_KEYS);
            Object ver = a.get("version");
            long version = 0;
            if (ver != null) {
                if (!(ver instanceof Long) || ((Long) ver).longValue() < Integer.MIN_VALUE
                        || ((Long) ver).longValue() > Integer.MAX_VALUE) {
                    throw new ProtocolError(ProtocolError.BAD_ACTION, w + ".version",
                            "sqlite: version must be a 32-bit integer, not " + Json.describe(ver));
                }
                version = ((Long) ver).longValue();
            }
            return new EnvAction(kind, fileName(a.get("file"), w + ".file", kind), null, (int) version, 0);
        }
        if (kind.equals("sleep")) {
            if (!(v instanceof Long) || ((Long) v).longValue() < 0) {
                throw new ProtocolError(ProtocolError.BAD_ACTION, w,
                        "sleep: want a non-negative integer of milliseconds, not " + Json.describe(v));
            }
            return new EnvAction(kind, null, null, 0, ((Long) v).longValue());
        }
        throw new ProtocolError(ProtocolError.BAD_ACTION, where, "unknown environment action \"" + kind
                + "\" (" + KIND_NAMES + ")");
    }

    /** The object argument of write, append and sqlite, with no keys but keys. */
    private static Map<?, ?> argument(Object v, String where, String kind, String shape, List<String> keys)
            throws ProtocolError {
        if (!(v instanceof Map)) {
            throw new ProtocolError(ProtocolError.BAD_ACTION, where,
                    kind + ": want " + shape + ", not " + Json.typeName(v));
        }
        Map<?, ?> m = (Map<?, ?>) v;
        for (Object k : m.keySet()) {
            if (!keys.contains(k)) {
                throw new ProtocolError(ProtocolError.BAD_ACTION, where + "." + k, kind + " takes no \"" + k + "\"");
            }
        }
        return m;
    }

    private static String fileName(Object f, String where, String kind) throws ProtocolError {
        if (!(f instanceof String) || ((String) f).isEmpty()) {
            throw new ProtocolError(ProtocolError.BAD_ACTION, where,
                    kind + " needs a file name, not " + (f instanceof String ? "an empty string" : Json.typeName(f)));
        }
        String name = (String) f;
        checkRelative(name, where);
        return name;
    }

    /** Rejects absolute names and names that climb out of the files directory. */
    static void checkRelative(String name, String where) throws ProtocolError {
        if (name.startsWith("/") || name.startsWith("\\") || name.indexOf('\0') >= 0) {
            throw new ProtocolError(ProtocolError.BAD_ACTION, where,
                    "\"" + name + "\" must be a name relative to the files directory");
        }
        for (String part : name.split("[/\\\\]")) {
            if (part.equals("..")) {
                throw new ProtocolError(ProtocolError.BAD_ACTION, where,
                        "\"" + name + "\" must stay inside the files directory");
            }
        }
    }

    /** Runs the action in filesDir. */
    public void run(File filesDir) throws IOException, InterruptedException {
        if (kind.equals("sleep")) {
            if (ms > 0) {
                Thread.sleep(ms);
            }
            return;
        }
        File f = new File(filesDir, file);
        if (kind.equals("delete")) {
            if (f.exists() && !f.delete()) {
                throw new IOException("cannot delete " + f);
            }
            return;
        }
        File parent = f.getParentFile();
        if (parent != null && !parent.isDirectory() && !parent.mkdirs() && !parent.isDirectory()) {
            throw new IOException("cannot create directory " + parent);
        }
        if (kind.equals("touch")) {
            if (!f.exists() && !f.createNewFile() && !f.exists()) {
                throw new IOException("cannot create " + f);
            }
            return;
        }
        if (kind.equals("sqlite")) {
            writeFile(f, emptySqliteDatabase(version), false);
            return;
        }
        writeFile(f, content.getBytes(UTF8), kind.equals("append"));
    }

    private static void writeFile(File f, byte[] data, boolean append) throws IOException {
        OutputStream out = new FileOutputStream(f, append);
        try {
            out.write(data);
        } finally {
            out.close();
        }
    }

    /** The page size of the databases the sqlite action writes. */
    public static final int SQLITE_PAGE_SIZE = 4096;

    /**
     * An empty SQLite 3 database of one page (https://www.sqlite.org/fileformat.html):
     * the 100-byte database header, then the root page of sqlite_master as an
     * empty table b-tree leaf page. user_version (header offset 60) is
     * version.
     */
    public static byte[] emptySqliteDatabase(int version) {
        byte[] b = new byte[SQLITE_PAGE_SIZE];
        byte[] magic = "SQLite format 3".getBytes(UTF8);
        System.arraycopy(magic, 0, b, 0, magic.length); // b[15] stays 0: the terminating NUL
        put16(b, 16, SQLITE_PAGE_SIZE); // page size
        b[18] = 1; // file format write version: legacy (rollback journal)
        b[19] = 1; // file format read version
        b[20] = 0; // reserved bytes at the end of each page
        b[21] = 64; // maximum embedded payload fraction (must be 64)
        b[22] = 32; // minimum embedded payload fraction (must be 32)
        b[23] = 32; // leaf payload fraction (must be 32)
        put32(b, 24, 1); // file change counter
        put32(b, 28, 1); // database size in pages
        put32(b, 32, 0); // first freelist trunk page
        put32(b, 36, 0); // number of freelist pages
        put32(b, 40, 0); // schema cookie
        put32(b, 44, 4); // schema format number
        put32(b, 48, 0); // default page cache size
        put32(b, 52, 0); // largest root b-tree page (no auto-vacuum)
        put32(b, 56, 1); // text encoding: UTF-8
        put32(b, 60, version); // user_version
        put32(b, 64, 0); // incremental vacuum mode
        put32(b, 68, 0); // application id
        // 72..91: reserved for expansion, zero
        put32(b, 92, 1); // version-valid-for number (= change counter)
        put32(b, 96, 3031001); // SQLITE_VERSION_NUMBER of the writer
        // Page 1's b-tree page header starts after the database header.
        b[100] = 0x0d; // a leaf table b-tree page
        put16(b, 101, 0); // first freeblock: none
        put16(b, 103, 0); // number of cells
        put16(b, 105, SQLITE_PAGE_SIZE); // start of the cell content area
        b[107] = 0; // fragmented free bytes
        return b;
    }

    private static void put16(byte[] b, int off, int v) {
        b[off] = (byte) (v >>> 8);
        b[off + 1] = (byte) v;
    }

    private static void put32(byte[] b, int off, int v) {
        b[off] = (byte) (v >>> 24);
        b[off + 1] = (byte) (v >>> 16);
        b[off + 2] = (byte) (v >>> 8);
        b[off + 3] = (byte) v;
    }
}
