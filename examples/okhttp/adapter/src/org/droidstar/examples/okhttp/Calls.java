package org.droidstar.examples.okhttp;

import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Request;

/**
 * The factory of examples/okhttp/purpose.yaml: a Call needs a client and a
 * Request, which argument literals cannot build. One client serves every
 * query (as an app would share it); each query gets a new Call.
 */
public final class Calls {
    private static final OkHttpClient CLIENT = new OkHttpClient();

    private Calls() {
    }

    /** CLIENT.newCall(GET url). */
    public static Call newCall(String url) {
        return CLIENT.newCall(new Request.Builder().url(url).build());
    }
}
