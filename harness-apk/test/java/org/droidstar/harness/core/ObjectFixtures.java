package org.droidstar.harness.core;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The class of ObjectLiteralsTest: methods whose parameters only object literals can fill. */
public final class ObjectFixtures {
    private ObjectFixtures() {
    }

    public static final List<String> LOG = Collections.synchronizedList(new ArrayList<String>());

    public static class Sink {
        public void take(Path p) {
            LOG.add("path " + p);
        }

        public void take(String s) {
            LOG.add("string " + s);
        }

        /** Appends to what it is given, so that a literal reused across queries would show. */
        public void take(StringBuilder b) {
            LOG.add("builder " + b.append('!'));
        }

        public void take(ByteBuffer b) {
            LOG.add("buffer " + b.capacity());
        }

        public void takeLong(long n) {
            LOG.add("long " + n);
        }

        public StringBuilder make() {
            return new StringBuilder("made");
        }

        public int count() {
            return 7;
        }

        public void nothing() {
        }

        public static void staticNothing() {
            LOG.add("static");
        }
    }

    /** A listener whose answers the class acts on. */
    public interface Question {
        boolean ask(String what);

        int count();

        void tell();
    }

    /** Calls its Question and logs what it answered or threw. */
    public static class Asker {
        private Question q;

        public void setQuestion(Question q) {
            this.q = q;
        }

        public void ask() {
            LOG.add("ask " + q.ask("x"));
        }

        public void count() {
            LOG.add("count " + q.count());
        }

        public void tell() {
            try {
                q.tell();
                LOG.add("told");
            } catch (RuntimeException e) {
                LOG.add("tell threw " + e);
            }
        }
    }

    /** Two listeners of one type: a pair of questions asked in turn. */
    public static class Pair {
        private Question first;
        private Question second;

        public void setFirst(Question q) {
            first = q;
        }

        public void setSecond(Question q) {
            second = q;
        }

        public void askBoth() {
            LOG.add("first " + first.ask("1"));
            LOG.add("second " + second.ask("2"));
        }
    }

    /** What CallbackLiteralTest's class hands out through its receiver's callbacks. */
    public interface Receiver {
        void onHandle(StringBuilder handle, int serial);

        void onNote(String note);

        void onNote(Integer note);
    }

    /**
     * Hands its receiver a fresh handle on every give(), inside the call, as
     * a Flow.Publisher hands its subscriber a subscription: the handle is
     * what later callins act on.
     */
    public static class Handout {
        private Receiver receiver;
        private int serial;

        public void setReceiver(Receiver r) {
            receiver = r;
        }

        public void give() {
            serial++;
            receiver.onHandle(new StringBuilder("h" + serial), serial);
        }

        public void keep(StringBuilder handle) {
            LOG.add("kept " + handle);
        }

        public void keep(Object o) {
            LOG.add("object " + o);
        }
    }
}
