package org.droidstar.harness.core;

import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Classes that the tests' purposes learn. They log what happens to them in {@link #log}. */
public final class Fixtures {
    private Fixtures() {
    }

    public static final List<String> log = Collections.synchronizedList(new ArrayList<String>());
    /** The listener the last Target got, so that tests can fire callbacks themselves. */
    public static volatile Listener lastListener;
    static volatile CountDownLatch strayRelease;
    static volatile CountDownLatch strayDone;
    /** Holds Target.block until released; reset releases it. */
    static volatile CountDownLatch unblock = new CountDownLatch(1);

    public static void reset() {
        unblock.countDown();
        unblock = new CountDownLatch(1);
        log.clear();
        lastListener = null;
        strayRelease = null;
        strayDone = null;
    }

    public static List<String> log() {
        synchronized (log) {
            return new ArrayList<String>(log);
        }
    }

    public interface Listener {
        void onEvent(String what);

        void onError(String why);

        void onPing();

        boolean onQuery(int x);

        int count();

        long big();

        double ratio();

        char letter();

        String name();
    }

    public interface Other {
        void onOther(int n);
    }

    public enum Mode {
        FAST, SLOW
    }

    public static class Target {
        public static final int FLAG_A = 1;
        public static final int FLAG_B = 4;
        public static final long LONG_FLAG = 1L << 40;
        public static final String NAME = "constant name";
        public static final Mode DEFAULT_MODE = Mode.SLOW;
        public static int notFinal = 7;
        public final int instanceField = 3;

        private Listener listener;
        private Other other;
        private Callback callback;

        public Target() {
            log.add("new Target() on " + Thread.currentThread().getName());
        }

        public Target(String s) {
            if ("boom".equals(s)) {
                throw new IllegalArgumentException("boom in the constructor");
            }
            log.add("new Target(" + s + ")");
        }

        public static Target create(String s) {
            log.add("create(" + s + ")");
            return new Target();
        }

        public static Target createNull() {
            return null;
        }

        public void setListener(Listener l) {
            listener = l;
            lastListener = l;
        }

        public void setOther(Other o) {
            other = o;
        }

        public void setCallback(Callback c) {
            callback = c;
        }

        public void fire(String what) {
            listener.onEvent(what);
        }

        public void fire2(String a, String b) {
            listener.onEvent(a);
            listener.onEvent(b);
        }

        public void fireError() {
            listener.onError("boom");
        }

        public void ping() {
            listener.onPing();
        }

        public void fireOther(int n) {
            other.onOther(n);
        }

        public void fireCallback(String s) {
            callback.handle(s);
        }

        public void fail() {
            throw new IllegalStateException("nope");
        }

        public void failChecked() throws Exception {
            throw new java.io.IOException("checked nope");
        }

        public void failError() {
            throw new AssertionError("an error, not an exception");
        }

        public void failNullMessage() {
            throw new UnsupportedOperationException();
        }

        /** Fires on a thread of its own, at once. */
        public void asyncFire(final String what) {
            final Listener l = listener;
            new Thread(new Runnable() {
                @Override
                public void run() {
                    l.onEvent(what);
                }
            }, "fixture-async").start();
        }

