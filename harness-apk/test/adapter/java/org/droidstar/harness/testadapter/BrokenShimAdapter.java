package org.droidstar.harness.testadapter;

import org.droidstar.harness.core.Adapter;
import org.droidstar.harness.core.Platform;
import org.droidstar.harness.core.ShimRegistry;

/**
 * A broken adapter: it registers as Gadget's shim a class that is no
 * Gadget. The harness cannot make a Gadget from it, which is neither the
 * purpose's fault nor the class's: the protocol's internal error.
 */
public final class BrokenShimAdapter implements Adapter {
    @Override
    public void register(ShimRegistry registry, Platform platform) {
        registry.register(Gadget.class.getName(), NotAnAdapter.class);
    }
}
