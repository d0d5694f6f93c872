package org.droidstar.harness.jvm;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;

import org.droidstar.harness.core.MainThread;
import org.droidstar.harness.core.Platform;
import org.droidstar.harness.core.PostingMainThread;
import org.droidstar.harness.core.ShimRegistry;

/**
 * The host JVM as a harness platform: callins run on one dedicated daemon
 * thread ("droidstar-main"), adapter jars load through a URLClassLoader, and
 * the JVM shims stand in for java.util.TimerTask and
 * java.util.concurrent.FutureTask.
 */
public final class JvmPlatform implements Platform {
    private final File filesDir;
    private final ExecutorService main;
    private final MainThread mainThread;
    private volatile Thread mainThreadItself;

    public JvmPlatform(File filesDir) {
        this.filesDir = filesDir;
        this.main = Executors.newSingleThreadExecutor(new ThreadFactory() {
            @Override
            public Thread newThread(Runnable r) {
                Thread t = new Thread(r, "droidstar-main");
                t.setDaemon(true);
                mainThreadItself = t;
                return t;
            }
        });
        this.mainThread = new PostingMainThread() {
            @Override
            protected boolean post(Runnable task) {
                try {
                    main.execute(task);
                    return true;
                } catch (RejectedExecutionException e) {
                    return false;
                }
            }

            @Override
            protected boolean onMainThread() {
                return Thread.currentThread() == mainThreadItself;
            }
        };
    }

    @Override
    public String name() {
        return "jvm";
    }

    @Override
    public int sdk() {
        return 0;
    }

    @Override
    public String release() {
        return System.getProperty("java.version", "");
    }

    @Override
    public String model() {
        return System.getProperty("java.vm.name", "");
    }

    @Override
    public String manufacturer() {
        return System.getProperty("java.vm.vendor", "");
    }

    @Override
    public MainThread mainThread() {
        return mainThread;
    }

    @Override
    public File filesDir() {
        return filesDir;
    }

    @Override
    public Object context() {
        return null;
    }

    @Override
    public ClassLoader loadJars(List<File> jars, ClassLoader parent) throws Exception {
        URL[] urls = new URL[jars.size()];
        for (int i = 0; i < urls.length; i++) {
            urls[i] = jars.get(i).toURI().toURL();
        }
        return new URLClassLoader(urls, parent);
    }

    @Override
    public void registerShims(ShimRegistry registry) {
        registry.register("java.util.TimerTask", JvmShims.TimerTaskShim.class);
        registry.register("java.util.concurrent.FutureTask", JvmShims.FutureTaskShim.class);
    }

    /** Stops the main thread (the JVM exits anyway: it is a daemon). */
    public void shutdown() {
        main.shutdownNow();
    }
}
