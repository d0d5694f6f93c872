package org.droidstar.harness.android;

import android.media.MediaCodec;
import android.media.MediaFormat;

import org.droidstar.harness.core.ShimContext;

/**
 * Shim for android.media.MediaCodec.Callback (API 21), the listener of
 * MediaCodec.setCallback: reports onInputBufferAvailable,
 * onOutputBufferAvailable and onOutputFormatChanged (no details: buffer
 * indexes are not deterministic) and onError with detail "transient",
 * "recoverable" or "fatal" (CodecException's own classification).
 */
public class MediaCodecCallbackShim extends MediaCodec.Callback {
    private final ShimContext ctx;

    public MediaCodecCallbackShim(ShimContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void onInputBufferAvailable(MediaCodec codec, int index) {
        ctx.callback("onInputBufferAvailable", null, new Object[] {codec, Integer.valueOf(index)});
    }

    @Override
    public void onOutputBufferAvailable(MediaCodec codec, int index, MediaCodec.BufferInfo info) {
        ctx.callback("onOutputBufferAvailable", null, new Object[] {codec, Integer.valueOf(index), info});
    }

    @Override
    public void onError(MediaCodec codec, MediaCodec.CodecException e) {
        String kind = e.isTransient() ? "transient" : e.isRecoverable() ? "recoverable" : "fatal";
        ctx.callback("onError", kind, new Object[] {codec, e});
    }

    @Override
    public void onOutputFormatChanged(MediaCodec codec, MediaFormat format) {
        ctx.callback("onOutputFormatChanged", null, new Object[] {codec, format});
    }
}
