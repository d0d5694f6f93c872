package org.droidstar.harness.core;

import java.util.Map;

/** The purpose's timeouts, read last. */
final class TimeoutSection {
    private TimeoutSection() {
    }

    static void read(Configuration c, Map<?, ?> timeouts) throws ProtocolError {
        c.quiescenceMs = millis(timeouts, "quiescence", true);
        c.settleMs = millis(timeouts, "settle", false);
        c.postResetMs = millis(timeouts, "post_reset", false);
    }

    /** A timeout: a non-negative integer of milliseconds. */
    private static long millis(Map<?, ?> m, String key, boolean required) throws ProtocolError {
        Object v = m.get(key);
        String where = "timeouts." + key;
        if (v == null) {
            if (required) {
                throw new ProtocolError(ProtocolError.BAD_REQUEST, where, "\"" + key + "\" is required");
            }
            return 0;
        }
        if (!(v instanceof Long) || ((Long) v).longValue() < 0) {
            throw new ProtocolError(ProtocolError.BAD_REQUEST, where,
                    "\"" + key + "\" must be a non-negative integer of milliseconds, not " + Json.describe(v));
        }
        return ((Long) v).longValue();
    }
}
