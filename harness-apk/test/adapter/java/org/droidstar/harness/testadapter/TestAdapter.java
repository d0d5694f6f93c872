package org.droidstar.harness.testadapter;

import org.droidstar.harness.core.Adapter;
import org.droidstar.harness.core.Platform;
import org.droidstar.harness.core.ShimRegistry;

/** Registers the Gadget shim; the tests load it from a jar of its own. */
public final class TestAdapter implements Adapter {
    @Override
    public void register(ShimRegistry registry, Platform platform) {
        registry.register(Gadget.class.getName(), GadgetShim.class);
    }
}
