package org.droidstar.examples.okhttp;

import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Request;

/**
 * What examples/okhttp's purposes call to make a Call: a Call needs a client
 * and a Request, which argument literals cannot build. One client serves
 * every query (as an app shares its OkHttpClient, and as DroidStar's purpose
 * did); each call of newCall makes a new Call.
 *
 * <p>purpose.yaml's build_valid and build_unavailable call
 * {@code SHARED.newCall(url)} (a callin on the constant SHARED, whose result
 * becomes the instance under test); reset-call.yaml's factory is the static
 * {@link #make}.
 */
public final class Calls {
    private static final OkHttpClient CLIENT = new OkHttpClient();

    /** The object the build callins call newCall on. */
    public static final Calls SHARED = new Calls();

    private Calls() {
    }

    /** CLIENT.newCall(GET url). */
    public Call newCall(String url) {
        return make(url);
    }

    /** CLIENT.newCall(GET url), as a static factory. */
    public static Call make(String url) {
        return CLIENT.newCall(new Request.Builder().url(url).build());
    }
}
