package org.droidstar.harness;

/**
 * The name the manifest declares (.HarnessInstrumentation), so that the
 * host's short component name works:
 * am instrument -w org.droidstar.harness/.HarnessInstrumentation.
 * All of the work is in org.droidstar.harness.android.HarnessInstrumentation.
 */
public final class HarnessInstrumentation extends org.droidstar.harness.android.HarnessInstrumentation {
}
