package org.droidstar.harness.android;

import android.os.CountDownTimer;

import org.droidstar.harness.core.ShimContext;

/**
 * Shim for android.os.CountDownTimer(millisInFuture, countDownInterval):
 * reports onTick (no detail: the remaining time is not deterministic) and
 * onFinish. Before Android 6 (API 23) the timer binds its Handler to the
 * constructing thread's looper, so it must be constructed on the main
 * thread.
 */
public class CountDownTimerShim extends CountDownTimer {
    private final ShimContext ctx;

    public CountDownTimerShim(ShimContext ctx, long millisInFuture, long countDownInterval) {
        super(millisInFuture, countDownInterval);
        this.ctx = ctx;
    }

    @Override
    public void onTick(long millisUntilFinished) {
        ctx.callback("onTick", null, new Object[] {Long.valueOf(millisUntilFinished)});
    }

    @Override
    public void onFinish() {
        ctx.callback("onFinish");
    }
}
