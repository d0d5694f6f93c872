package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.Test;

/** Classes, overloads, argument literals, proxies, shims and adapter jars. */
public class ResolutionTest extends ServerTestBase {
    static final String OVERLOADS = "org.droidstar.harness.core.Fixtures$Overloads";

    /** Configures one callin on class cls and runs it; returns what the fixture logged. */
    private List<String> call(String cls, String method, String args) throws Exception {
        Fixtures.reset();
        configure("{'name':'X','class':'" + cls + "','target':{'listeners':[{'type':'" + LISTENER + "','register':null}]},"
                + "'callins':[{'symbol':'c','call':'" + method + "','on':null,'args':" + args + ",'do':[]}],"
                + "'timeouts':{'quiescence':1}}");
        Map<String, Object> r = run1("['c']");
        assertEquals(Json.write(r), q("['ok']"), outputs(r));
        List<String> log = Fixtures.log();
        if (!log.isEmpty() && log.get(0).startsWith("new Target()")) {
            log.remove(0);
        }
        return log;
    }

    private String call1(String method, String args) throws Exception {
        List<String> log = call(OVERLOADS, method, args);
        assertEquals(log.toString(), 1, log.size());
        return log.get(0);
    }

    private Map<String, Object> callError(String cls, String method, String args) throws Exception {
        return configureError("{'name':'X','class':'" + cls + "',"
                + "'callins':[{'symbol':'c','call':'" + method + "','args':" + args + "}],"
                + "'timeouts':{'quiescence':1}}");
    }

    @Test
    public void plainNumbersPreferJavasTypes() throws Exception {
        assertEquals("m(int 5)", call1("m", "[5]"));
        assertEquals("m(long 4294967296)", call1("m", "[4294967296]"));
        assertEquals("m(double 5.5)", call1("m", "[5.5]"));
        assertEquals("m(double 1000.0)", call1("m", "[1e3]"));
        assertEquals("m(String x)", call1("m", "['x']"));
        assertEquals("m(boolean true)", call1("m", "[true]"));
        assertEquals("m(String y)", call1("m", "[{'string':'y'}]"));
    }

    @Test
    public void typedLiteralsPickTheirOverload() throws Exception {
        assertEquals("m(int 5)", call1("m", "[{'int':5}]"));
        assertEquals("m(long 5)", call1("m", "[{'long':5}]"));
        assertEquals("m(double 1.5)", call1("m", "[{'float':1.5}]"));
        assertEquals("m(double 2.0)", call1("m", "[{'double':2}]"));
        assertEquals("f(float 2.5)", call1("f", "[{'float':2.5}]"));
        assertEquals("boxedLong(Long 5)", call1("boxedLong", "[{'long':5}]"));
    }

    @Test
    public void numbersConvertToEveryNumericTypeTheyFit() throws Exception {
        assertEquals("f(float 2.0)", call1("f", "[2]"));
        assertEquals("f(float 2.5)", call1("f", "[2.5]"));
        assertEquals("s(short 7)", call1("s", "[7]"));
        assertEquals("b(byte -8)", call1("b", "[-8]"));
        assertEquals("boxed(Integer 5)", call1("boxed", "[5]"));
        assertEquals("boxed(Integer null)", call1("boxed", "[null]"));
        assertEquals("boxedLong(Long 5)", call1("boxedLong", "[5]"));
        assertEquals("obj(Integer 5)", call1("obj", "[5]"));
        assertEquals("obj(Long 5000000000)", call1("obj", "[5000000000]"));
        assertEquals("obj(Double 1.5)", call1("obj", "[1.5]"));
        assertEquals("obj(String x)", call1("obj", "['x']"));
        assertEquals("obj(Boolean false)", call1("obj", "[false]"));
        assertEquals("obj(null)", call1("obj", "[null]"));
        assertEquals("obj(Long 5)", call1("obj", "[{'long':5}]"));
        assertEquals("ch(c)", call1("ch", "['c']"));
        assertEquals("bad-argument", callError(OVERLOADS, "s", "[70000]").get("code"));
        assertEquals("bad-argument", callError(OVERLOADS, "b", "[200]").get("code"));
        assertEquals("bad-argument", callError(OVERLOADS, "f", "[{'double':1}]").get("code"));
        assertEquals("bad-argument", callError(OVERLOADS, "onlyInt", "[{'long':1}]").get("code"));
        assertEquals("bad-argument", callError(OVERLOADS, "ch", "['cd']").get("code"));
    }

