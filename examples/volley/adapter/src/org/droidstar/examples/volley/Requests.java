package org.droidstar.examples.volley;

import com.android.volley.Request;
import com.android.volley.RequestQueue;
import com.android.volley.Response;
import com.android.volley.toolbox.StringRequest;

/**
 * The request builder of examples/volley/purpose.yaml: RequestQueue.add takes
 * a Request object, which argument literals cannot build. The purpose's
 * enqueue callins call {@link #add} on {@link #BUILDER} with the queue under
 * test, the URL and the query's two listener proxies; add does nothing but
 * build the StringRequest and hand it to queue.add.
 */
public final class Requests {
    /** The tag every request gets; the purpose's cancel callin is cancelAll(TAG). */
    public static final String TAG = "droidstar";

    public static final Requests BUILDER = new Requests();

    private Requests() {
    }

    /**
     * queue.add(new StringRequest(GET, url, ok, failed)) tagged {@link #TAG},
     * with Volley's response cache off, so that every query goes to the
     * network as the first one does.
     */
    public Request<String> add(RequestQueue queue, String url, Response.Listener<String> ok,
            Response.ErrorListener failed) {
        StringRequest r = new StringRequest(Request.Method.GET, url, ok, failed);
        r.setTag(TAG);
        r.setShouldCache(false);
        return queue.add(r);
    }
}
