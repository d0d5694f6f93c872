package org.droidstar.harness.testadapter;

/** A class in the adapter jar that does not implement Adapter. */
public final class NotAnAdapter {
}
