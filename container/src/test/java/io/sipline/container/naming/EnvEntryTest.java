package io.sipline.container.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** env-entry values converted from descriptor text (Servlet 3.1 §15.5.3 types). */
class EnvEntryTest
{
    @Test
    void shouldConvertEveryBoxedTypeAndString()
    {
        assertEquals("a b ", EnvEntry.of("s", "java.lang.String", "a b ").value());
        assertEquals("plain", EnvEntry.of("s", null, "plain").value());
        assertEquals(Boolean.TRUE, EnvEntry.of("b", "java.lang.Boolean", "TRUE").value());
        assertEquals((byte)7, EnvEntry.of("b", "java.lang.Byte", "7").value());
        assertEquals('x', EnvEntry.of("c", "java.lang.Character", "x").value());
        assertEquals((short)-3, EnvEntry.of("s", "java.lang.Short", "-3").value());
        assertEquals(42, EnvEntry.of("i", "java.lang.Integer", " 42 ").value());
        assertEquals(1L << 40, EnvEntry.of("l", "java.lang.Long", Long.toString(1L << 40)).value());
        assertEquals(1.5f, EnvEntry.of("f", "java.lang.Float", "1.5").value());
        assertEquals(2.25, EnvEntry.of("d", "Double", "2.25").value());
        assertEquals(Integer.class, EnvEntry.of("i", "Integer", null).type());
        assertNull(EnvEntry.of("i", "Integer", null).value());
    }

    @Test
    void shouldNormalizeTheName()
    {
        assertEquals("limits/max", EnvEntry.of("java:comp/env/limits//max/", null, "1").name());
    }

    @Test
    void shouldRefuseTextOfAnotherTypeAndUnsupportedTypes()
    {
        final IllegalArgumentException notInt =
            assertThrows(IllegalArgumentException.class, () -> EnvEntry.of("max", "java.lang.Integer", "ten"));
        assertEquals("env-entry 'max': 'ten' is not a java.lang.Integer", notInt.getMessage());
        assertThrows(IllegalArgumentException.class, () -> EnvEntry.of("b", "java.lang.Boolean", "yes"));
        assertThrows(IllegalArgumentException.class, () -> EnvEntry.of("c", "java.lang.Character", "xy"));
        final IllegalArgumentException type =
            assertThrows(IllegalArgumentException.class, () -> EnvEntry.of("d", "java.util.Date", "1"));
        assertTrue(type.getMessage().contains("java.util.Date is not supported"), type.getMessage());
        assertThrows(IllegalArgumentException.class, () -> EnvEntry.of("", null, "1"));
    }
}