    @Test
    public void constants() throws Exception {
        assertEquals("flags(1)", call1("flags", "[{'constant':'" + TARGET + ".FLAG_A'}]"));
        assertEquals("flags(5)", call1("flags", "[{'constant':['" + TARGET + ".FLAG_A','" + TARGET + ".FLAG_B']}]"));
        assertEquals("lflags(4)", call1("lflags", "[{'constant':'" + TARGET + ".FLAG_B'}]"));
        assertEquals("lflags(" + ((1L << 40) | 1) + ")",
                call1("lflags", "[{'constant':['" + TARGET + ".FLAG_A','" + TARGET + ".LONG_FLAG']}]"));
        assertEquals("obj(String constant name)", call1("obj", "[{'constant':'" + TARGET + ".NAME'}]"));
        assertEquals("obj(Integer 7)", call1("obj", "[{'constant':'" + TARGET + ".notFinal'}]"));
        assertEquals("[mode FAST]", call(TARGET, "takeMode",
                "[{'constant':'org.droidstar.harness.core.Fixtures$Mode.FAST'}]").toString());
        assertEquals("[mode SLOW]", call(TARGET, "takeMode",
                "[{'constant':'org.droidstar.harness.core.Fixtures.Target.DEFAULT_MODE'}]").toString());
        assertEquals("unknown-class", callError(OVERLOADS, "flags", "[{'constant':'no.such.K.X'}]").get("code"));
    }

    @Test
    public void ambiguousOverloadsAreUnknownMethodsListingBoth() throws Exception {
        Map<String, Object> e = callError(OVERLOADS, "amb", "['x','y']");
        assertEquals("unknown-method", e.get("code"));
        assertEquals("callins[0].call", e.get("where"));
        String msg = (String) e.get("message");
        assertTrue(msg, msg.contains("amb(java.lang.String, java.lang.Object)"));
        assertTrue(msg, msg.contains("amb(java.lang.Object, java.lang.String)"));
        e = callError(OVERLOADS, "nul", "[null]");
        assertEquals("unknown-method", e.get("code"));
        msg = (String) e.get("message");
        assertTrue(msg, msg.contains("nul(java.lang.String)") && msg.contains("nul(java.io.File)"));
        assertEquals("amb(String, Object)", call1("amb", "['x',{'constant':'" + TARGET + ".DEFAULT_MODE'}]"));
    }

    @Test
    public void fileLiterals() throws Exception {
        assertEquals("path(String)", call1("path", "[{'file':'f.txt'}]"));
        assertEquals("[string path " + new File(dir, "a.txt").getAbsolutePath() + "]",
                call(TARGET, "takeFile", "[{'file':'a.txt'}]").toString());
        assertEquals("[file " + new File(dir, "sub/f.txt").getPath() + "]",
                call(TARGET, "takeRealFile", "[{'file':'sub/f.txt'}]").toString());
    }

    @Test
    public void targetContextAndListenerLiterals() throws Exception {
        assertEquals("[take target true]", call(TARGET, "takeTarget", "[{'target':true}]").toString());
        assertEquals("[take context the test context]", call(TARGET, "takeContext", "[{'context':true}]").toString());
        platform.context = null;
        assertEquals("[take context null]", call(TARGET, "takeContext", "[{'context':true}]").toString());
        configure("{'name':'X','class':'" + TARGET + "','target':{'listeners':[{'type':'" + LISTENER
                + "','register':'setListener'}]},"
                + "'callins':[{'symbol':'c','call':'take','args':[{'listener':'" + LISTENER + "'}]}],"
                + "'timeouts':{'quiescence':1}}");
        run1("['c']");
        assertTrue(Fixtures.log().toString(), Fixtures.log().contains("take listener true"));
    }

