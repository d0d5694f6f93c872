package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Collections;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

public class WorkspaceTest {
    private static final Charset UTF8 = Charset.forName("UTF-8");
    private File root;
    private File staging;
    private File filesRoot;
    private File codeRoot;

    @Before
    public void setUp() throws IOException {
        root = Files.createTempDirectory("droidstar-workspace").toFile();
        staging = new File(root, "data/local/tmp/droidstar/r1");
        filesRoot = new File(root, "data/user/0/org.droidstar.harness/files");
        codeRoot = new File(root, "data/user/0/org.droidstar.harness/code_cache");
    }

    @After
    public void tearDown() {
        // the read-only jars must not keep the test's folder alive
        Workspace.deleteTree(root, null);
    }

    private static void write(File f, String content) throws IOException {
        f.getParentFile().mkdirs();
        Files.write(f.toPath(), content.getBytes(UTF8));
    }

    private static String read(File f) throws IOException {
        return new String(Files.readAllBytes(f.toPath()), UTF8);
    }

    @Test
    public void copiesStagingIntoPrivateFoldersAndJarsIntoCodeReadOnly() throws IOException {
        write(new File(staging, "watched.txt"), "hello");
        write(new File(staging, "sub/deep.db"), "db");
        write(new File(staging, "jars/adapter.jar"), "PK");
        Workspace w = Workspace.open(staging, filesRoot, codeRoot, "r1");
        assertEquals(new File(filesRoot, "droidstar/r1"), w.files());
        assertEquals(new File(codeRoot, "droidstar/r1"), w.code());
        assertEquals(3, w.copied());
        assertEquals("hello", read(new File(w.files(), "watched.txt")));
        assertEquals("db", read(new File(w.files(), "sub/deep.db")));
        assertFalse("jars stay out of the files folder", new File(w.files(), "jars").exists());
        File jar = new File(w.code(), "jars/adapter.jar");
        assertEquals("PK", read(jar));
        assertFalse("a loaded jar must be read-only (Android 14)", jar.canWrite() && !isRoot());
        assertFalse("read-only for everyone", Files.getPosixFilePermissions(jar.toPath()).toString().contains("WRITE"));
        // the staging folder is only read
        assertEquals("hello", read(new File(staging, "watched.txt")));
        assertEquals(Collections.<String>emptyList(), w.close());
        assertFalse(w.files().exists());
        assertFalse(w.code().exists());
        assertTrue("close leaves staging to the host", staging.isDirectory());
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    @Test
    public void openingRemovesEarlierRunsAndRestartsItsOwn() throws IOException {
        write(new File(filesRoot, "droidstar/old/left.txt"), "x");
        write(new File(codeRoot, "droidstar/old/jars/a.jar"), "x");
        write(new File(filesRoot, "droidstar/r1/stale.txt"), "x");
        write(new File(filesRoot, "other-app-data.txt"), "keep");
        write(new File(staging, "fresh.txt"), "y");
        Workspace w = Workspace.open(staging, filesRoot, codeRoot, "r1");
        assertEquals(Arrays.asList(new File(filesRoot, "droidstar/old").getPath(),
                new File(codeRoot, "droidstar/old").getPath(), new File(filesRoot, "droidstar/r1").getPath()),
                w.removed());
        assertFalse(new File(filesRoot, "droidstar/old").exists());
        assertFalse(new File(w.files(), "stale.txt").exists());
        assertTrue(new File(w.files(), "fresh.txt").isFile());
        assertEquals("keep", read(new File(filesRoot, "other-app-data.txt")));
    }

    @Test
    public void noStagingStartsEmpty() throws IOException {
        Workspace w = Workspace.open(null, filesRoot, codeRoot, "r2");
        assertTrue(w.files().isDirectory());
        assertEquals(0, w.files().list().length);
        assertEquals(0, w.copied());
    }

    @Test
    public void refusesBadRunIdsMissingStagingAndLinks() throws IOException {
        for (String run : new String[] {"", ".", "..", "a/b", "a\\b"}) {
            try {
                Workspace.open(null, filesRoot, codeRoot, run);
                fail("accepted run id " + run);
            } catch (IOException e) {
                assertEquals("the run id must be a plain folder name, not \"" + run + "\"", e.getMessage());
            }
        }
        try {
            Workspace.open(new File(root, "nothing"), filesRoot, codeRoot, "r3");
            fail("accepted a missing staging folder");
        } catch (IOException e) {
            assertEquals("the staging folder " + new File(root, "nothing") + " does not exist or is no folder",
                    e.getMessage());
        }
        write(new File(root, "secret.txt"), "s");
        staging.mkdirs();
        Files.createSymbolicLink(new File(staging, "link.txt").toPath(), new File(root, "secret.txt").toPath());
        try {
            Workspace.open(staging, filesRoot, codeRoot, "r4");
            fail("followed a staged link");
        } catch (IOException e) {
            assertEquals("the staged " + new File(staging, "link.txt") + " is a symbolic link", e.getMessage());
        }
    }

    @Test
    public void directIsTheFolderItselfAndCloseKeepsIt() throws IOException {
        File dir = new File(root, "jvm");
        dir.mkdirs();
        Workspace w = Workspace.direct(dir);
        assertEquals(dir, w.files());
        assertEquals(dir, w.code());
        w.close();
        assertTrue(dir.isDirectory());
    }
}
