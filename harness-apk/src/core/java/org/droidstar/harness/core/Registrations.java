package org.droidstar.harness.core;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The receivers (or other registrations with a process-wide registry) that
 * queries left registered, by the generation of the query that made them.
 * Registering for a new generation hands back every registration of older
 * ones to be undone: a query's callbacks must never come from an earlier
 * query's objects. Keyed by generation rather than by the ShimContext
 * object, since two shims of one query have different contexts only if
 * made apart. Thread-safe.
 */
public final class Registrations<T> {
    private static final class Entry<T> {
        final long generation;
        final T item;

        Entry(long generation, T item) {
            this.generation = generation;
            this.item = item;
        }
    }

    private final List<Entry<T>> entries = new ArrayList<Entry<T>>();

    /**
     * Records item for generation and returns the items of other
     * generations, which the caller unregisters; they are forgotten here.
     */
    public synchronized List<T> register(long generation, T item) {
        List<T> stale = new ArrayList<T>();
        for (Iterator<Entry<T>> it = entries.iterator(); it.hasNext();) {
            Entry<T> e = it.next();
            if (e.generation != generation) {
                it.remove();
                stale.add(e.item);
            }
        }
        entries.add(new Entry<T>(generation, item));
        return stale;
    }

    /** Forgets item; true when it was registered. */
    public synchronized boolean remove(T item) {
        for (Iterator<Entry<T>> it = entries.iterator(); it.hasNext();) {
            if (it.next().item == item) {
                it.remove();
                return true;
            }
        }
        return false;
    }

    /** How many items are registered. */
    public synchronized int size() {
        return entries.size();
    }
}
