package org.droidstar.harness.shimgen;

import java.io.IOException;

/** Classes the generator makes shims for, and a class under test that calls them. */
public final class ShimFixtures {
    private ShimFixtures() {
    }

    /** An abstract listener class: two abstract callbacks, a concrete on* one, and methods no shim overrides. */
    public abstract static class Watcher {
        protected Watcher() {
        }

        public abstract void onPing(String what);

        /** Answered by the purpose's returns or throws, as a proxy's method would be. */
        public abstract boolean decide(int n) throws IOException;

        /** A callback by its name: the shim reports it instead of running this body. */
        public void onIdle() {
            throw new IllegalStateException("the shim overrides onIdle");
        }

        /** Not a callback: the shim leaves it alone. */
        public String helper() {
            return "helper";
        }

        /** Final: named as a callback, the generator refuses it. */
        public final void onFinal() {
        }
    }

    /** The interface twin of Watcher, for a proxy to answer the same calls. */
    public interface WatcherInterface {
        void onPing(String what);

        boolean decide(int n) throws IOException;

        void onIdle();
    }

    /** The class under test: each callin calls its watcher (or its interface twin) at once. */
    public static final class Station {
        private Watcher watcher;
        private WatcherInterface twin;

        public void setWatcher(Watcher w) {
            watcher = w;
        }

        public void setTwin(WatcherInterface w) {
            twin = w;
        }

        public void ping() {
            if (watcher != null) {
                watcher.onPing("hi");
            } else {
                twin.onPing("hi");
            }
        }

        public void idle() {
            if (watcher != null) {
                watcher.onIdle();
            } else {
                twin.onIdle();
            }
        }

        /** Throws when the watcher says no (or throws itself). */
        public void ask() throws IOException {
            boolean yes = watcher != null ? watcher.decide(3) : twin.decide(3);
            if (!yes) {
                throw new IllegalStateException("the watcher said no");
            }
        }

        public String helper() {
            return watcher.helper();
        }
    }

    /** No constructor without parameters. */
    public abstract static class NeedsArgs {
        protected NeedsArgs(int n, String s) {
        }

        public NeedsArgs(long n) {
        }

        public abstract void onDone();
    }

    /** Only a package-private constructor. */
    public abstract static class Sealed {
        Sealed() {
        }

        public abstract void onDone();
    }

    /** An abstract method no class outside this package can implement. */
    public abstract static class Hidden {
        public Hidden() {
        }

        abstract void onHidden();
    }

    /** An inner (not static) class. */
    public abstract class Inner {
        public abstract void onDone();
    }
}
