package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameters;

/**
 * Every session of the protocol corpus against a fresh Server on the test
 * platform, reply for reply: the same sessions the Go simulated harness
 * answers in its tests (internal/fake/simharness), so that the two cannot
 * drift apart.
 */
@RunWith(Parameterized.class)
public class CorpusTest {
    private final Corpus.Session session;

    public CorpusTest(String name, Corpus.Session session) {
        this.session = session;
    }

    @Parameters(name = "{0}")
    public static Collection<Object[]> sessions() throws Exception {
        List<Object[]> out = new ArrayList<Object[]>();
        for (Corpus.Session s : Corpus.load()) {
            if (s.only == null || s.only.equals("java")) {
                out.add(new Object[] {s.name, s});
            }
        }
        return out;
    }

    @Test
    public void answersAsTheCorpusSays() throws Exception {
        File dir = Files.createTempDirectory("droidstar-corpus").toFile();
        TestPlatform platform = new TestPlatform(dir);
        platform.mainThreadTimeoutMs = session.mainThreadTimeoutMs;
        try {
            // where a host stages a purpose's jars (internal/harness.JarDir)
            File jars = new File(dir, "jars");
            jars.mkdirs();
            Files.copy(new File(ResolutionTest.adapterJar()).toPath(), new File(jars, "test-adapter.jar").toPath());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            new Server(platform).serve(new ByteArrayInputStream(session.input().getBytes("UTF-8")), out);
            String text = new String(out.toByteArray(), "UTF-8");
            List<String> got = new ArrayList<String>();
            for (String l : text.split("\n", -1)) {
                got.add(l);
            }
            assertEquals("the output ends with a line break", "", got.remove(got.size() - 1));
            List<String> want = session.replies();
            for (int i = 0; i < Math.min(want.size(), got.size()); i++) {
                assertNull(session.name + ": reply " + (i + 1) + "\n got  " + got.get(i) + "\n want " + want.get(i),
                        Corpus.mismatch(want.get(i), got.get(i)));
            }
            assertEquals(session.name + ": replies " + got, want.size(), got.size());
        } finally {
            platform.shutdown();
            ServerTestBase.deleteTree(dir);
        }
    }
}
