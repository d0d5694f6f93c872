package org.droidstar.harness.testadapter;

/** An abstract class that only the test adapter jar knows: poke() calls onPoke(). */
public abstract class Gadget {
    private final String label;

    public Gadget(String label) {
        this.label = label;
    }

    public void poke() {
        onPoke(label);
    }

    protected abstract void onPoke(String label);
}
