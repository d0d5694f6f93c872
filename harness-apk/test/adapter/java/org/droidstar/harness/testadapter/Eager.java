package org.droidstar.harness.testadapter;

/**
 * A class whose static initialiser counts its runs in the system property
 * {@link #MARK}, so that a test sees whether resolving a purpose ran it (as
 * reading any of its constants would). Each configure loads the adapter jar
 * afresh, so each has its own Eager to initialise.
 */
public class Eager {
    public static final String MARK = "droidstar.test.eager.initialised";
    /** Constants that only the initialiser gives values. */
    public static final int LIMIT;
    public static final Integer BOXED;
    public static final long WIDE;
    public static final CharSequence NAME;

    static {
        System.setProperty(MARK, String.valueOf(Integer.getInteger(MARK, 0).intValue() + 1));
        LIMIT = Integer.parseInt("3");
        BOXED = Integer.valueOf(4);
        WIDE = Long.parseLong("8");
        NAME = "eager";
    }

    public Eager(int limit) {
    }

    public void take(int n, long flags, CharSequence name) {
    }

    public void greet(CharSequence context) {
    }

    public void greetExactly(String context) {
    }
}
