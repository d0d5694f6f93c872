package org.droidstar.harness.core;

/**
 * What the query runner needs from where it runs: the host JVM or an Android
 * device. The core never imports android.*; the Android layer implements
 * this interface on top of the framework.
 */
public interface Platform {
    /** "android" or "jvm", as reported by the hello reply. */
    String name();

    /** Build.VERSION.SDK_INT on Android, 0 on the JVM. */
    int sdk();

    /** Build.VERSION.RELEASE on Android, java.version on the JVM. */
    String release();

    /** Build.MODEL on Android, java.vm.name on the JVM. */
    String model();

    /** Build.MANUFACTURER on Android, java.vm.vendor on the JVM. */
    String manufacturer();

    /** The thread callins run on (the main looper on Android). */
    MainThread mainThread();

    /**
     * The run's folders: files ({"file": NAME} literals, environment
     * actions), code (relative jar paths, compiled code; the files folder on
     * the JVM) and the staging folder they were filled from.
     */
    Workspace workspace();

    /** The value of a {"context": true} literal; null where there is none (the JVM). */
    Object context();

    /**
     * Makes the class loader of adapter jars (DexClassLoader on Android,
     * {@link Jars#CLASS_FILES} on the JVM); the core has checked the jars.
     */
    Jars.Loader jarLoader();

    /** Registers the platform's built-in shims for abstract framework classes. */
    void registerShims(ShimRegistry registry);
}
