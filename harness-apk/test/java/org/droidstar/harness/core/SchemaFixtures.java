package org.droidstar.harness.core;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Classes shaped like the ones DroidStar's purposes needed the schema
 * features for (issue 11): a client that makes the object under test
 * (OkHttp's OkHttpClient.newCall), a radio whose callins answer false
 * instead of throwing (BluetoothAdapter.enable), and callbacks whose detail
 * is in an argument other than the first (a broadcast's Intent extra, a
 * Response's code). They log to {@link Fixtures#log}.
 */
public final class SchemaFixtures {
    private SchemaFixtures() {
    }

    /** Like android.os.Bundle: extras by key. */
    public static final class Bundle {
        private final Map<String, Object> values = new LinkedHashMap<String, Object>();

        public Bundle put(String key, Object value) {
            values.put(key, value);
            return this;
        }

        public Object get(String key) {
            return values.get(key);
        }
    }

    /** Like android.content.Intent: an action and extras. */
    public static final class Intent {
        private final String action;
        private final Bundle extras;

        public Intent(String action, Bundle extras) {
            this.action = action;
            this.extras = extras;
        }

        public String getAction() {
            return action;
        }

        public Bundle getExtras() {
            return extras;
        }

        /** A method that throws, as a detail part may meet one. */
        public String broken() {
            throw new IllegalStateException("broken getter");
        }
    }

    /** Like okhttp3.Response. */
    public static final class Response {
        private final int code;

        public Response(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        public void nothing() {
        }
    }

    /** The listener: a receiver of broadcasts and of responses. */
    public interface Receiver {
        void onReceive(Object context, Intent intent);

        void onResponse(Call call, Response response);

        void onFailure(Call call, String why);
    }

    /** Like BroadcastReceiver: an abstract class that a shim stands in for. */
    public abstract static class AbstractReceiver {
        public abstract void onReceive(Object context, Intent intent);
    }

    /** The shim, which names the action as its own detail and passes its arguments. */
    public static final class ReceiverShim extends AbstractReceiver {
        private final ShimContext ctx;

        public ReceiverShim(ShimContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public void onReceive(Object context, Intent intent) {
            ctx.callback("onReceive", intent.getAction(), new Object[] {context, intent});
        }
    }

    /** Like OkHttp's Call: made by a client, enqueued once. */
    public static class Call {
        private final String url;
        private boolean executed;

        public Call(String url) {
            this.url = url;
        }

        public void enqueue(Receiver r) {
            if (executed) {
                throw new IllegalStateException("Already Executed");
            }
            executed = true;
            if (url.startsWith("offline")) {
                r.onFailure(this, "offline");
            } else {
                r.onResponse(this, new Response(url.endsWith("/nope") ? 404 : 200));
            }
        }

        public void cancel() {
            Fixtures.log.add("cancel " + url);
        }
    }

    /** Like OkHttpClient: makes Calls; one is shared, as an app shares its client. */
    public static class Client {
        public static final Client SHARED = new Client();

        public Call newCall(String url) {
            Fixtures.log.add("newCall " + url);
            return new Call(url);
        }

        public Call nullCall(String url) {
            return null;
        }

        public String notACall(String url) {
            return url;
        }
    }

    /** Like BluetoothAdapter: callins that answer false, and broadcasts with extras. */
    public static class Radio {
        public static final String STATE_CHANGED = "STATE_CHANGED";
        public static final String ACL_CONNECTED = "ACL_CONNECTED";
        private boolean on;
        private Receiver receiver;
        private AbstractReceiver shim;

        public void setReceiver(Receiver r) {
            receiver = r;
        }

        public void setShim(AbstractReceiver r) {
            shim = r;
        }

        private void broadcast(Intent i) {
            if (receiver != null) {
                receiver.onReceive("context", i);
            }
            if (shim != null) {
                shim.onReceive("context", i);
            }
        }

        public boolean enable() {
            if (on) {
                return false;
            }
            on = true;
            broadcast(new Intent(STATE_CHANGED, new Bundle().put("state", Integer.valueOf(12))));
            return true;
        }

        public boolean disable() {
            if (!on) {
                return false;
            }
            on = false;
            broadcast(new Intent(STATE_CHANGED, new Bundle().put("state", Integer.valueOf(10))));
            return true;
        }

        public Boolean boxedEnable() {
            return Boolean.valueOf(enable());
        }

        /** A connection broadcast has no state extra; one without extras at all. */
        public void connect() {
            broadcast(new Intent(ACL_CONNECTED, new Bundle()));
            broadcast(new Intent(ACL_CONNECTED, null));
        }

        public int level() {
            return on ? 3 : -1;
        }

        public String name() {
            return on ? "radio" : null;
        }

        public double ratio() {
            return 0.5;
        }

        public void plain() {
        }
    }
}
