package org.droidstar.harness.android;

import android.bluetooth.BluetoothAdapter;
import android.bluetooth.BluetoothDevice;
import android.content.Context;
import android.content.pm.PackageManager;
import android.media.AudioFormat;
import android.media.AudioRecord;
import android.media.MediaRecorder;
import android.os.AsyncTask;
import android.os.CountDownTimer;
import android.os.Looper;
import android.os.MessageQueue;
import android.system.Os;

import java.io.File;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.droidstar.harness.core.ProbeHooks;

/**
 * The framework's side of the probe op (ProbeHooks): an idle handler as
 * the listener the framework calls, CountDownTimer and AsyncTask as the
 * main-looper callbacks, AudioRecord for the microphone, Os.remove for an
 * unlink that names its errno. Like the rest of this layer it cannot run
 * here; droidstar doctor runs it on devices.
 */
final class AndroidProbes {
    /** The recording rate: every device supports 16 kHz mono 16-bit for MIC. */
    private static final int RATE = 16000;

    private final Context context;

    AndroidProbes(Context context) {
        this.context = context;
    }

    void unlink(File f) throws Exception {
        Os.remove(f.getPath());
    }

    /** MessageQueue.queueIdle runs once the main looper has nothing to do; the proxy returns false, which removes it. */
    static final String LISTENER = "android.os.MessageQueue$IdleHandler";

    /** Called on the main thread. */
    void fire(Object listener) {
        Looper.myQueue().addIdleHandler((MessageQueue.IdleHandler) listener);
    }

    List<ProbeHooks.CallbackSource> sources() {
        List<ProbeHooks.CallbackSource> out = new ArrayList<ProbeHooks.CallbackSource>();
        out.add(new ProbeHooks.CallbackSource() {
            @Override
            public String name() {
                return "android.os.CountDownTimer";
            }

            @Override
            public long delayMs() {
                return 50;
            }

            @Override
            public void start(final Runnable done) {
                // An interval longer than the timer: no onTick after the
                // first, onFinish after delayMs.
                new CountDownTimer(delayMs(), 1000) {
                    @Override
                    public void onTick(long millisUntilFinished) {
                    }

                    @Override
                    public void onFinish() {
                        done.run();
                    }
                }.start();
            }
        });
        out.add(new ProbeHooks.CallbackSource() {
            @Override
            public String name() {
                return "android.os.AsyncTask";
            }

            @Override
            public long delayMs() {
                return 0;
            }

            @Override
            public void start(final Runnable done) {
                new AsyncTask<Object, Object, Object>() {
                    @Override
                    protected Object doInBackground(Object... params) {
                        return null;
                    }

                    @Override
                    protected void onPostExecute(Object result) {
                        done.run();
                    }
                }.execute();
            }
        });
        return out;
    }

    Map<String, Object> record(int ms) {
        if (!holds("android.permission.RECORD_AUDIO")) {
            throw new SecurityException("android.permission.RECORD_AUDIO is not granted");
        }
        int min = AudioRecord.getMinBufferSize(RATE, AudioFormat.CHANNEL_IN_MONO, AudioFormat.ENCODING_PCM_16BIT);
        if (min <= 0) {
            throw new IllegalStateException("AudioRecord.getMinBufferSize answered " + min
                    + ": 16 kHz mono 16-bit recording is not supported");
        }
        AudioRecord rec = new AudioRecord(MediaRecorder.AudioSource.MIC, RATE, AudioFormat.CHANNEL_IN_MONO,
                AudioFormat.ENCODING_PCM_16BIT, Math.max(min, RATE * 2));
        try {
            if (rec.getState() != AudioRecord.STATE_INITIALIZED) {
                throw new IllegalStateException("AudioRecord did not initialise (no microphone, or it is in use)");
            }
            rec.startRecording();
            if (rec.getRecordingState() != AudioRecord.RECORDSTATE_RECORDING) {
                throw new IllegalStateException("AudioRecord did not start recording (the microphone is in use)");
            }
            short[] buf = new short[RATE / 10];
            long want = (long) RATE * ms / 1000;
            long n = 0;
            long sum = 0;
            int peak = 0;
            while (n < want) {
                int got = rec.read(buf, 0, (int) Math.min(buf.length, want - n));
                if (got <= 0) {
                    throw new IllegalStateException("AudioRecord.read answered " + got);
                }
                for (int i = 0; i < got; i++) {
                    int v = Math.abs((int) buf[i]);
                    peak = Math.max(peak, v);
                    sum += (long) v * v;
                }
                n += got;
            }
            rec.stop();
            Map<String, Object> out = new LinkedHashMap<String, Object>();
            out.put("peak", Integer.valueOf(peak));
            out.put("rms", Double.valueOf(Math.round(Math.sqrt((double) sum / n) * 10) / 10.0));
            return out;
        } finally {
            rec.release();
        }
    }

    /**
     * BluetoothAdapter.getBondedDevices' addresses. The harness targets API
     * 28, so the install-time BLUETOOTH permission is what it needs, on
     * Android 12 and later too (BLUETOOTH_CONNECT applies to apps targeting
     * 31 and above). With Bluetooth off the adapter lists nothing, which
     * would read as "not paired": that is said instead.
     */
    List<String> pairedBluetoothDevices() {
        BluetoothAdapter adapter = BluetoothAdapter.getDefaultAdapter();
        if (adapter == null) {
            throw new IllegalStateException("the device has no Bluetooth adapter");
        }
        if (!adapter.isEnabled()) {
            throw new IllegalStateException("Bluetooth is off, and Android lists paired devices only while it is on");
        }
        List<String> out = new ArrayList<String>();
        for (BluetoothDevice d : adapter.getBondedDevices()) {
            out.add(d.getAddress());
        }
        return out;
    }

    boolean holds(String permission) {
        return context.checkCallingOrSelfPermission(permission) == PackageManager.PERMISSION_GRANTED;
    }
}
