package org.droidstar.harness.resolve;

import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.droidstar.harness.android.AndroidPlatform;
import org.droidstar.harness.core.Jars;
import org.droidstar.harness.core.MainThread;
import org.droidstar.harness.core.Platform;
import org.droidstar.harness.core.ShimRegistry;
import org.droidstar.harness.core.Workspace;

/**
 * A device as far as resolving a purpose needs one, on the host JVM: the
 * Android layer's built-in shims, and the purpose's jars standing for the
 * JVM class files they were dexed from (the host cannot load dex). Nothing
 * here runs a query, so there is no main thread and no context object.
 */
final class ResolvePlatform implements Platform, Jars.Loader {
    private final Workspace workspace;
    private final URL[] classpath;
    private final List<URLClassLoader> loaders = new ArrayList<URLClassLoader>();

    ResolvePlatform(File filesDir, URL[] classpath) {
        this.workspace = Workspace.direct(filesDir);
        this.classpath = classpath.clone();
    }

    @Override
    public String name() {
        return "android";
    }

    /** android.jar's level: the API the purposes are resolved against. */
    @Override
    public int sdk() {
        return 23;
    }

    @Override
    public String release() {
        return "6.0";
    }

    @Override
    public String model() {
        return "android.jar";
    }

    @Override
    public String manufacturer() {
        return "droidstar";
    }

    @Override
    public MainThread mainThread() {
        return new MainThread() {
            @Override
            public <T> T call(Callable<T> task, long timeoutMs) {
                throw new UnsupportedOperationException("resolving a purpose runs nothing on a main thread");
            }
        };
    }

    @Override
    public Workspace workspace() {
        return workspace;
    }

    @Override
    public Object context() {
        return null;
    }

    /**
     * The jars (placeholders under the files directory, named as on a
     * device) stand for the class path given on the request.
     */
    @Override
    public Jars.Loader jarLoader() {
        return this;
    }

    @Override
    public ClassLoader load(List<File> jars, Workspace w, ClassLoader parent) {
        URLClassLoader l = new URLClassLoader(classpath, parent);
        loaders.add(l);
        return l;
    }

    /** Closes the class loaders of the jars. */
    void close() throws IOException {
        for (URLClassLoader l : loaders) {
            l.close();
        }
        loaders.clear();
    }

    @Override
    public void registerShims(ShimRegistry registry) {
        AndroidPlatform.registerBuiltIns(registry);
    }
}
