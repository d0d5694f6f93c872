package org.droidstar.examples.spellcheckersession;

import android.content.Context;
import android.view.textservice.SpellCheckerSession;
import android.view.textservice.TextInfo;
import android.view.textservice.TextServicesManager;

/**
 * The factory and the argument objects of
 * examples/spellcheckersession/purpose.yaml. A session comes from the
 * TextServicesManager system service, an instance method of a Context, which
 * a purpose's static factory cannot reach; and getSentenceSuggestions takes
 * an array, which argument literals cannot build.
 */
public final class Sessions {
    /** getSentenceSuggestions' argument: one sentence with two misspelled words. */
    public static final TextInfo[] SENTENCE = {new TextInfo("Ths sentense has two mispelled words.")};

    private Sessions() {
    }

    /**
     * A new session of the default spell checker in the language of its
     * settings, whose callbacks go to listener on the calling thread's looper
     * (the harness calls factories on the main thread). Returns null when the
     * device has no enabled spell checker; the harness then answers the
     * query's reset with err.
     */
    public static SpellCheckerSession open(Context context, SpellCheckerSession.SpellCheckerSessionListener listener) {
        TextServicesManager tsm = (TextServicesManager) context.getSystemService(Context.TEXT_SERVICES_MANAGER_SERVICE);
        if (tsm == null) {
            throw new IllegalStateException("no TextServicesManager on this device");
        }
        return tsm.newSpellCheckerSession(null, null, listener, true);
    }
}
