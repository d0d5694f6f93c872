package org.droidstar.harness.core;

/**
 * The extension point: a user's jar names classes implementing Adapter in
 * the purpose (adapters:), and the harness instantiates each with its public
 * no-argument constructor after loading the jar. An adapter registers shims
 * for its own abstract classes or third-party libraries (OkHttp's Callback,
 * Volley's listeners, ...).
 */
public interface Adapter {
    void register(ShimRegistry registry, Platform platform);
}
