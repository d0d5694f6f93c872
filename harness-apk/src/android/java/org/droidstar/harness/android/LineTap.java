package org.droidstar.harness.android;

import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.Charset;

/**
 * Passes a byte stream through unchanged and hands each of its lines (the
 * first MAX bytes of it) to a listener: how the instrumentation logs the
 * protocol's requests and error replies to logcat without touching the core.
 */
final class LineTap {
    interface Listener {
        void line(String line);
    }

    static final int MAX = 2048;
    private static final Charset UTF8 = Charset.forName("UTF-8");

    private final Listener listener;
    private final ByteArrayOutputStream buf = new ByteArrayOutputStream();

    LineTap(Listener listener) {
        this.listener = listener;
    }

    private void bytes(byte[] b, int off, int len) {
        for (int i = off; i < off + len; i++) {
            byte c = b[i];
            if (c == '\n') {
                String line = new String(buf.toByteArray(), UTF8);
                buf.reset();
                listener.line(line);
            } else if (buf.size() < MAX) {
                buf.write(c);
            }
        }
    }

    InputStream in(InputStream in) {
        return new FilterInputStream(in) {
            @Override
            public int read() throws IOException {
                int c = super.read();
                if (c >= 0) {
                    bytes(new byte[] {(byte) c}, 0, 1);
                }
                return c;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = super.read(b, off, len);
                if (n > 0) {
                    bytes(b, off, n);
                }
                return n;
            }

            @Override
            public long skip(long n) throws IOException {
                byte[] b = new byte[(int) Math.min(n, 8192)];
                int r = read(b, 0, b.length);
                return r < 0 ? 0 : r;
            }
        };
    }

    OutputStream out(OutputStream out) {
        return new FilterOutputStream(out) {
            @Override
            public void write(int c) throws IOException {
                out.write(c);
                bytes(new byte[] {(byte) c}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
                bytes(b, off, len);
            }
        };
    }
}
