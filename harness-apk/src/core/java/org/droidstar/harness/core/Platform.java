package org.droidstar.harness.core;

import java.io.File;
import java.util.List;

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

    /** Where {"file": NAME} literals and environment actions live: the run's private folder. */
    File filesDir();

    /**
     * Where relative jar paths resolve (the host stages jars under jars/) and
     * compiled code goes; the files folder on the JVM.
     */
    File codeDir();

    /** The value of a {"context": true} literal; null where there is none (the JVM). */
    Object context();

    /**
     * A class loader for user adapter jars (DexClassLoader on Android,
     * URLClassLoader on the JVM).
     */
    ClassLoader loadJars(List<File> jars, ClassLoader parent) throws Exception;

    /** Registers the platform's built-in shims for abstract framework classes. */
    void registerShims(ShimRegistry registry);
}