    @Test
    public void varargs() throws Exception {
        assertEquals("[varargs 0]", call(TARGET, "varargs", "[]").toString());
        assertEquals("[varargs 2]", call(TARGET, "varargs", "['a','b']").toString());
        assertEquals("[varargs 1]", call(TARGET, "varargs", "['a']").toString());
    }

    @Test
    public void constructorsFactoriesAndNestedClassNames() throws Exception {
        configure("{'name':'X','class':'org.droidstar.harness.core.Fixtures.Target','target':{'new':['s']},"
                + "'callins':[{'symbol':'c','call':'close'}],'timeouts':{'quiescence':1}}");
        run1("['c']");
        assertEquals("[new Target(s), close]", Fixtures.log().toString());
        Fixtures.reset();
        configure("{'name':'X','class':'" + TARGET + "','target':{'factory':{'method':'create','args':['f']}},"
                + "'callins':[{'symbol':'c','call':'close'}],'timeouts':{'quiescence':1}}");
        run1("['c']");
        assertEquals("create(f)", Fixtures.log().get(0));
        Fixtures.reset();
        configure("{'name':'X','class':'java.lang.Object','target':{'factory':{'class':'" + TARGET + "','method':'create',"
                + "'args':['g']}},'callins':[{'symbol':'c','call':'toString'}],'timeouts':{'quiescence':1}}");
        assertEquals(q("['ok']"), outputs(run1("['c']")));
        assertEquals("create(g)", Fixtures.log().get(0));
    }

    @Test
    public void listenerProxiesReportCallsWithTheFirstArgumentAsDetail() throws Exception {
        configure("{'name':'X','class':'" + TARGET + "',"
                + "'target':{'listeners':[{'type':'" + LISTENER + "','register':'setListener'},"
                + "{'type':'org.droidstar.harness.core.Fixtures$Other','register':'setOther'}]},"
                + "'callins':[{'symbol':'ask','call':'ask'},{'symbol':'other','call':'fireOther','args':[7]},"
                + "{'symbol':'direct','call':'onEvent','on':{'listener':'" + LISTENER + "'},'args':['d']}],"
                + "'callbacks':[{'symbol':'q','from':['onQuery/3']},{'symbol':'onOther'},{'symbol':'d','from':['onEvent/d']}],"
                + "'timeouts':{'quiescence':1}}");
        Map<String, Object> r = run1("['ask','wait','other','wait','direct','wait']");
        assertEquals(q("['ok','onQuery/3','ok','onOther','ok','onEvent/d']"), outputs(r));
        assertEquals("count, big, ratio, letter and name are undeclared", 5L, r.get("ignored"));
        List<String> log = Fixtures.log();
        assertEquals("onQuery=false count=0 big=0 ratio=0.0 letter=0 name=null", log.get(1));
        assertEquals("equals(self)=true equals(other)=false equals(null)=false", log.get(2));
        assertEquals("hashCode=true", log.get(3));
        assertTrue(log.get(4), log.get(4).startsWith("toString=droidstar listener " + LISTENER + "@"));
    }

    @Test
    public void shimsStandInForAbstractTargetsAndListeners() throws Exception {
        Map<String, Object> r = reply("{'id':2,'op':'configure','purpose':{'name':'Task',"
                + "'class':'org.droidstar.harness.core.Fixtures$Task','target':{'new':[5],"
                + "'shim':{'mode':'fast','sleep_ms':'12'}},"
                + "'callins':[{'symbol':'exec','call':'execute'},{'symbol':'cancel','call':'cancel'}],"
                + "'callbacks':[{'symbol':'result','from':['onResult/10']},{'symbol':'onCancelled'}],"
                + "'timeouts':{'quiescence':1}}}");
        assertEquals(q("['org.droidstar.harness.core.Fixtures$Task']"), Json.write(r.get("shims")));
        Map<String, Object> res = run1("['exec','wait','cancel','wait']");
        assertEquals(q("['ok','onResult/10','ok','onCancelled']"), outputs(res));
        assertEquals("TaskShim(5) mode=fast sleep=12", Fixtures.log().get(0));

        r = reply("{'id':3,'op':'configure','purpose':{'name':'X','class':'" + TARGET + "',"
                + "'target':{'listeners':[{'type':'org.droidstar.harness.core.Fixtures$Callback','register':'setCallback'}]},"
                + "'callins':[{'symbol':'cb','call':'fireCallback','args':['z']},"
                + "{'symbol':'direct','call':'handle','on':{'listener':'org.droidstar.harness.core.Fixtures$Callback'},"
                + "'args':['y']}],"
                + "'callbacks':[{'symbol':'handle'}],'timeouts':{'quiescence':1}}}");
        assertEquals(q("['org.droidstar.harness.core.Fixtures$Callback']"), Json.write(r.get("shims")));
        assertEquals(q("['ok','handle','ok','handle']"), outputs(run1("['cb','wait','direct','wait']")));
    }

