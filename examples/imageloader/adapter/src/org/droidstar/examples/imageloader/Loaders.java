package org.droidstar.examples.imageloader;

import android.content.Context;

import com.nostra13.universalimageloader.core.ImageLoader;
import com.nostra13.universalimageloader.core.ImageLoaderConfiguration;

/**
 * The factory of examples/imageloader/purpose.yaml. ImageLoader is a
 * singleton that must be initialised once with a configuration made from a
 * Context, which argument literals cannot build; and every query must start
 * from a loader with no running or scheduled task, as DroidStar's reset did.
 */
public final class Loaders {
    private Loaders() {
    }

    /**
     * ImageLoader.getInstance(), initialised with the default configuration
     * (no memory or disk caching by default display options) the first time,
     * and stopped, which discards the previous query's tasks.
     */
    public static ImageLoader instance(Context context) {
        ImageLoader il = ImageLoader.getInstance();
        if (!il.isInited()) {
            il.init(ImageLoaderConfiguration.createDefault(context));
        }
        il.stop();
        return il;
    }
}
