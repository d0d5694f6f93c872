package org.droidstar.harness.core;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * The purpose's jars, jar_sha256 and adapters, resolved first: the jars
 * may hold the classes of everything else, and the adapters' shims stand
 * in for the target and listener classes.
 */
final class AdapterSection {
    private AdapterSection() {
    }

    /**
     * Loads the jars into one class loader under the harness's, then lets
     * each adapter register its shims.
     */
    static void read(Configuration c, List<?> jars, List<?> jarSums, List<?> adapters) throws ProtocolError {
        int njars = jars == null ? 0 : jars.size();
        if (jarSums != null && jarSums.size() != njars) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, "jars", "\"jar_sha256\" has " + jarSums.size()
                    + " digests for " + njars + " jars");
        }
        if (jars != null && !jars.isEmpty()) {
            List<File> files = new ArrayList<File>();
            for (int i = 0; i < jars.size(); i++) {
                String w = "jars[" + i + "]";
                Object j = jars.get(i);
                if (!(j instanceof String) || ((String) j).isEmpty()) {
                    throw new ProtocolError(ProtocolError.BAD_REQUEST, w, "a jar is a path, not "
                            + (j instanceof String ? "an empty string" : Json.typeName(j)));
                }
                String sum = null;
                if (jarSums != null) {
                    Object s = jarSums.get(i);
                    if (!(s instanceof String) || !isSha256((String) s)) {
                        throw new ProtocolError(ProtocolError.BAD_REQUEST, w, "jar_sha256[" + i
                                + "] must be a SHA-256 in 64 lowercase hex digits, not "
                                + (s instanceof String ? Json.write(s) : Json.typeName(s)));
                    }
                    sum = (String) s;
                }
                File f = new File((String) j);
                if (!f.isAbsolute()) {
                    f = new File(c.platform.workspace().code(), (String) j);
                }
                if (!f.isFile()) {
                    throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, w, "the jar " + j + " does not exist");
                }
                if (sum != null) {
                    String have = sha256(f, w);
                    if (!have.equals(sum)) {
                        throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, w, "the jar " + j
                                + " is not the one the host staged: its SHA-256 is " + have + ", the host's " + sum);
                    }
                }
                files.add(f);
            }
            try {
                c.loader = Jars.load(c.platform, files, c.loader);
            } catch (Exception e) {
                throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, "jars", "cannot load the jars: " + e);
            }
        }
        if (adapters == null) {
            return;
        }
        for (int i = 0; i < adapters.size(); i++) {
            String w = "adapters[" + i + "]";
            Object a = adapters.get(i);
            if (!(a instanceof String)) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, w, "an adapter is a class name, not " + Json.typeName(a));
            }
            Class<?> k = c.loadClass((String) a, w);
            if (!Adapter.class.isAssignableFrom(k)) {
                throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, w,
                        k.getName() + " does not implement " + Adapter.class.getName());
            }
            Adapter adapter;
            try {
                adapter = (Adapter) k.getConstructor().newInstance();
            } catch (Exception e) {
                throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, w,
                        "cannot make an instance of " + k.getName() + " with its public no-argument constructor: " + e);
            } catch (LinkageError e) {
                throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, w, "cannot initialise " + k.getName() + ": " + e);
            }
            try {
                adapter.register(c.registry, c.platform);
            } catch (RuntimeException e) {
                throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, w, k.getName() + ".register failed: " + e);
            } catch (LinkageError e) {
                throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, w, k.getName() + ".register failed: " + e);
            }
        }
    }

    private static boolean isSha256(String s) {
        if (s.length() != 64) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    /** The SHA-256 of a staged jar in lowercase hex, read before it is loaded. */
    private static String sha256(File f, String where) throws ProtocolError {
        InputStream in = null;
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            in = new FileInputStream(f);
            byte[] buf = new byte[8192];
            for (int n; (n = in.read(buf)) > 0; ) {
                md.update(buf, 0, n);
            }
            StringBuilder b = new StringBuilder();
            for (byte x : md.digest()) {
                b.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
            }
            return b.toString();
        } catch (IOException e) {
            throw new ProtocolError(ProtocolError.UNKNOWN_CLASS, where, "cannot read the jar " + f + ": " + e);
        } catch (NoSuchAlgorithmException e) {
            throw new ProtocolError(ProtocolError.INTERNAL, where, "no SHA-256: " + e);
        } finally {
            if (in != null) {
                try {
                    in.close();
                } catch (IOException e) {
                    // read already; nothing to lose
                }
            }
        }
    }
}