    @Test
    public void shimConstructorsNeedMatchingArguments() throws Exception {
        Map<String, Object> e = configureError("{'name':'Task','class':'org.droidstar.harness.core.Fixtures$Task',"
                + "'target':{'new':['five']},'callins':[],'timeouts':{'quiescence':1}}");
        assertEquals("bad-argument", e.get("code"));
        assertEquals("target.new[0]", e.get("where"));
    }

    @Test
    public void adaptersFromAJarRegisterShimsForTheirClasses() throws Exception {
        String jar = adapterJar();
        String purpose = "{'name':'Gadget','class':'org.droidstar.harness.testadapter.Gadget','target':{'new':['lbl']},"
                + "'jars':['" + jar + "'],'adapters':['org.droidstar.harness.testadapter.TestAdapter'],"
                + "'callins':[{'symbol':'poke','call':'poke'}],'callbacks':[{'symbol':'poked','from':['onPoke/lbl']}],"
                + "'timeouts':{'quiescence':1}}";
        Map<String, Object> r = reply("{'id':2,'op':'configure','purpose':" + purpose + "}");
        assertEquals(Json.write(r), q("['org.droidstar.harness.testadapter.Gadget']"), Json.write(r.get("shims")));
        assertEquals(q("['ok','onPoke/lbl']"), outputs(run1("['poke','wait']")));

        // relative to the files directory
        Files.copy(new File(jar).toPath(), new File(dir, "adapters.jar").toPath());
        configure(purpose.replace(jar, "adapters.jar"));
        assertEquals(q("['ok','onPoke/lbl']"), outputs(run1("['poke','wait']")));
    }

    @Test
    public void adapterErrors() throws Exception {
        String jar = adapterJar();
        String head = "{'name':'Gadget','class':'org.droidstar.harness.testadapter.Gadget','target':{'new':['lbl']},"
                + "'callins':[],'timeouts':{'quiescence':1},";
        Map<String, Object> e = configureError(head + "'jars':[],'adapters':[]}");
        assertEquals("unknown-class", e.get("code"));
        assertEquals("class", e.get("where"));
        e = configureError(head + "'jars':['" + jar + "'],'adapters':['org.droidstar.harness.testadapter.NotAnAdapter']}");
        assertEquals("unknown-class", e.get("code"));
        assertEquals("adapters[0]", e.get("where"));
        e = configureError(head + "'jars':['/no/such/adapters.jar'],'adapters':[]}");
        assertEquals("unknown-class", e.get("code"));
        assertEquals("jars[0]", e.get("where"));
        e = configureError(head + "'jars':[7],'adapters':[]}");
        assertEquals("bad-request", e.get("code"));
        assertEquals("jars[0]", e.get("where"));
        e = configureError(head + "'jars':['" + jar + "']}");
        assertEquals("unknown-class", e.get("code"));
        assertTrue("a jar without its adapter has no Gadget shim: " + e, ((String) e.get("message")).contains("abstract"));
    }

