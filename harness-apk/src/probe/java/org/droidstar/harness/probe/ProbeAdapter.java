package org.droidstar.harness.probe;

import org.droidstar.harness.core.Adapter;
import org.droidstar.harness.core.Platform;
import org.droidstar.harness.core.ShimRegistry;

/**
 * The adapter of the probe op's embedded jar (probe-adapter.jar, built by
 * harness-apk/Makefile into the APK as dex and into the JVM jar as class
 * files): loading it with the platform's jar loader and letting it
 * register itself is the path every purpose's adapter jars take, tried on
 * the device before a learning run depends on it.
 */
public final class ProbeAdapter implements Adapter {
    @Override
    public void register(ShimRegistry registry, Platform platform) {
        registry.register(ProbeAdapter.class.getName(), ProbeAdapter.class);
    }
}
