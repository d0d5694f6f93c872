package org.droidstar.examples.mediacodec;

import android.media.MediaCodecInfo;
import android.media.MediaFormat;

/**
 * Argument objects for examples/mediacodec/purpose.yaml: configure takes a
 * MediaFormat, which argument literals cannot build, so the purpose reads
 * this field with {constant: org.droidstar.examples.mediacodec.Formats.AAC_ENCODER}.
 * configure copies the format, so one object serves every query.
 */
public final class Formats {
    /** AAC-LC, 44.1 kHz mono, 64 kbit/s: a format every device's AAC encoder takes. */
    public static final MediaFormat AAC_ENCODER = aacEncoder();

    private Formats() {
    }

    private static MediaFormat aacEncoder() {
        MediaFormat f = MediaFormat.createAudioFormat(MediaFormat.MIMETYPE_AUDIO_AAC, 44100, 1);
        f.setInteger(MediaFormat.KEY_BIT_RATE, 64000);
        f.setInteger(MediaFormat.KEY_AAC_PROFILE, MediaCodecInfo.CodecProfileLevel.AACObjectLC);
        return f;
    }
}
