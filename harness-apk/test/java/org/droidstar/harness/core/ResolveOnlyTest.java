package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.fail;

import java.io.File;
import java.nio.file.Files;
import java.util.Arrays;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * Configuration.resolve: the errors of configure, at the same paths, with
 * nothing of the purpose run (no static initialiser, no constant read).
 */
public class ResolveOnlyTest {
    static final String EAGER = "org.droidstar.harness.testadapter.Eager";

    private File dir;
    private TestPlatform platform;

    @Before
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("droidstar-resolve-test").toFile();
        platform = new TestPlatform(dir);
        System.clearProperty("droidstar.test.eager.initialised");
    }

    @After
    public void tearDown() {
        platform.shutdown();
        ServerTestBase.deleteTree(dir);
        System.clearProperty("droidstar.test.eager.initialised");
    }

    private static Object purpose(String callin) throws Exception {
        return Json.parse(ServerTestBase.q("{'name':'Eager','class':'" + EAGER + "',"
                + "'jars':['" + ResolutionTest.adapterJar() + "'],"
                + "'target':{'new':[{'constant':'" + EAGER + ".LIMIT'}]},"
                + "'callins':[" + callin + "],'timeouts':{'quiescence':1}}"));
    }

    private static final String TAKE = "{'symbol':'take','call':'take','args':[{'constant':'" + EAGER + ".BOXED'},"
            + "{'constant':['" + EAGER + ".LIMIT','" + EAGER + ".WIDE']},{'constant':'" + EAGER + ".NAME'}]}";

    @Test
    public void resolvingReadsNoConstantAndInitialisesNoClass() throws Exception {
        Configuration c = Configuration.resolve(purpose(TAKE), platform, null);
        assertEquals(Arrays.asList("take"), c.callinSymbols());
        assertNull("resolving ran Eager's static initialiser", System.getProperty("droidstar.test.eager.initialised"));

        // configure reads the constants, which initialises the class: the mark works
        Configuration.parse(purpose(TAKE), platform);
        assertEquals("1", System.getProperty("droidstar.test.eager.initialised"));
    }

    @Test
    public void resolvingGivesConfiguresErrorsAtTheSamePaths() throws Exception {
        String[][] cases = {
            // a misspelt method
            {"{'symbol':'take','call':'tkae','args':[1,2,'x']}", "unknown-method", "callins[0].call",
                "class " + EAGER + " has no method that accepts tkae(1, 2, \"x\")"},
            // a constant of the wrong type, checked without reading it
            {"{'symbol':'take','call':'take','args':[{'constant':'" + EAGER + ".NAME'},1,'x']}", "bad-argument",
                "callins[0].args[0]", EAGER + ".NAME cannot be converted to int (argument 1 of " + EAGER
                    + ".take(int, long, java.lang.CharSequence))"},
            // a flag that does not exist
            {"{'symbol':'take','call':'take','args':[1,{'constant':['" + EAGER + ".LIMIT','" + EAGER + ".NONE']},'x']}",
                "bad-argument", "callins[0].args[1].constant[1]", "class " + EAGER + " has no public field NONE"},
        };
        for (String[] k : cases) {
            for (int resolve = 0; resolve < 2; resolve++) {
                try {
                    if (resolve == 1) {
                        Configuration.resolve(purpose(k[0]), platform, null);
                    } else {
                        Configuration.parse(purpose(k[0]), platform);
                    }
                    fail((resolve == 1 ? "resolve" : "parse") + " accepted " + k[0]);
                } catch (ProtocolError e) {
                    String what = (resolve == 1 ? "resolve: " : "parse: ") + k[0];
                    assertEquals(what, k[1], e.code());
                    assertEquals(what, k[2], e.where());
                    assertEquals(what, k[3], e.getMessage());
                }
            }
        }
    }

    /** With no context object, the context literal has the type resolve is given. */
    @Test
    public void theContextHasTheGivenType() throws Exception {
        Object greet = purpose("{'symbol':'greet','call':'greet','args':[{'context':true}]}");
        Configuration.resolve(greet, platform, CharSequence.class);
        Object exact = purpose("{'symbol':'greet','call':'greetExactly','args':[{'context':true}]}");
        try {
            Configuration.resolve(exact, platform, CharSequence.class);
            fail("a CharSequence context passed for a String");
        } catch (ProtocolError e) {
            assertEquals("callins[0].args[0]", e.where());
            assertEquals("{\"context\":true} cannot be converted to java.lang.String (argument 1 of " + EAGER
                    + ".greetExactly(java.lang.String))", e.getMessage());
        }
        // configure gives the platform's context object (a String here) its own class
        Configuration.parse(exact, platform);
    }
}
