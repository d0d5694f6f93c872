package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

import org.junit.Test;

public class ListenerProxyTest {
    @Test
    public void proxiesLiveInThePurposesLoaderNotTheInterfaces() {
        final List<String> calls = new ArrayList<String>();
        CallbackSink sink = new CallbackSink() {
            @Override
            public void record(long generation, String method, String detail, Object[] args) {
                calls.add(generation + " " + method + " " + detail);
            }
        };
        ClassLoader purpose = new URLClassLoader(new URL[0], ListenerProxyTest.class.getClassLoader());
        // Runnable comes from the boot class loader, as a framework
        // listener does on Android.
        Object p = ListenerProxy.create(Runnable.class, sink, 7, purpose);
        assertSame(purpose, p.getClass().getClassLoader());
        ((Runnable) p).run();
        Object q = ListenerProxy.create(Runnable.class, sink, 8, null);
        assertSame(ListenerProxy.class.getClassLoader(), q.getClass().getClassLoader());
        ((Runnable) q).run();
        List<String> want = new ArrayList<String>();
        want.add("7 run null");
        want.add("8 run null");
        assertEquals(want, calls);
    }
}
