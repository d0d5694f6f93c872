package org.droidstar.harness.testadapter;

import org.droidstar.harness.core.ShimContext;

/** The adapter's shim for Gadget: onPoke reports "onPoke" with the label as detail. */
public final class GadgetShim extends Gadget {
    private final ShimContext ctx;

    public GadgetShim(ShimContext ctx, String label) {
        super(label);
        this.ctx = ctx;
    }

    @Override
    protected void onPoke(String label) {
        ctx.callback("onPoke", label);
    }
}
