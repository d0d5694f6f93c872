package org.droidstar.harness.core;

import java.io.File;
import java.io.Serializable;

/**
 * {"file": NAME} and {"path": NAME}: a file in the run's files folder,
 * named relative to it, as a String or File, or as a java.nio.file.Path.
 */
final class FileLiterals {
    private FileLiterals() {
    }

    private static final Ranking FILE = Ranking.NONE.at(0, String.class).at(1, File.class)
            .at(2, CharSequence.class, Comparable.class, Serializable.class).at(3, Object.class);

    static Literal parse(String key, Object v, String where) throws ProtocolError {
        String w = where + "." + key;
        if (!(v instanceof String) || ((String) v).isEmpty()) {
            throw Literal.bad(w, "{\"" + key + "\": NAME} needs a file name, not "
                    + (v instanceof String ? "an empty string" : Json.typeName(v)));
        }
        try {
            EnvAction.checkRelative((String) v, w);
        } catch (ProtocolError e) {
            throw Literal.bad(e.where(), e.getMessage());
        }
        return key.equals("file") ? new FileLit(where, (String) v) : PathLit.make(where, (String) v);
    }

    /** {"file": NAME}: an absolute path as a String, or a File where the parameter wants one. */
    static final class FileLit extends Literal {
        final String name;

        FileLit(String where, String name) {
            super(where, FILE, String.class, "{\"file\":\"" + name + "\"}");
            this.name = name;
        }

        @Override
        public Object value(Class<?> param, Instances q) {
            File f = new File(q.filesDir, name);
            if (param == File.class) {
                return f;
            }
            return f.getAbsolutePath();
        }
    }

    /**
     * {"path": NAME}: a java.nio.file.Path to NAME in the files directory.
     * java.nio.file is looked up by name: Android has it from API 26 on,
     * and the harness is built against API 23.
     */
    static final class PathLit extends Literal.Typed {
        final String name;
        final java.lang.reflect.Method toPath;

        private PathLit(String where, String name, Class<?> type, java.lang.reflect.Method toPath) {
            super(where, type, "{\"path\":\"" + name + "\"}");
            this.name = name;
            this.toPath = toPath;
        }

        static PathLit make(String where, String name) throws ProtocolError {
            try {
                Class<?> type = Class.forName("java.nio.file.Path");
                return new PathLit(where, name, type, File.class.getMethod("toPath"));
            } catch (ClassNotFoundException e) {
                throw Literal.bad(where + ".path", "this platform has no java.nio.file.Path (Android has it from 8.0, API 26): "
                        + "write {\"file\": \"" + name + "\"} for a String or a java.io.File");
            } catch (NoSuchMethodException e) {
                throw Literal.bad(where + ".path", "this platform has no java.io.File.toPath(): " + e);
            }
        }

        @Override
        public Object value(Class<?> param, Instances q) throws Exception {
            return Invocable.unwrap(toPath, new File(q.filesDir, name), new Object[0]);
        }
    }
}
