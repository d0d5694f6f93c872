package org.droidstar.harness.android;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.database.sqlite.SQLiteOpenHelper;
import android.media.MediaCodec;
import android.os.AsyncTask;
import android.os.Build;
import android.os.CountDownTimer;
import android.os.FileObserver;

import dalvik.system.DexClassLoader;

import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.Map;

import org.droidstar.harness.core.Jars;
import org.droidstar.harness.core.MainThread;
import org.droidstar.harness.core.Platform;
import org.droidstar.harness.core.ProbeHooks;
import org.droidstar.harness.core.ShimRegistry;
import org.droidstar.harness.core.Workspace;

/**
 * The harness core's view of an Android device: Build's identity, the main
 * looper as the callins' thread, the target context, the run's private
 * folders (Workspace), DexClassLoader for adapter jars, and the built-in shims for
 * abstract framework classes.
 */
public final class AndroidPlatform implements Platform, ProbeHooks {
    private final Context context;
    private final Workspace workspace;
    private final MainThread mainThread = new LooperMainThread();
    private final AndroidProbes probes;

    /**
     * @param context   the instrumentation's target context
     * @param workspace the run's private folders
     */
    public AndroidPlatform(Context context, Workspace workspace) {
        this.context = context;
        this.workspace = workspace;
        this.probes = new AndroidProbes(context);
        BroadcastReceiverShim.setContext(context);
    }

    @Override
    public String name() {
        return "android";
    }

    @Override
    public int sdk() {
        return Build.VERSION.SDK_INT;
    }

    @Override
    public String release() {
        return Build.VERSION.RELEASE;
    }

    @Override
    public String model() {
        return Build.MODEL;
    }

    @Override
    public String manufacturer() {
        return Build.MANUFACTURER;
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
        return context;
    }

    /**
     * Adapter jars must hold dex code (classes.dex), as built by dx or d8;
     * plain JVM class files do not load on ART.
     */
    private static final Jars.Loader DEX = new Jars.Loader() {
        @Override
        public ClassLoader load(List<File> jars, Workspace workspace, ClassLoader parent) throws IOException {
            StringBuilder path = new StringBuilder();
            for (File jar : jars) {
                if (path.length() > 0) {
                    path.append(File.pathSeparator);
                }
                path.append(jar.getAbsolutePath());
            }
            // Ignored from Android 8 (API 26), where ART picks its own place.
            File optimized = workspace.codeFolder("oat");
            return new DexClassLoader(path.toString(), optimized.getAbsolutePath(), null, parent);
        }
    };

    @Override
    public Jars.Loader jarLoader() {
        return DEX;
    }

    @Override
    public void registerShims(ShimRegistry registry) {
        registerBuiltIns(registry);
    }

    /**
     * The built-in shims, without a platform object: the host JVM's
     * resolution check (src/resolve) registers them with no Android
     * runtime. Naming the classes loads them but runs nothing of them.
     */
    public static void registerBuiltIns(ShimRegistry registry) {
        registry.register(AsyncTask.class.getName(), AsyncTaskShim.class);
        registry.register(CountDownTimer.class.getName(), CountDownTimerShim.class);
        registry.register(FileObserver.class.getName(), FileObserverShim.class);
        registry.register(SQLiteOpenHelper.class.getName(), SQLiteOpenHelperShim.class);
        registry.register(MediaCodec.Callback.class.getName(), MediaCodecCallbackShim.class);
        registry.register(BroadcastReceiver.class.getName(), BroadcastReceiverShim.class);
    }

    // The probe op's hooks (AndroidProbes).

    @Override
    public void unlink(File f) throws Exception {
        probes.unlink(f);
    }

    @Override
    public String frameworkListener() {
        return AndroidProbes.LISTENER;
    }

    @Override
    public void fireFrameworkListener(Object listener) {
        probes.fire(listener);
    }

    @Override
    public List<CallbackSource> callbackSources() {
        return probes.sources();
    }

    @Override
    public Map<String, Object> recordAudio(int ms) {
        return probes.record(ms);
    }

    @Override
    public Boolean holds(String permission) {
        return Boolean.valueOf(probes.holds(permission));
    }

    @Override
    public List<String> pairedBluetoothDevices() {
        return probes.pairedBluetoothDevices();
    }
}
