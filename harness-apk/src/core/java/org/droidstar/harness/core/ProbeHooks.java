package org.droidstar.harness.core;

import java.io.File;
import java.util.List;
import java.util.Map;

/**
 * What the probe op (Probe, PROTOCOL.md "probe") needs from the platform
 * beyond Platform: the things only the framework can do. A Platform that
 * does not implement it is probed for its files, jar loading and URLs
 * only, and answers "not available" for the rest.
 */
public interface ProbeHooks {
    /**
     * Deletes a file with the platform's unlink, so that a failure names
     * its errno (File.delete only says false).
     */
    void unlink(File f) throws Exception;

    /** A listener interface of the framework, which Probe implements with a proxy. */
    String frameworkListener();

    /**
     * Registers a proxy of frameworkListener() so that the framework calls
     * it once; runs on the main thread.
     */
    void fireFrameworkListener(Object listener) throws Exception;

    /** The main-looper callbacks to measure: CountDownTimer, AsyncTask; java.util.Timer on the JVM. */
    List<CallbackSource> callbackSources();

    /**
     * Records from the microphone for ms milliseconds and returns "peak"
     * (the largest absolute 16-bit sample) and "rms" (a Double); null when
     * the platform has no microphone API (the JVM). Throws when recording
     * fails.
     */
    Map<String, Object> recordAudio(int ms) throws Exception;

    /** Whether the app holds a permission now; null when the platform cannot tell. */
    Boolean holds(String permission);

    /**
     * The addresses of the Bluetooth devices paired with this one, as
     * BluetoothDevice.getAddress writes them; null where the platform has
     * no Bluetooth API (the JVM). Throws when it cannot tell (no adapter,
     * Bluetooth off: Android lists no paired device then).
     */
    List<String> pairedBluetoothDevices() throws Exception;

    /** One kind of framework callback whose delivery latency Probe measures. */
    interface CallbackSource {
        /** The framework class, as the reply names it. */
        String name();

        /** How long after start() the framework is asked to call back. */
        long delayMs();

        /**
         * Asks the framework for one callback delayMs() from now; the
         * callback runs done. Called on the main thread.
         */
        void start(Runnable done) throws Exception;
    }
}
