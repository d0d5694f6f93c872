package org.droidstar.harness.core;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.util.Arrays;

import org.junit.Test;

/** The environment actions, run through purposes (setup and callin actions) and directly. */
public class EnvActionTest extends ServerTestBase {

    private String read(String name) throws Exception {
        return new String(Files.readAllBytes(new File(dir, name).toPath()), "UTF-8");
    }

    private void runActions(String actions) throws Exception {
        configure("{'name':'X','class':'" + TARGET + "','callins':[{'symbol':'do','do':"
                + actions + "}],'timeouts':{'quiescence':1}}");
        assertEquals(q("['ok']"), outputs(run1("['do']")));
    }

    @Test
    public void writeReplacesAndAppendAppends() throws Exception {
        runActions("[{'write':{'file':'w.txt','content':'first'}},{'write':{'file':'w.txt',"
                + "'content':'h\u00e9llo'}},{'append':{'file':'w.txt','content':' world'}},"
                + "{'append':{'file':'new/a.txt','content':'x'}},{'write':{'file':'empty.txt'}}]");
        assertEquals("h\u00e9llo world", read("w.txt"));
        assertEquals("x", read("new/a.txt"));
        assertEquals("", read("empty.txt"));
    }

    @Test
    public void deleteAndTouch() throws Exception {
        Files.write(new File(dir, "old.txt").toPath(), "keep".getBytes("UTF-8"));
        Files.write(new File(dir, "gone.txt").toPath(), "x".getBytes("UTF-8"));
        runActions("[{'touch':'old.txt'},{'touch':'t/new.txt'},"
                + "{'delete':'gone.txt'},{'delete':'never-there.txt'}]");
        assertEquals("touch keeps what is there", "keep", read("old.txt"));
        assertTrue(new File(dir, "t/new.txt").isFile());
        assertEquals(0, new File(dir, "t/new.txt").length());
        assertFalse(new File(dir, "gone.txt").exists());
    }

    @Test
    public void setupRunsBeforeEveryInstance() throws Exception {
        configure("{'name':'X','class':'" + TARGET + "','setup':[{'append':{'file':'log.txt','content':'r'}}],"
                + "'callins':[{'symbol':'do'}],'timeouts':{'quiescence':1}}");
        run("[['do'],['do'],[]]");
        assertEquals("rrr", read("log.txt"));
    }

    @Test
    public void sleepSleeps() throws Exception {
        configure("{'name':'X','class':'" + TARGET + "','callins':[{'symbol':'nap',"
                + "'do':[{'sleep':30}]}],'timeouts':{'quiescence':1}}");
        assertTrue(((Number) ((java.util.List<?>) run1("['nap']").get("ms")).get(0)).doubleValue() >= 30);
    }

    @Test
    public void sqliteWritesAnEmptyDatabaseWithTheUserVersion() throws Exception {
        runActions("[{'sqlite':{'file':'db/app.db','version':7}},{'sqlite':{'file':'zero.db'}}]");
        byte[] b = Files.readAllBytes(new File(dir, "db/app.db").toPath());
        assertEquals(4096, b.length);
        assertArrayEquals("SQLite format 3\0".getBytes("US-ASCII"), Arrays.copyOfRange(b, 0, 16));
        assertEquals(4096, u16(b, 16)); // page size
        assertEquals(1, b[18]); // write version
        assertEquals(1, b[19]); // read version
        assertEquals(0, b[20]); // reserved bytes per page
        assertEquals(64, b[21]);
        assertEquals(32, b[22]);
        assertEquals(32, b[23]);
        assertEquals(1, u32(b, 28)); // pages
        assertEquals(0, u32(b, 32)); // freelist trunk
        assertEquals(0, u32(b, 36)); // freelist pages
        assertEquals(4, u32(b, 44)); // schema format
        assertEquals(1, u32(b, 56)); // UTF-8
        assertEquals(7, u32(b, 60)); // user_version
        assertEquals(u32(b, 24), u32(b, 92)); // version-valid-for = change counter
        for (int i = 72; i < 92; i++) {
            assertEquals("reserved byte " + i, 0, b[i]);
        }
        assertEquals(0x0d, b[100]); // a leaf table b-tree page: sqlite_master, empty
        assertEquals(0, u16(b, 101));
        assertEquals(0, u16(b, 103)); // no cells
        assertEquals(4096, u16(b, 105)); // content area starts at the end of the page
        assertEquals(0, b[107]);
        for (int i = 108; i < b.length; i++) {
            assertEquals(0, b[i]);
        }
        assertEquals(0, u32(Files.readAllBytes(new File(dir, "zero.db").toPath()), 60));
        assertEquals(-2, u32(EnvAction.emptySqliteDatabase(-2), 60));
    }

    static int u16(byte[] b, int off) {
        return ((b[off] & 0xff) << 8) | (b[off + 1] & 0xff);
    }

    static int u32(byte[] b, int off) {
        return ((b[off] & 0xff) << 24) | ((b[off + 1] & 0xff) << 16) | ((b[off + 2] & 0xff) << 8) | (b[off + 3] & 0xff);
    }

    @Test
    public void parsedActionsKnowTheirKind() throws Exception {
        assertEquals("sleep", EnvAction.parse(Json.parse(q("{'sleep':1}")), "x").kind());
        assertEquals("sqlite", EnvAction.parse(Json.parse(q("{'sqlite':{'file':'a'}}")), "x").kind());
    }
}
