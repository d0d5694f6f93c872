package org.droidstar.harness.jvm;

import java.io.File;
import java.nio.file.Files;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Timer;
import java.util.TimerTask;

import org.droidstar.harness.core.DaemonMainThread;
import org.droidstar.harness.core.Jars;
import org.droidstar.harness.core.MainThread;
import org.droidstar.harness.core.Platform;
import org.droidstar.harness.core.ProbeHooks;
import org.droidstar.harness.core.ShimRegistry;
import org.droidstar.harness.core.Workspace;

/**
 * The host JVM as a harness platform: callins run on one dedicated daemon
 * thread ("droidstar-main"), adapter jars load through a URLClassLoader, and
 * the JVM shims stand in for java.util.TimerTask and
 * java.util.concurrent.FutureTask. For the probe op, the JDK stands in for
 * the framework: an uncaught-exception handler is the listener the JVM
 * calls, java.util.Timer the delayed callback, and there is no microphone.
 */
public final class JvmPlatform implements Platform, ProbeHooks {
    private final Workspace workspace;
    private final DaemonMainThread mainThread = new DaemonMainThread("droidstar-main");

    public JvmPlatform(Workspace workspace) {
        this.workspace = workspace;
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
    public Workspace workspace() {
        return workspace;
    }

    @Override
    public Object context() {
        return null;
    }

    @Override
    public Jars.Loader jarLoader() {
        return Jars.CLASS_FILES;
    }

    @Override
    public void registerShims(ShimRegistry registry) {
        registry.register("java.util.TimerTask", JvmShims.TimerTaskShim.class);
        registry.register("java.util.concurrent.FutureTask", JvmShims.FutureTaskShim.class);
    }

    @Override
    public void unlink(File f) throws Exception {
        Files.delete(f.toPath());
    }

    @Override
    public String frameworkListener() {
        return "java.lang.Thread$UncaughtExceptionHandler";
    }

    @Override
    public void fireFrameworkListener(Object listener) {
        Thread t = new Thread(new Runnable() {
            @Override
            public void run() {
                throw new IllegalStateException("droidstar probe: an exception for the handler");
            }
        }, "droidstar-probe");
        t.setDaemon(true);
        t.setUncaughtExceptionHandler((Thread.UncaughtExceptionHandler) listener);
        t.start();
    }

    private Timer timer;

    @Override
    public synchronized List<CallbackSource> callbackSources() {
        if (timer == null) {
            timer = new Timer("droidstar-probe-timer", true);
        }
        final Timer t = timer;
        return Collections.<CallbackSource>singletonList(new CallbackSource() {
            @Override
            public String name() {
                return "java.util.Timer";
            }

            @Override
            public long delayMs() {
                return 50;
            }

            @Override
            public void start(final Runnable done) {
                t.schedule(new TimerTask() {
                    @Override
                    public void run() {
                        done.run();
                    }
                }, delayMs());
            }
        });
    }

    @Override
    public Map<String, Object> recordAudio(int ms) {
        return null;
    }

    @Override
    public Boolean holds(String permission) {
        return null;
    }

    @Override
    public List<String> pairedBluetoothDevices() {
        return null;
    }

    /** Stops the main thread (the JVM exits anyway: it is a daemon). */
    public void shutdown() {
        mainThread.shutdown();
    }
}
