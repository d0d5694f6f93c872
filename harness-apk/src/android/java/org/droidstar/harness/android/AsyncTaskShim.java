package org.droidstar.harness.android;

import android.os.AsyncTask;
import android.os.SystemClock;

import org.droidstar.harness.core.ShimContext;

/**
 * Shim for android.os.AsyncTask: a task whose doInBackground sleeps
 * (DroidStar's "simple timer") and that reports onPreExecute,
 * onProgressUpdate, onPostExecute and onCancelled (no details).
 *
 * Shim options: sleep_ms, how long doInBackground sleeps (default 200);
 * progress, how many times it calls publishProgress while it sleeps, evenly
 * spread (default 0). cancel(true) interrupts the sleep and the task returns
 * at once.
 */
public class AsyncTaskShim extends AsyncTask<Object, Object, Object> {
    private final ShimContext ctx;
    private final long sleepMs;
    private final long progress;

    public AsyncTaskShim(ShimContext ctx) {
        this.ctx = ctx;
        this.sleepMs = ctx.longOption("sleep_ms", 200);
        this.progress = ctx.longOption("progress", 0);
    }

    @Override
    protected Object doInBackground(Object... params) {
        long steps = progress + 1;
        long start = SystemClock.uptimeMillis();
        for (long i = 1; i <= steps; i++) {
            long until = start + sleepMs * i / steps;
            long left = until - SystemClock.uptimeMillis();
            try {
                if (left > 0) {
                    Thread.sleep(left);
                }
            } catch (InterruptedException e) {
                return null;
            }
            if (i < steps) {
                publishProgress(i);
            }
        }
        return params != null && params.length > 0 ? params[0] : null;
    }

    @Override
    protected void onPreExecute() {
        ctx.callback("onPreExecute");
    }

    @Override
    protected void onProgressUpdate(Object... values) {
        ctx.callback("onProgressUpdate", null, new Object[] {values});
    }

    @Override
    protected void onPostExecute(Object result) {
        ctx.callback("onPostExecute", null, new Object[] {result});
    }

    @Override
    protected void onCancelled(Object result) {
        ctx.callback("onCancelled", null, new Object[] {result});
    }
}
