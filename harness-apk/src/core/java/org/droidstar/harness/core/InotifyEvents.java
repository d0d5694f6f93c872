package org.droidstar.harness.core;

/**
 * Names of inotify event masks, as android.os.FileObserver reports them,
 * so that a purpose can declare onEvent/MODIFY. The bits are Linux's
 * (include/uapi/linux/inotify.h), which FileObserver's constants repeat;
 * this lives in the core so that it is tested on the host.
 */
public final class InotifyEvents {
    /** FileObserver.ALL_EVENTS: the twelve events below. */
    public static final int ALL_EVENTS = 0xfff;

    private static final String[] NAMES = {
        "ACCESS", "MODIFY", "ATTRIB", "CLOSE_WRITE", "CLOSE_NOWRITE", "OPEN",
        "MOVED_FROM", "MOVED_TO", "CREATE", "DELETE", "DELETE_SELF", "MOVE_SELF",
    };

    private InotifyEvents() {
    }

    /**
     * The event's name (MODIFY). Bits outside ALL_EVENTS (inotify's
     * IN_ISDIR and the like) are ignored; several bits give their names
     * joined with '|', in bit order; no known bit gives the decimal number.
     */
    public static String name(int event) {
        int known = event & ALL_EVENTS;
        StringBuilder name = new StringBuilder();
        for (int i = 0; i < NAMES.length; i++) {
            if ((known & (1 << i)) != 0) {
                if (name.length() > 0) {
                    name.append('|');
                }
                name.append(NAMES[i]);
            }
        }
        return name.length() > 0 ? name.toString() : Integer.toString(event);
    }
}
