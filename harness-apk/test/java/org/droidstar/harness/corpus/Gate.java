package org.droidstar.harness.corpus;

/**
 * The class the protocol corpus (testdata/protocol) configures and runs: a
 * gate that opens once and closes once, and breaks when it is closed before
 * it was opened. Every callback fires inside the callin that causes it, and
 * each at most once per instance, so that testdata/protocol/gate.dot models
 * it exactly and the Java harness and the simulated one answer alike.
 */
public class Gate {
    /** The gate's listener: one method per callback. */
    public interface Listener {
        void onOpened();

        void onClosed();

        void onBroken(String why);
    }

    private enum State {
        IDLE, OPEN, CLOSED, BROKEN
    }

    private State state = State.IDLE;
    private Listener listener;
    private String label;

    public Gate() {
        this("gate");
    }

    public Gate(String label) {
        this.label = label;
    }

    public void setListener(Listener l) {
        listener = l;
    }

    public void setLabel(String label) {
        this.label = label;
    }

    /** setLabel for the object literals of configure-object-literals.session. */
    public void setLabel(Object label) {
        this.label = String.valueOf(label);
    }

    public void open() {
        if (state != State.IDLE) {
            throw new IllegalStateException("cannot open " + label + ": it is " + state);
        }
        state = State.OPEN;
        if (listener != null) {
            listener.onOpened();
        }
    }

    /**
     * open() for purposes that count a false result as err (error_if):
     * false where open() throws.
     */
    public boolean tryOpen() {
        if (state != State.IDLE) {
            return false;
        }
        open();
        return true;
    }

    /** A fresh gate with this one's listener: a callin whose result becomes the instance (result: target). */
    public Gate copy() {
        Gate g = new Gate(label);
        g.listener = listener;
        return g;
    }

    public void close() {
        if (state == State.OPEN) {
            state = State.CLOSED;
            if (listener != null) {
                listener.onClosed();
            }
        } else if (state == State.IDLE) {
            state = State.BROKEN;
            if (listener != null) {
                listener.onBroken("closed before it was opened");
            }
        } else {
            throw new IllegalStateException("cannot close " + label + ": it is " + state);
        }
    }

    /** Called after every query by purposes that dispose of the gate. */
    public void release() {
        listener = null;
    }
}
