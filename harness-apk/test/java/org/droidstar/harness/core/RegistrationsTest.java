package org.droidstar.harness.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.Collections;

import org.junit.Test;

public class RegistrationsTest {
    @Test
    public void aNewGenerationHandsBackTheOlderOnes() {
        Registrations<String> r = new Registrations<String>();
        assertEquals(Collections.<String>emptyList(), r.register(1, "a1"));
        // a second receiver of the same query keeps the first
        assertEquals(Collections.<String>emptyList(), r.register(1, "b1"));
        assertEquals(Arrays.asList("a1", "b1"), r.register(2, "a2"));
        assertEquals(1, r.size());
        assertTrue(r.remove("a2"));
        assertFalse(r.remove("a2"));
        assertEquals(Collections.<String>emptyList(), r.register(3, "a3"));
    }
}
