package org.droidstar.harness.core;

import java.io.File;
import java.io.FileNotFoundException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.List;

/**
 * Loading user jars (a purpose's jars:, the probe's embedded adapter jar):
 * one path for every platform, so that a jar the core accepts loads the
 * same way everywhere, and a platform supplies only the class loader its
 * runtime can use ({@link Platform#jarLoader}).
 */
public final class Jars {
    private Jars() {
    }

    /**
     * Makes a class loader over jars that exist, in order, under parent.
     * Android's DexClassLoader needs a folder for its compiled code, hence
     * the workspace.
     */
    public interface Loader {
        ClassLoader load(List<File> jars, Workspace workspace, ClassLoader parent) throws Exception;
    }

    /** Jars of JVM class files: the host JVM's loader. */
    public static final Loader CLASS_FILES = new Loader() {
        @Override
        public ClassLoader load(List<File> jars, Workspace workspace, ClassLoader parent) throws Exception {
            URL[] urls = new URL[jars.size()];
            for (int i = 0; i < urls.length; i++) {
                urls[i] = jars.get(i).toURI().toURL();
            }
            return new URLClassLoader(urls, parent);
        }
    };

    /**
     * Loads the jars with the platform's loader. A missing jar fails here
     * rather than in the loader: DexClassLoader skips path elements it
     * cannot open, and the class would then go missing for no clear reason.
     */
    static ClassLoader load(Platform platform, List<File> jars, ClassLoader parent) throws Exception {
        for (File jar : jars) {
            if (!jar.isFile()) {
                throw new FileNotFoundException("no adapter jar " + jar);
            }
        }
        return platform.jarLoader().load(jars, platform.workspace(), parent);
    }
}
