package org.droidstar.examples.downloadmanager;

import android.app.DownloadManager;
import android.content.Context;
import android.net.Uri;

import java.util.ArrayList;
import java.util.List;

/**
 * The factory and the id bookkeeping of examples/downloadmanager/purpose.yaml.
 *
 * <p>DownloadManager is a system service (Context.getSystemService, an
 * instance method, which a purpose's static factory cannot call), enqueue
 * takes a Request object (argument literals cannot build one), and remove
 * takes the ids that enqueue returned (argument literals cannot refer to a
 * callin's result). So the purpose's callins call {@link #enqueue} and
 * {@link #remove} on {@link #TRACKER}, with the DownloadManager under test as
 * their first argument; they do nothing but the one framework call each.
 *
 * <p>{@link #manager}, the purpose's factory, runs at every query's reset and
 * forgets the ids of the previous query.
 */
public final class Downloads {
    /** The one tracker; the harness runs one query at a time. */
    public static final Downloads TRACKER = new Downloads();

    private final List<Long> ids = new ArrayList<Long>();

    private Downloads() {
    }

    /** The DownloadManager service; starts a new query's bookkeeping. */
    public static DownloadManager manager(Context context) {
        synchronized (TRACKER) {
            TRACKER.ids.clear();
        }
        return (DownloadManager) context.getSystemService(Context.DOWNLOAD_SERVICE);
    }

    /** dm.enqueue(new Request(url)) with the default (cache) destination; remembers the id. */
    public synchronized long enqueue(DownloadManager dm, String url) {
        long id = dm.enqueue(new DownloadManager.Request(Uri.parse(url)));
        ids.add(Long.valueOf(id));
        return id;
    }

    /**
     * dm.remove(ids of this query's enqueues). With none, the framework
     * itself throws IllegalArgumentException ("input param 'ids' can't be
     * null"), so remove before enqueue answers err.
     */
    public synchronized int remove(DownloadManager dm) {
        long[] all = new long[ids.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = ids.get(i).longValue();
        }
        ids.clear();
        return dm.remove(all);
    }
}
