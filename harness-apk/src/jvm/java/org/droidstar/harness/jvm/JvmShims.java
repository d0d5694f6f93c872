package org.droidstar.harness.jvm;

import java.util.TimerTask;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;

import org.droidstar.harness.core.ShimContext;

/** The JVM's built-in shims. */
public final class JvmShims {
    private JvmShims() {
    }

    /** java.util.TimerTask: run() reports "run". */
    public static final class TimerTaskShim extends TimerTask {
        private final ShimContext ctx;

        public TimerTaskShim(ShimContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public void run() {
            ctx.callback("run");
        }
    }

    /**
     * java.util.concurrent.FutureTask of a callable that sleeps the shim
     * option sleep_ms (default 100) and returns "done", or throws when the
     * option fail is true. The done() hook reports "done" with the detail
     * "cancelled" when the task was cancelled, else "completed".
     */
    public static final class FutureTaskShim extends FutureTask<String> {
        private final ShimContext ctx;

        public FutureTaskShim(ShimContext ctx) {
            super(work(ctx.longOption("sleep_ms", 100), Boolean.parseBoolean(ctx.option("fail", "false"))));
            this.ctx = ctx;
        }

        private static Callable<String> work(final long sleepMs, final boolean fail) {
            return new Callable<String>() {
                @Override
                public String call() throws Exception {
                    if (sleepMs > 0) {
                        Thread.sleep(sleepMs);
                    }
                    if (fail) {
                        throw new Exception("the FutureTask shim fails as its option fail says");
                    }
                    return "done";
                }
            };
        }

        @Override
        protected void done() {
            ctx.callback("done", isCancelled() ? "cancelled" : "completed");
        }
    }
}
