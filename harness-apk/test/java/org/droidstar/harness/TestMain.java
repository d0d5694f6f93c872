package org.droidstar.harness;

import java.io.File;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.droidstar.harness.core.Log;
import org.junit.Test;
import org.junit.runner.JUnitCore;
import org.junit.runner.Result;
import org.junit.runner.notification.Failure;

/**
 * Runs every JUnit 4 test class under the given test classes directory
 * (classes named *Test with @Test methods), prints each failure, and ends
 * with the line "N passed, N failed". Exits 1 when a test failed. The
 * harness's log is silent unless the environment sets DROIDSTAR_TEST_LOG.
 */
public final class TestMain {
    private TestMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: TestMain TEST-CLASSES-DIR");
            System.exit(2);
        }
        if (System.getenv("DROIDSTAR_TEST_LOG") == null) {
            // the harness logs every configure and reset error; set DROIDSTAR_TEST_LOG to see it
            Log.setSink(new Log.Sink() {
                @Override
                public void log(String line) {
                }
            });
        }
        File root = new File(args[0]);
        List<String> names = new ArrayList<String>();
        collect(root, "", names);
        Collections.sort(names);
        List<Class<?>> classes = new ArrayList<Class<?>>();
        for (String n : names) {
            Class<?> c = Class.forName(n);
            if (!Modifier.isAbstract(c.getModifiers()) && hasTests(c)) {
                classes.add(c);
            }
        }
        Result result = new JUnitCore().run(classes.toArray(new Class<?>[0]));
        for (Failure f : result.getFailures()) {
            System.out.println("FAIL " + f.getTestHeader());
            System.out.println(f.getTrace());
        }
        int failed = result.getFailureCount();
        int passed = result.getRunCount() - failed;
        System.out.println(classes.size() + " test classes, " + result.getIgnoreCount() + " ignored, "
                + result.getRunTime() + " ms");
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }

    private static void collect(File dir, String pkg, List<String> out) {
        File[] fs = dir.listFiles();
        if (fs == null) {
            return;
        }
        for (File f : fs) {
            String n = f.getName();
            if (f.isDirectory()) {
                collect(f, pkg + n + ".", out);
            } else if (n.endsWith("Test.class")) {
                out.add(pkg + n.substring(0, n.length() - ".class".length()));
            }
        }
    }

    private static boolean hasTests(Class<?> c) {
        for (Method m : c.getMethods()) {
            if (m.isAnnotationPresent(Test.class)) {
                return true;
            }
        }
        return false;
    }
}
