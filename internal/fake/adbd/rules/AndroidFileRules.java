import java.io.File;
import java.io.FilePermission;
import java.io.IOException;
import java.security.Permission;

/**
 * The fake device's SELinux file rules for the app process, as a security
 * manager of the JVM that stands in for the harness app (package adbd's doc
 * lists the rules and their AOSP sources). Files under the folder that
 * stands for /data/local/tmp (type shell_data_file) may be read, and an
 * existing file written, but nothing may be created or unlinked there.
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

    private void check(Permission perm) {
        if (!(perm instanceof FilePermission)) {
            return;
        }
        String actions = perm.getActions();
        boolean delete = actions.contains("delete");
        boolean write = actions.contains("write");
        if (!delete && !write) {
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
        if (delete) {
            deny("unlink", device, f.getName());
        }
        // A write permission is asked before open(2) with or without
        // O_CREAT: only an existing file tells it is no create.
        if (!f.isFile()) {
            deny(f.isDirectory() ? "write" : "create", device, f.getName());
        }
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
