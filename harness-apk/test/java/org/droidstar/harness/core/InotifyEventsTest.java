package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class InotifyEventsTest {
    @Test
    public void names() {
        int[] events = {1, 2, 8, 0x200, 0x400, 0x800, 2 | 8, 0x40000000 | 0x100, 0x40000000, 0};
        String[] want = {"ACCESS", "MODIFY", "CLOSE_WRITE", "DELETE", "DELETE_SELF", "MOVE_SELF", "MODIFY|CLOSE_WRITE",
            "CREATE", "1073741824", "0"};
        for (int i = 0; i < events.length; i++) {
            assertEquals("event " + events[i], want[i], InotifyEvents.name(events[i]));
        }
    }
}
