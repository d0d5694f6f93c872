package org.droidstar.harness.core;

/**
 * An error reply of the wire protocol (PROTOCOL.md): a code from the
 * protocol's table, an optional path into the configure request's purpose
 * object, and a sentence for a person.
 */
public final class ProtocolError extends Exception {
    private static final long serialVersionUID = 1L;

    public static final String BAD_REQUEST = "bad-request";
    public static final String UNKNOWN_OP = "unknown-op";
    public static final String PROTOCOL = "protocol";
    public static final String NOT_CONFIGURED = "not-configured";
    public static final String UNKNOWN_CLASS = "unknown-class";
    public static final String UNKNOWN_METHOD = "unknown-method";
    public static final String UNKNOWN_LISTENER = "unknown-listener";
    public static final String UNKNOWN_CALLBACK = "unknown-callback";
    public static final String BAD_ARGUMENT = "bad-argument";
    public static final String BAD_ACTION = "bad-action";
    public static final String UNKNOWN_SYMBOL = "unknown-symbol";
    public static final String INTERNAL = "internal";
    public static final String WEDGED = "wedged";

    private final String code;
    private final String where;

    public ProtocolError(String code, String where, String message) {
        super(message);
        this.code = code;
        this.where = where;
    }

    public String code() {
        return code;
    }

    /** The path into the purpose object, or null. */
    public String where() {
        return where;
    }
}
