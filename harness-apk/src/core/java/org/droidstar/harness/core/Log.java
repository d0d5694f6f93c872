package org.droidstar.harness.core;

/**
 * The harness's log. It goes to standard error by default (the JVM
 * harness's log channel; logcat's System.err on Android); a platform may
 * install its own sink.
 */
public final class Log {
    /** Where log lines go. */
    public interface Sink {
        void log(String line);
    }

    private static volatile Sink sink = new Sink() {
        @Override
        public void log(String line) {
            System.err.println("droidstar-harness: " + line);
        }
    };

    private Log() {
    }

    public static void setSink(Sink s) {
        if (s != null) {
            sink = s;
        }
    }

    public static void log(String line) {
        try {
            sink.log(line);
        } catch (RuntimeException e) {
            // a broken log must not break the harness
        }
    }
}
