package org.droidstar.harness.jvm;

import java.util.concurrent.Executor;

/**
 * Executors that purposes reach with {"constant": ...} literals, so that a
 * callin can start a task asynchronously: for example
 * {"symbol":"start","call":"execute",
 *  "on":{"constant":"org.droidstar.harness.jvm.JvmExecutors.NEW_THREAD"},
 *  "args":[{"target":true}]} runs the instance under test (a Runnable such
 * as a FutureTask) on a thread of its own.
 */
public final class JvmExecutors {
    private JvmExecutors() {
    }

    /** Runs every task on a new daemon thread. */
    public static final Executor NEW_THREAD = new Executor() {
        @Override
        public void execute(Runnable task) {
            Thread t = new Thread(task, "droidstar-task");
            t.setDaemon(true);
            t.start();
        }
    };
}
