import java.io.File;
import java.io.FilePermission;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.Permission;
import java.util.Set;

/**
 * The fake device's file rules for the app process, as a security manager
 * of the JVM that stands in for the harness app (package adbd's doc lists
 * the rules and their AOSP sources). Under the folder that stands for
 * /data/local/tmp (type shell_data_file, owned by the shell):
 * <ul>
 * <li>Unix modes first, as the kernel checks DAC before SELinux: the app
 * runs under its own uid, neither the shell's (2000) that owns what adb put
 * there nor in its group, so the "other" bits decide. Every folder on the
 * way needs o+x, a file or folder read needs o+r, an existing file written
 * needs o+w, and a file created or unlinked needs o+w on its folder (fs/namei.c:
 * may_create and may_delete ask inode_permission(dir, MAY_WRITE | MAY_EXEC)
 * before vfs_create and vfs_unlink reach the security_inode_create and
 * security_inode_unlink hooks, so such a refusal logs no avc denial). The
 * JVM runs as root, which the kernel would let through, so the modes are
 * read and checked here.</li>
 * <li>SELinux then: a file may be read, and an existing file written, but
 * nothing may be created or unlinked there.</li>
 * </ul>
 * Everything else is allowed: the fake enforces Android's rules, not Java's.
 */
public final class AndroidFileRules extends SecurityManager {
    /** The host folder that /data/local/tmp maps to, canonical, with a trailing separator. */
    private final String shellData;

    public AndroidFileRules() {
        String dir = System.getProperty("droidstar.fake.shell_data");
        if (dir == null || dir.isEmpty()) {
            throw new IllegalStateException("AndroidFileRules needs -Ddroidstar.fake.shell_data=DIR");
        }
        try {
            shellData = new File(dir).getCanonicalPath() + File.separator;
        } catch (IOException e) {
            throw new IllegalStateException("AndroidFileRules: " + e);
        }
    }

    @Override
    public void checkPermission(Permission perm) {
        check(perm);
    }

    @Override
    public void checkPermission(Permission perm, Object context) {
        check(perm);
    }

    /** Set while a check runs: the checks' own file reads are not the app's. */
    private final ThreadLocal<Boolean> checking = new ThreadLocal<Boolean>();

    private void check(Permission perm) {
        if (!(perm instanceof FilePermission) || checking.get() != null) {
            return;
        }
        checking.set(Boolean.TRUE);
        try {
            checkFile((FilePermission) perm);
        } finally {
            checking.remove();
        }
    }

    private void checkFile(FilePermission perm) {
        String actions = perm.getActions();
        boolean delete = actions.contains("delete");
        boolean write = actions.contains("write");
        boolean read = actions.contains("read");
        if (!delete && !write && !read) {
            return;
        }
        File f = new File(perm.getName());
        String path;
        try {
            path = f.getCanonicalPath();
        } catch (IOException e) {
            return;
        }
        if (!(path + File.separator).startsWith(shellData)) {
            return;
        }
        String device = DEVICE_DIR + path.substring(Math.min(path.length(), shellData.length()));
        checkModes(new File(path), device, read, write && f.isFile());
        if (!delete && !write) {
            return;
        }
        boolean create = write && !f.isFile() && !f.isDirectory();
        if (delete || create) {
            File folder = new File(path).getParentFile();
            Set<PosixFilePermission> m = folder == null ? null : modes(folder);
            if (m != null && under(folder) && !m.contains(PosixFilePermission.OTHERS_WRITE)) {
                denyMode(device, folder, m, "write (o+w) on the folder (which " + (delete ? "unlink" : "create") + " needs)");
            }
        }
        if (delete) {
            deny("unlink", device, f.getName());
        }
        // A write permission is asked before open(2) with or without
        // O_CREAT: only an existing file tells it is no create.
        if (!f.isFile()) {
            deny(f.isDirectory() ? "write" : "create", device, f.getName());
        }
    }

    /**
     * Checks the "other" mode bits the kernel's generic_permission would
     * check for the app's uid: search (x) on every folder from
     * /data/local/tmp down to the parent, read (r) on what is read, write
     * (w) on an existing file written. A stat counts as a read here: a
     * security manager is asked the same question for both.
     */
    private void checkModes(File target, String device, boolean read, boolean writeFile) {
        java.util.ArrayList<File> folders = new java.util.ArrayList<File>();
        for (File d = target.getParentFile(); d != null && under(d); d = d.getParentFile()) {
            folders.add(0, d);
        }
        for (File d : folders) {
            Set<PosixFilePermission> m = modes(d);
            if (m != null && !m.contains(PosixFilePermission.OTHERS_EXECUTE)) {
                denyMode(device, d, m, "search (o+x) on the folder");
            }
        }
        Set<PosixFilePermission> m = modes(target);
        if (m == null) {
            return;
        }
        if (read && !m.contains(PosixFilePermission.OTHERS_READ)) {
            denyMode(device, target, m, "read (o+r)");
        }
        if (writeFile && !m.contains(PosixFilePermission.OTHERS_WRITE)) {
            denyMode(device, target, m, "write (o+w)");
        }
    }

    /** The mode of f, or null when it does not exist (the call then fails on its own). */
    private static Set<PosixFilePermission> modes(File f) {
        try {
            return Files.getPosixFilePermissions(f.toPath());
        } catch (IOException e) {
            return null;
        }
    }

    /** Whether f (canonical) is /data/local/tmp or under it. */
    private boolean under(File f) {
        return (f.getPath() + File.separator).startsWith(shellData);
    }

    private void denyMode(String device, File f, Set<PosixFilePermission> m, String needed) {
        String where = "/data/local/tmp" + f.getPath().substring(shellData.length() - 1);
        // The kernel logs nothing for a DAC refusal, unlike an avc denial.
        throw new SecurityException(device + ": EACCES (Permission denied): " + where + " is "
                + PosixFilePermissions.toString(m) + ", which does not give " + needed
                + " to the app's uid (not the shell's 2000, nor in its group)");
    }

    private static final String DEVICE_DIR = "/data/local/tmp/";

    private static void deny(String what, String device, String name) {
        String avc = "avc: denied { " + what + " } for name=\"" + name
                + "\" scontext=u:r:untrusted_app:s0 tcontext=u:object_r:shell_data_file:s0 permissive=0";
        // logcat shows the denial, as the kernel's audit log does on a device
        System.err.println(avc);
        throw new SecurityException(device + ": EACCES (Permission denied): " + avc);
    }
}