        /** A callback of this query that will arrive during the next query (releaseStraggler). */
        public void armStraggler() {
            final Listener l = listener;
            final CountDownLatch release = new CountDownLatch(1);
            final CountDownLatch done = new CountDownLatch(1);
            strayRelease = release;
            strayDone = done;
            new Thread(new Runnable() {
                @Override
                public void run() {
                    try {
                        if (release.await(30, TimeUnit.SECONDS)) {
                            l.onEvent("stray");
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    done.countDown();
                }
            }, "fixture-straggler").start();
        }

        public void releaseStraggler() throws InterruptedException {
            strayRelease.countDown();
            if (!strayDone.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the straggler did not fire");
            }
        }

        /** Calls the listener's non-void methods and Object methods and logs their answers. */
        public void ask() {
            Listener l = listener;
            log.add("onQuery=" + l.onQuery(3) + " count=" + l.count() + " big=" + l.big() + " ratio=" + l.ratio()
                    + " letter=" + (int) l.letter() + " name=" + l.name());
            log.add("equals(self)=" + l.equals(l) + " equals(other)=" + l.equals("x") + " equals(null)="
                    + l.equals(null));
            log.add("hashCode=" + (l.hashCode() == System.identityHashCode(l)));
            log.add("toString=" + l.toString());
        }

        public void where() {
            log.add("on " + Thread.currentThread().getName());
        }

        public void close() {
            log.add("close");
        }

        /** Blocks the calling (main) thread until the test releases it. */
        public void block() throws InterruptedException {
            log.add("block");
            unblock.await();
        }

        public void closeBadly() {
            throw new IllegalStateException("dispose fails");
        }

        public void start(int times) {
            log.add("start(" + times + ")");
        }

        public void take(Listener l) {
            log.add("take listener " + (l == listener));
        }

        public void takeTarget(Target t) {
            log.add("take target " + (t == this));
        }

        public void takeContext(Object c) {
            log.add("take context " + c);
        }

        public void takeFile(String path) {
            log.add("string path " + path);
        }

        public void takeRealFile(File f) {
            log.add("file " + f.getPath());
        }

        public void takeMode(Mode m) {
            log.add("mode " + m);
        }

        public void varargs(String... xs) {
            log.add("varargs " + xs.length);
        }
    }

    /** Overloads that resolution has to tell apart. */
    public static class Overloads {
        public void m(int x) {
            log.add("m(int " + x + ")");
        }

        public void m(long x) {
            log.add("m(long " + x + ")");
        }

        public void m(double x) {
            log.add("m(double " + x + ")");
        }

        public void m(String x) {
            log.add("m(String " + x + ")");
        }

        public void m(boolean x) {
            log.add("m(boolean " + x + ")");
        }

        public void f(float x) {
            log.add("f(float " + x + ")");
        }

        public void s(short x) {
            log.add("s(short " + x + ")");
        }

        public void b(byte x) {
            log.add("b(byte " + x + ")");
        }

        public void boxed(Integer x) {
            log.add("boxed(Integer " + x + ")");
        }

        public void boxedLong(Long x) {
            log.add("boxedLong(Long " + x + ")");
        }

        public void obj(Object x) {
            log.add("obj(" + (x == null ? "null" : x.getClass().getSimpleName() + " " + x) + ")");
        }

        public void ch(char c) {
            log.add("ch(" + c + ")");
        }

        public void flags(int f) {
            log.add("flags(" + f + ")");
        }

        public void lflags(long f) {
            log.add("lflags(" + f + ")");
        }

        public void amb(String a, Object b) {
            log.add("amb(String, Object)");
        }

        public void amb(Object a, String b) {
            log.add("amb(Object, String)");
        }

        public void nul(String s) {
            log.add("nul(String)");
        }

        public void nul(File f) {
            log.add("nul(File)");
        }

        public void path(String s) {
            log.add("path(String)");
        }

        public void path(File f) {
            log.add("path(File)");
        }

        public void onlyInt(int x) {
            log.add("onlyInt(" + x + ")");
        }

        public void two(int a, String b) {
            log.add("two(" + a + ", " + b + ")");
        }
    }

    /** An abstract framework class that a shim stands in for (like AsyncTask). */
    public abstract static class Task {
        protected final int n;

        public Task(int n) {
            this.n = n;
        }

        public void execute() {
            onResult(n * 2);
        }

        public void cancel() {
            onCancelled();
        }

        protected abstract void onResult(int r);

        protected void onCancelled() {
        }
    }

    public static final class TaskShim extends Task {
        private final ShimContext ctx;

        public TaskShim(ShimContext ctx, int n) {
            super(n);
            this.ctx = ctx;
            log.add("TaskShim(" + n + ") mode=" + ctx.option("mode", "none") + " sleep=" + ctx.longOption("sleep_ms", -1));
        }

        @Override
        protected void onResult(int r) {
            ctx.callback("onResult", String.valueOf(r));
        }

        @Override
        protected void onCancelled() {
            ctx.callback("onCancelled");
        }
    }

    /** An abstract listener class that a shim stands in for. */
    public abstract static class Callback {
        public abstract void handle(String s);
    }

    public static final class CallbackShim extends Callback {
        private final ShimContext ctx;

        public CallbackShim(ShimContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public void handle(String s) {
            ctx.callback("handle", s);
        }
    }

    /** An abstract class with no shim. */
    public abstract static class Unshimmed {
        public abstract void go();
    }

    /** A class whose only constructor throws. */
    public static class Exploding {
        public Exploding() {
            throw new IllegalStateException("cannot make me");
        }
    }
}
