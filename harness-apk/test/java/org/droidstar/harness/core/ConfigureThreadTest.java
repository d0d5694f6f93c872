package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class ConfigureThreadTest extends ServerTestBase {
    /** A class whose initialiser notes the thread it ran on, as a framework class that makes a Handler would need the main looper. */
    public static final class NotesItsThread {
        public static final String THREAD = Thread.currentThread().getName();
        public static final int FLAG = Integer.parseInt("2");
    }

    @Test
    public void resolvingInitialisesClassesOnTheMainThread() throws Exception {
        String cls = NotesItsThread.class.getName();
        configure("{'name':'X','class':'" + Fixtures.Overloads.class.getName() + "','callins':[{'symbol':'f','call':'flags','args':[{'constant':'"
                + cls + ".FLAG'}]}],'timeouts':{'quiescence':10}}");
        assertEquals(TestPlatform.MAIN, NotesItsThread.THREAD);
    }
}
