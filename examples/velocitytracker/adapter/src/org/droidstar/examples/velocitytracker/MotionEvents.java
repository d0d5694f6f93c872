package org.droidstar.examples.velocitytracker;

import android.view.MotionEvent;

/**
 * Argument objects for examples/velocitytracker/purpose.yaml: addMovement
 * takes a MotionEvent, which only MotionEvent.obtain(...) makes and argument
 * literals cannot, so the purpose reads this field with
 * {constant: org.droidstar.examples.velocitytracker.MotionEvents.DOWN}.
 * addMovement only reads the event, so one event serves every query.
 */
public final class MotionEvents {
    /** A touch-down at (0, 0) at time 0, as DroidStar's experiment used (with fixed times). */
    public static final MotionEvent DOWN = MotionEvent.obtain(0L, 0L, MotionEvent.ACTION_DOWN, 0f, 0f, 0);

    private MotionEvents() {
    }
}
