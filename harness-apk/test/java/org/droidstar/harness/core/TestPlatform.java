package org.droidstar.harness.core;

import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The platform of the core's tests: a main thread of its own ("test-main"),
 * a files directory, a context object, the fixtures' shims, and switches
 * that make it misbehave. For the probe op: Runnable is the "framework"
 * listener (run on a thread of its own), a scheduled executor the delayed
 * callback, and the microphone and permissions are what the test sets.
 */
public final class TestPlatform implements Platform, ProbeHooks {
    public static final String MAIN = "test-main";

    private final File filesDir;
    private final DaemonMainThread main = new DaemonMainThread(MAIN);
    private final MainThread mainThread;
    /** The value of {"context": true}. */
    public volatile Object context = "the test context";
    /**
     * When positive, how long a call on the main thread may take, instead
     * of the timeout the runner asks for (at least 10 s), so that a test of
     * a blocked main thread ends quickly.
     */
    public volatile long mainThreadTimeoutMs;

    public TestPlatform(File filesDir) {
        this.filesDir = filesDir;
        mainThread = new MainThread() {
            @Override
            public <T> T call(Callable<T> task, long timeoutMs) throws Exception {
                long override = mainThreadTimeoutMs;
                return main.call(task, override > 0 ? override : timeoutMs);
            }
        };
    }

    public void shutdown() {
        main.shutdown();
        timers.shutdownNow();
    }

    @Override
    public String name() {
        return "test";
    }

    @Override
    public int sdk() {
        return 42;
    }

    @Override
    public String release() {
        return "1.2";
    }

    @Override
    public String model() {
        return "bench";
    }

    @Override
    public String manufacturer() {
        return "droidstar";
    }

    @Override
    public MainThread mainThread() {
        return mainThread;
    }

    @Override
    public Workspace workspace() {
        return Workspace.direct(filesDir, staging);
    }

    @Override
    public Object context() {
        return context;
    }

    @Override
    public Jars.Loader jarLoader() {
        return Jars.CLASS_FILES;
    }

    @Override
    public void registerShims(ShimRegistry registry) {
        registry.register(Fixtures.Task.class.getName(), Fixtures.TaskShim.class);
        registry.register(Fixtures.Callback.class.getName(), Fixtures.CallbackShim.class);
        registry.register(SchemaFixtures.AbstractReceiver.class.getName(), SchemaFixtures.ReceiverShim.class);
    }

    // ProbeHooks: what each probe test sets.

    /** The staging folder the probe reports on; null for none. */
    public volatile File staging;
    /** Whether the "framework" calls the proxy listener. */
    public volatile boolean listenerFires = true;
    /** Whether the scheduled callbacks ever come. */
    public volatile boolean callbacksFire = true;
    /** What recordAudio answers (null: no microphone API). */
    public volatile Map<String, Object> audio;
    /** What recordAudio throws, when set. */
    public volatile RuntimeException audioFailure;
    /** What holds answers for every permission (null: cannot tell). */
    public volatile Boolean holds;
    /** What pairedBluetoothDevices answers (null: no Bluetooth API). */
    public volatile List<String> paired;
    /** What pairedBluetoothDevices throws, when set. */
    public volatile RuntimeException pairedFailure;

    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(new ThreadFactory() {
        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, "test-timer");
            t.setDaemon(true);
            return t;
        }
    });

    @Override
    public void unlink(File f) throws Exception {
        java.nio.file.Files.delete(f.toPath());
    }

    @Override
    public String frameworkListener() {
        return "java.lang.Runnable";
    }

    @Override
    public void fireFrameworkListener(final Object listener) {
        if (!listenerFires) {
            return;
        }
        Thread t = new Thread((Runnable) listener, "test-framework");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public List<CallbackSource> callbackSources() {
        List<CallbackSource> out = new ArrayList<CallbackSource>();
        out.add(new CallbackSource() {
            @Override
            public String name() {
                return "test.Timer";
            }

            @Override
            public long delayMs() {
                return 10;
            }

            @Override
            public void start(Runnable done) {
                if (callbacksFire) {
                    timers.schedule(done, delayMs(), TimeUnit.MILLISECONDS);
                }
            }
        });
        return Collections.unmodifiableList(out);
    }

    @Override
    public Map<String, Object> recordAudio(int ms) {
        if (audioFailure != null) {
            throw audioFailure;
        }
        return audio;
    }

    @Override
    public Boolean holds(String permission) {
        return holds;
    }

    @Override
    public List<String> pairedBluetoothDevices() {
        if (pairedFailure != null) {
            throw pairedFailure;
        }
        return paired;
    }
}
