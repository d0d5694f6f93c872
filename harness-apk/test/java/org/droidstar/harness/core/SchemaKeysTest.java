package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * The keys of the purpose object that configure takes are the purpose
 * schema's: the corpus's schema-keys.json (testdata/protocol/README.md),
 * which the schema table of internal/purpose generates, lists them map by
 * map. Configuration's key sets and the literal and action kinds must be
 * those lists, and configure must read every key of them.
 */
public class SchemaKeysTest {
    /** The map of schema-keys.json each of Configuration.acceptedKeys()'s sets is. */
    private static final Map<String, String> SETS = new LinkedHashMap<String, String>();

    static {
        SETS.put("top", "");
        SETS.put("target", "target");
        SETS.put("details.part", "details.*[]");
        SETS.put("literal", "<literal>");
        SETS.put("action", "<action>");
        SETS.put("action.write", "<action>.write");
        SETS.put("action.append", "<action>.append");
        SETS.put("action.sqlite", "<action>.sqlite");
    }

    private File dir;
    private TestPlatform platform;

    @Before
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("droidstar-schema-keys-test").toFile();
        platform = new TestPlatform(dir);
    }

    @After
    public void tearDown() {
        platform.shutdown();
        ServerTestBase.deleteTree(dir);
    }

    /** schema-keys.json: the keys of each map, by the map's path, in the file's order. */
    static Map<String, List<String>> corpusKeys() throws Exception {
        File f = new File(Corpus.dir(), "schema-keys.json");
        Map<?, ?> file = (Map<?, ?>) Json.parse(new String(Files.readAllBytes(f.toPath()), EnvAction.UTF8));
        Map<String, List<String>> out = new LinkedHashMap<String, List<String>>();
        for (Object o : (List<?>) file.get("maps")) {
            Map<?, ?> m = (Map<?, ?>) o;
            List<String> keys = new ArrayList<String>();
            for (Object k : (List<?>) m.get("keys")) {
                keys.add((String) k);
            }
            out.put((String) m.get("in"), keys);
        }
        assertFalse("schema-keys.json lists no maps", out.isEmpty());
        return out;
    }

    /**
     * Configuration's key sets hold the corpus's keys, no more and no fewer.
     * As sets: Configuration declares the purpose object's keys in the order
     * it checks their types (PROTOCOL.md), the schema in the purpose file's.
     */
    @Test
    public void configurationsKeySetsAreTheSchemas() throws Exception {
        Map<String, List<String>> corpus = corpusKeys();
        Map<String, List<String>> accepted = Configuration.acceptedKeys();
        for (Map.Entry<String, List<String>> e : accepted.entrySet()) {
            String in = SETS.get(e.getKey());
            assertNotNull("Configuration.acceptedKeys() has a set \"" + e.getKey() + "\" that SETS does not map to "
                    + "a map of schema-keys.json", in);
            List<String> want = corpus.get(in);
            assertNotNull("schema-keys.json has no map \"" + in + "\"", want);
            assertEquals("Configuration's \"" + e.getKey() + "\" repeats a key", new LinkedHashSet<String>(e.getValue()).size(),
                    e.getValue().size());
            assertEquals("Configuration's \"" + e.getKey() + "\" against schema-keys.json's \"" + in + "\"", sorted(want),
                    sorted(e.getValue()));
        }
        assertEquals(new ArrayList<String>(SETS.keySet()), new ArrayList<String>(accepted.keySet()));
    }

    /** The kinds of literals and actions, in the order their messages list them. */
    @Test
    public void literalAndActionKindsAreTheSchemas() throws Exception {
        Map<String, List<String>> corpus = corpusKeys();
        assertEquals(corpus.get("<literal>"), Literal.KINDS);
        assertEquals(corpus.get("<action>"), EnvAction.KINDS);
    }

    /** A purpose object that configures, with a map at every place a key test needs. */
    private static final String BASE = "{'name':'Gate','class':'org.droidstar.harness.corpus.Gate',"
            + "'target':{'new':[],'listeners':[{'type':'org.droidstar.harness.corpus.Gate$Listener','register':'setListener'}],"
            + "'init':[{'call':'setLabel','args':['x']}],'dispose':{'call':'release'}},"
            + "'setup':[{'delete':'f'}],"
            + "'callins':[{'symbol':'open','call':'open'},{'symbol':'close','call':'close'}],"
            + "'callbacks':[{'symbol':'broken','from':['onBroken/x']}],"
            + "'details':{'onBroken':[{'arg':0}]},"
            + "'timeouts':{'quiescence':10}}";

    /**
     * Every key of schema-keys.json given a value no key takes (a list of
     * lists) where its map is: configure refuses it at the key's path, so
     * it reads the key. (A key it reads but the file lacks is the key sets'
     * and kinds' tests' to find; of the other maps, Java keeps no list.)
     */
    @Test
    public void configureReadsEverySchemaKey() throws Exception {
        Configuration.parse(base(), platform);
        List<String> wrong = new ArrayList<String>();
        for (Map.Entry<String, List<String>> m : corpusKeys().entrySet()) {
            for (String key : m.getValue()) {
                Map<String, Object> p = base();
                Place place = place(p, m.getKey());
                place.map.put(key, Arrays.<Object>asList(Collections.emptyList()));
                String want = place.path.isEmpty() ? key : place.path + "." + key;
                if (key.equals("jar_sha256")) {
                    want = "jars"; // not a purpose field: PROTOCOL.md points at the jars
                }
                try {
                    Configuration.parse(p, platform);
                    wrong.add(key + " in \"" + m.getKey() + "\": accepted");
                } catch (ProtocolError e) {
                    String w = String.valueOf(e.where());
                    if (!(w.equals(want) || w.startsWith(want + ".") || w.startsWith(want + "["))) {
                        wrong.add(key + " in \"" + m.getKey() + "\": refused at " + w + " (" + e.getMessage()
                                + "), want " + want);
                    }
                }
            }
        }
        assertTrue("keys configure does not refuse a bad value of where they are:\n" + join(wrong, "\n"),
                wrong.isEmpty());
    }

    /** A map of a purpose object and its path in errors. */
    private static final class Place {
        final Map<String, Object> map;
        final String path;

        Place(Map<String, Object> map, String path) {
            this.map = map;
            this.path = path;
        }
    }

    /** Where the map at in (a path of schema-keys.json) is in p, made when the base has none. */
    private static Place place(Map<String, Object> p, String in) {
        if (in.equals("")) {
            return new Place(p, "");
        }
        if (in.equals("target")) {
            return new Place(obj(p, "target"), "target");
        }
        if (in.equals("target.factory")) {
            Map<String, Object> t = obj(p, "target");
            t.remove("new");
            Map<String, Object> f = new LinkedHashMap<String, Object>();
            f.put("method", "make");
            t.put("factory", f);
            return new Place(f, "target.factory");
        }
        if (in.equals("target.listeners[]")) {
            return new Place(item(obj(p, "target"), "listeners"), "target.listeners[0]");
        }
        if (in.equals("target.init[]")) {
            return new Place(item(obj(p, "target"), "init"), "target.init[0]");
        }
        if (in.equals("target.dispose")) {
            return new Place(obj(obj(p, "target"), "dispose"), "target.dispose");
        }
        if (in.equals("callins[]")) {
            return new Place(item(p, "callins"), "callins[0]");
        }
        if (in.equals("callbacks[]")) {
            return new Place(item(p, "callbacks"), "callbacks[0]");
        }
        if (in.equals("details.*[]")) {
            return new Place(item(obj(p, "details"), "onBroken"), "details.onBroken[0]");
        }
        if (in.equals("timeouts")) {
            return new Place(obj(p, "timeouts"), "timeouts");
        }
        if (in.equals("<literal>")) {
            Map<String, Object> lit = new LinkedHashMap<String, Object>();
            item(p, "callins").put("args", new ArrayList<Object>(Collections.singletonList(lit)));
            return new Place(lit, "callins[0].args[0]");
        }
        if (in.equals("<action>")) {
            Map<String, Object> a = new LinkedHashMap<String, Object>();
            p.put("setup", new ArrayList<Object>(Collections.singletonList(a)));
            return new Place(a, "setup[0]");
        }
        if (in.startsWith("<action>.")) {
            String kind = in.substring("<action>.".length());
            Map<String, Object> arg = new LinkedHashMap<String, Object>();
            arg.put("file", "f");
            Map<String, Object> a = new LinkedHashMap<String, Object>();
            a.put(kind, arg);
            p.put("setup", new ArrayList<Object>(Collections.singletonList(a)));
            return new Place(arg, "setup[0]." + kind);
        }
        fail("no place for the map \"" + in + "\" of schema-keys.json in this test: add one to place()");
        return null;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> base() throws Exception {
        return (Map<String, Object>) Json.parse(ServerTestBase.q(BASE));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> obj(Map<String, Object> m, String key) {
        return (Map<String, Object>) m.get(key);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> item(Map<String, Object> m, String key) {
        return (Map<String, Object>) ((List<Object>) m.get(key)).get(0);
    }

    private static List<String> sorted(List<String> l) {
        List<String> out = new ArrayList<String>(l);
        Collections.sort(out);
        return out;
    }

    private static String join(List<String> l, String sep) {
        StringBuilder sb = new StringBuilder();
        for (String s : l) {
            if (sb.length() > 0) {
                sb.append(sep);
            }
            sb.append(s);
        }
        return sb.toString();
    }
}
