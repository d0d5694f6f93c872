package org.droidstar.harness.core;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The harness's private working folders for one run, filled from the
 * host's staging folder.
 *
 * <p>The host can only push into a folder the adb shell owns
 * ({@code /data/local/tmp}, SELinux type {@code shell_data_file}). An app
 * may read there but not create, append to or unlink files (AOSP
 * system/sepolicy: {@code untrusted_app_all.te} grants reads only, and
 * {@code app_neverallows.te} forbids untrusted apps to create or unlink
 * files outside their own data), and media servers may not read its
 * descriptors at all. So the staging folder is read once, at start, and
 * every {"file"} literal, environment action and class under test works in
 * the app's own files folder instead:
 *
 * <ul>
 * <li>{@code files()} = FILES/droidstar/RUN: the staged files, except
 * {@code jars/};</li>
 * <li>{@code code()} = CODE_CACHE/droidstar/RUN: {@code jars/} and the
 * dex optimiser's output. The jars are made read-only, which Android 14
 * requires of dynamically loaded code for apps targeting it.</li>
 * </ul>
 *
 * Opening removes what earlier runs left in both places (a run cut short
 * never reached its {@link #close}); closing removes this run's folders.
 * Only one run uses the harness at a time: am instrument replaces a
 * running instrumentation.
 */
public final class Workspace {
    /** The folder under FILES and CODE_CACHE that holds the runs. */
    public static final String RUNS = "droidstar";
    /** The staged folder of jars, which goes to the code folder. */
    public static final String JARS = "jars";

    private final File files;
    private final File code;
    private final List<String> removed;
    private final int copied;
    private final File staging;

    private Workspace(File files, File code, File staging, List<String> removed, int copied) {
        this.files = files;
        this.code = code;
        this.staging = staging;
        this.removed = removed;
        this.copied = copied;
    }

    /**
     * A workspace that is the given folder itself, for the host JVM, where
     * the host writes the files where the harness works.
     */
    public static Workspace direct(File dir) {
        return direct(dir, null);
    }

    /**
     * A direct workspace that names a staging folder it was not filled
     * from: what the probe tests report on.
     */
    static Workspace direct(File dir, File staging) {
        return new Workspace(dir, dir, staging, new ArrayList<String>(), 0);
    }

    /**
     * Removes earlier runs' folders, then copies staging into this run's
     * files and code folders.
     *
     * @param staging   the host's folder for this run; null when the host
     *                  staged nothing (the folders start empty)
     * @param filesRoot the app's files folder (Context.getFilesDir())
     * @param codeRoot  the app's code cache (Context.getCodeCacheDir())
     * @param run       the run's id: a plain name
     */
    public static Workspace open(File staging, File filesRoot, File codeRoot, String run) throws IOException {
        if (run == null || run.isEmpty() || run.equals(".") || run.equals("..") || run.indexOf('/') >= 0
                || run.indexOf('\\') >= 0 || run.indexOf('\0') >= 0) {
            throw new IOException("the run id must be a plain folder name, not \"" + run + "\"");
        }
        List<String> removed = new ArrayList<String>();
        File filesRuns = new File(filesRoot, RUNS);
        File codeRuns = new File(codeRoot, RUNS);
        removeOthers(filesRuns, run, removed);
        removeOthers(codeRuns, run, removed);
        File files = new File(filesRuns, run);
        File code = new File(codeRuns, run);
        // A folder of this very run can only be a leftover of a harness that
        // was killed and restarted for the same run: start afresh.
        deleteTree(files, removed);
        deleteTree(code, removed);
        mkdirs(files);
        mkdirs(code);
        int copied = 0;
        if (staging != null) {
            if (!staging.isDirectory()) {
                throw new IOException("the staging folder " + staging + " does not exist or is no folder");
            }
            String[] names = list(staging);
            for (String name : names) {
                File from = new File(staging, name);
                if (name.equals(JARS)) {
                    copied += copyTree(from, new File(code, name), true);
                } else {
                    copied += copyTree(from, new File(files, name), false);
                }
            }
        }
        return new Workspace(files, code, staging, removed, copied);
    }

    /**
     * The folder the host staged the run in, which the probe op tries the
     * app's file rules on; null for a direct workspace or none staged.
     */
    public File staging() {
        return staging;
    }

    /** Where {"file"} literals and environment actions resolve. */
    public File files() {
        return files;
    }

    /** Where relative jar paths (jars/NAME) resolve, and dex output goes. */
    public File code() {
        return code;
    }

    /**
     * The folder name under the code folder, made if need be: where a
     * loader writes what it compiles.
     */
    public File codeFolder(String name) throws IOException {
        File dir = new File(code, name);
        mkdirs(dir);
        return dir;
    }

    /** The folders of earlier runs that opening removed. */
    public List<String> removed() {
        return removed;
    }

    /** How many files opening copied from staging. */
    public int copied() {
        return copied;
    }

    /** Removes this run's folders; says what it could not remove. */
    public List<String> close() {
        List<String> failed = new ArrayList<String>();
        if (files.equals(code)) {
            return failed; // direct: the folder belongs to whoever made it
        }
        if (!deleteTree(files, null)) {
            failed.add(files.getPath());
        }
        if (!deleteTree(code, null)) {
            failed.add(code.getPath());
        }
        return failed;
    }

    private static void removeOthers(File runs, String keep, List<String> removed) throws IOException {
        if (!runs.isDirectory()) {
            return;
        }
        for (String name : list(runs)) {
            if (name.equals(keep)) {
                continue;
            }
            File f = new File(runs, name);
            if (!deleteTree(f, removed)) {
                throw new IOException("cannot remove the earlier run's folder " + f);
            }
        }
    }

    private static String[] list(File dir) throws IOException {
        String[] names = dir.list();
        if (names == null) {
            throw new IOException("cannot list " + dir);
        }
        Arrays.sort(names);
        return names;
    }

    private static void mkdirs(File dir) throws IOException {
        if (!dir.isDirectory() && !dir.mkdirs() && !dir.isDirectory()) {
            throw new IOException("cannot create " + dir);
        }
    }

    /**
     * Copies a file or folder; a symbolic link is refused rather than
     * followed, so a staged link cannot pull in files from elsewhere.
     */
    private static int copyTree(File from, File to, boolean readOnly) throws IOException {
        if (isLink(from)) {
            throw new IOException("the staged " + from + " is a symbolic link");
        }
        if (from.isDirectory()) {
            mkdirs(to);
            int n = 0;
            for (String name : list(from)) {
                n += copyTree(new File(from, name), new File(to, name), readOnly);
            }
            return n;
        }
        copyFile(from, to);
        if (readOnly && !to.setWritable(false, false)) {
            throw new IOException("cannot make " + to + " read-only");
        }
        return 1;
    }

    private static void copyFile(File from, File to) throws IOException {
        copy(new FileInputStream(from), to);
    }

    /** Writes in to the file to (anew) and closes in. */
    static void copy(InputStream in, File to) throws IOException {
        try {
            OutputStream out = new FileOutputStream(to);
            try {
                byte[] buf = new byte[64 * 1024];
                int n;
                while ((n = in.read(buf)) > 0) {
                    out.write(buf, 0, n);
                }
            } finally {
                out.close();
            }
        } finally {
            in.close();
        }
    }

    private static boolean isLink(File f) throws IOException {
        File parent = f.getParentFile();
        File canonicalParent = parent == null ? null : parent.getCanonicalFile();
        File same = canonicalParent == null ? f : new File(canonicalParent, f.getName());
        return !same.getCanonicalFile().equals(same.getAbsoluteFile());
    }

    /**
     * Deletes a file or folder tree without following links; adds what it
     * deleted at the top to removed (when not null). True when nothing is
     * left.
     */
    static boolean deleteTree(File f, List<String> removed) {
        if (!f.exists() && !isBrokenLink(f)) {
            return true;
        }
        boolean link;
        try {
            link = isLink(f);
        } catch (IOException e) {
            link = true;
        }
        if (!link && f.isDirectory()) {
            String[] names = f.list();
            if (names != null) {
                for (String name : names) {
                    deleteTree(new File(f, name), null);
                }
            }
        }
        boolean ok = f.delete() || !f.exists();
        if (ok && removed != null) {
            removed.add(f.getPath());
        }
        return ok;
    }

    private static boolean isBrokenLink(File f) {
        try {
            return !f.exists() && !f.getCanonicalFile().equals(f.getAbsoluteFile());
        } catch (IOException e) {
            return false;
        }
    }
}
