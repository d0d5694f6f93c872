package org.droidstar.harness.core;

/**
 * Class names as purposes and droidstar's host tools write them: a binary
 * name (android.media.MediaPlayer$OnPreparedListener) or a source name,
 * whose nested classes are written with dots
 * (android.media.MediaPlayer.OnPreparedListener).
 */
public final class ClassNames {
    private ClassNames() {
    }

    /**
     * The class of name in loader, not initialised, trying each nesting
     * from the innermost (a.B.C, then a.B$C, then a$B$C); null when there
     * is none. A class that is found but cannot be linked is skipped, and
     * the last such error is left in linkage[0] when linkage is given.
     */
    public static Class<?> load(String name, ClassLoader loader, Throwable[] linkage) {
        String n = name;
        while (true) {
            try {
                return Class.forName(n, false, loader);
            } catch (ClassNotFoundException e) {
                // try the next spelling
            } catch (LinkageError e) {
                if (linkage != null) {
                    linkage[0] = e;
                }
            }
            int dot = n.lastIndexOf('.');
            if (dot <= 0) {
                return null;
            }
            n = n.substring(0, dot) + "$" + n.substring(dot + 1);
        }
    }
}
