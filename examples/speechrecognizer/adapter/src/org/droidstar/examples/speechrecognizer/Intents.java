package org.droidstar.examples.speechrecognizer;

import android.content.Intent;
import android.speech.RecognizerIntent;

/**
 * Argument objects for examples/speechrecognizer/purpose.yaml. A purpose's
 * argument literals cannot build an Intent, so the purpose reads this field
 * with {constant: org.droidstar.examples.speechrecognizer.Intents.RECOGNIZE}.
 */
public final class Intents {
    /**
     * startListening's intent: ACTION_RECOGNIZE_SPEECH with the free-form
     * language model and final results only.
     */
    public static final Intent RECOGNIZE = new Intent(RecognizerIntent.ACTION_RECOGNIZE_SPEECH)
            .putExtra(RecognizerIntent.EXTRA_LANGUAGE_MODEL, RecognizerIntent.LANGUAGE_MODEL_FREE_FORM)
            .putExtra(RecognizerIntent.EXTRA_PARTIAL_RESULTS, false)
            .putExtra(RecognizerIntent.EXTRA_CALLING_PACKAGE, "org.droidstar.harness");

    private Intents() {
    }
}