    /** A jar loads only when its SHA-256 is the one the host sent. */
    @Test
    public void jarDigests() throws Exception {
        String jar = adapterJar();
        java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
        StringBuilder sum = new StringBuilder();
        for (byte x : md.digest(Files.readAllBytes(new File(jar).toPath()))) {
            sum.append(String.format("%02x", x & 0xff));
        }
        String other = "0000000000000000000000000000000000000000000000000000000000000000";
        String head = "{'name':'Gadget','class':'org.droidstar.harness.testadapter.Gadget','target':{'new':['lbl']},"
                + "'callins':[{'symbol':'poke','call':'poke'}],'timeouts':{'quiescence':1},"
                + "'adapters':['org.droidstar.harness.testadapter.TestAdapter'],'jars':['" + jar + "'],";
        configure(head + "'jar_sha256':['" + sum + "']}");
        assertEquals(q("['ok']"), outputs(run1("['poke']")));

        Map<String, Object> e = configureError(head + "'jar_sha256':['" + other + "']}");
        assertEquals("unknown-class", e.get("code"));
        assertEquals("jars[0]", e.get("where"));
        assertEquals("the jar " + jar + " is not the one the host staged: its SHA-256 is " + sum + ", the host's " + other,
                e.get("message"));
        e = configureError(head + "'jar_sha256':['" + sum.toString().toUpperCase() + "']}");
        assertEquals("bad-request", e.get("code"));
        assertEquals("jars[0]", e.get("where"));
        assertEquals("jar_sha256[0] must be a SHA-256 in 64 lowercase hex digits, not \"" + sum.toString().toUpperCase() + "\"",
                e.get("message"));
        e = configureError(head + "'jar_sha256':[]}");
        assertEquals("bad-request", e.get("code"));
        assertEquals("jars", e.get("where"));
        assertEquals("\"jar_sha256\" has 0 digests for 1 jars", e.get("message"));
        // the digest is checked before the jar is loaded: a mismatch loads nothing
        e = configureError(head.replace("'jars':['" + jar + "'],", "'jars':['/no/such.jar'],") + "'jar_sha256':[7]}");
        assertEquals("bad-request", e.get("code"));
        assertEquals("jar_sha256[0] must be a SHA-256 in 64 lowercase hex digits, not a number", e.get("message"));
    }

    static String adapterJar() {
        String jar = System.getProperty("droidstar.test.adapterJar");
        assertNotNull("run the tests with -Ddroidstar.test.adapterJar=PATH (make junit does)", jar);
        assertTrue(jar, new File(jar).isFile());
        return new File(jar).getAbsolutePath();
    }

    @Test
    public void methodsOfNonPublicClassesAreCalledThroughTheirPublicInterface() throws Exception {
        // Collections.unmodifiableList returns a private class; size() comes from java.util.List.
        configure("{'name':'X','class':'java.util.List','target':{'factory':{'class':'java.util.Arrays','method':'asList',"
                + "'args':['a','b']}},'callins':[{'symbol':'size','call':'size'},{'symbol':'get','call':'get',"
                + "'args':[5]}],'timeouts':{'quiescence':1}}");
        Map<String, Object> r = run1("['size','get']");
        assertEquals(q("['ok','err']"), outputs(r));
        assertEquals("java.lang.ArrayIndexOutOfBoundsException", ((Map<?, ?>) r.get("err")).get("exception"));
        assertEquals(Arrays.asList("size", "get"), ((Map<?, ?>) Json.parse(send(
                "{'id':1,'op':'configure','purpose':{'name':'X','class':'java.util.List','target':{'factory':{'class':"
                        + "'java.util.Collections','method':'emptyList'}},'callins':[{'symbol':'size','call':'size'},"
                        + "{'symbol':'get','call':'get','args':[0]}],'timeouts':{'quiescence':1}}}")))
                .get("callins"));
        assertEquals(q("['ok','err']"), outputs(run1("['size','get']")));
        // StringBuilder's length() and setLength(int) are javac's access bridges to a package-private superclass
        configure("{'name':'X','class':'java.lang.StringBuilder','target':{'new':['abc']},'callins':[{'symbol':'len',"
                + "'call':'length'},{'symbol':'cut','call':'setLength','args':[1]},{'symbol':'bad','call':"
                + "'setLength','args':[-1]}],'timeouts':{'quiescence':1}}");
        assertEquals(q("['ok','ok','ok','err']"), outputs(run1("['len','cut','len','bad']")));
    }
}
