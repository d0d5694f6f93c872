package org.droidstar.harness.android;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.content.IntentFilter;

import org.droidstar.harness.core.Registrations;
import org.droidstar.harness.core.ShimContext;

/**
 * Shim for android.content.BroadcastReceiver: reports onReceive with the
 * intent's action as its detail (onReceive/android.intent.action.DOWNLOAD_COMPLETE).
 * Purposes of classes that answer with broadcasts (DownloadManager,
 * BluetoothAdapter) use it as a listener.
 *
 * <p>How it gets registered: the shim registers itself on the harness's
 * target context, with an IntentFilter of the actions it is given, when it
 * is made. The actions are a comma-separated list, either the constructor's
 * String argument or, for the one-argument constructor (listeners), the
 * shim option {@code receiver_actions}:
 * <pre>
 * shim:
 *   receiver_actions: android.intent.action.DOWNLOAD_COMPLETE
 * listeners:
 *   - type: android.content.BroadcastReceiver
 * </pre>
 * With no actions the shim is not registered (a purpose may then pass it to
 * a registering method itself).
 *
 * <p>Lifetime: each query makes fresh listeners, so registering a receiver
 * unregisters those of earlier queries (the core's Registrations, by
 * generation); {@link #unregister()} (a callin on the listener) does it
 * explicitly.
 */
public class BroadcastReceiverShim extends BroadcastReceiver {
    private static volatile Context context;
    private static final Registrations<BroadcastReceiverShim> registered = new Registrations<BroadcastReceiverShim>();

    private final ShimContext ctx;

    /** Registers for the actions of shim option receiver_actions, if any. */
    public BroadcastReceiverShim(ShimContext ctx) {
        this(ctx, ctx.option("receiver_actions", ""));
    }

    /** Registers for actions, a comma-separated list (may be empty). */
    public BroadcastReceiverShim(ShimContext ctx, String actions) {
        this.ctx = ctx;
        IntentFilter filter = new IntentFilter();
        for (String action : actions.split(",")) {
            if (action.trim().length() > 0) {
                filter.addAction(action.trim());
            }
        }
        if (filter.countActions() > 0) {
            register(filter);
        }
    }

    /** Set by AndroidPlatform: the context receivers register on. */
    static void setContext(Context c) {
        context = c;
    }

    private void register(IntentFilter filter) {
        Context c = context;
        if (c == null) {
            throw new IllegalStateException("BroadcastReceiverShim: no context to register on");
        }
        for (BroadcastReceiverShim old : registered.register(ctx.generation(), this)) {
            unregisterQuietly(c, old);
        }
        c.registerReceiver(this, filter);
    }

    /** Unregisters this receiver; harmless when it is not registered. */
    public void unregister() {
        Context c = context;
        if (registered.remove(this) && c != null) {
            unregisterQuietly(c, this);
        }
    }

    private static void unregisterQuietly(Context c, BroadcastReceiver r) {
        try {
            c.unregisterReceiver(r);
        } catch (IllegalArgumentException e) {
            // not registered any more
        }
    }

    @Override
    public void onReceive(Context c, Intent intent) {
        ctx.callback("onReceive", intent.getAction(), new Object[] {c, intent});
    }
}
