package io.sipline.container.replication;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sipline.container.replication.ApplicationSnapshot.DialogSnapshot;
import io.sipline.container.replication.ApplicationSnapshot.TimerSnapshot;

/** A snapshot survives its bytes exactly, and bytes that are not one are refused with a reason. */
class SnapshotCodecTest
{
    /** A B2BUA's application session: two confirmed dialogs linked together, an attribute each, one timer. */
    static ApplicationSnapshot b2buaCall(final String id, final long version)
    {
        final DialogSnapshot caller = new DialogSnapshot("s1", "CONFIRMED", false, "main",
            "a84b4c76e66710@pc33.example.com",
            "s0001a1b2c3d4e5f60", "1928301774", "sip:service@192.0.2.10", "sip:alice@example.com",
            "sip:alice@192.0.2.1:5060", List.of("<sip:192.0.2.100;lr;ftag=1928301774>"), 1, 2, "s2",
            Map.of("billing", "gold".getBytes(StandardCharsets.UTF_8)));
        final DialogSnapshot callee = new DialogSnapshot("s2", "CONFIRMED", true, "main",
            "s0001deadbeef00123@192.0.2.10",
            "s0001ffeeddccbbaa9", "as83kd", "sip:alice@example.com", "sip:bob@example.org", "sip:bob@192.0.2.2",
            List.of(), 2, -1, "s1", Map.of());
        return new ApplicationSnapshot(id, "b2bua", 1, version, 1_700_000_000_000L, 1_700_000_180_000L,
            Map.of("legs", new byte[] {1, 2, 3}), List.of(caller, callee),
            List.of(new TimerSnapshot("t1", 1_700_000_060_000L, 30_000, true, new byte[] {9}),
                new TimerSnapshot("t2", 1_700_000_090_000L, 0, false, null)));
    }

    @Test
    void shouldReadBackWhatItWrote()
    {
        final ApplicationSnapshot s = b2buaCall("app-1", 7);
        final byte[] bytes = SnapshotCodec.encode(s);
        final ApplicationSnapshot back = SnapshotCodec.decode(bytes);
        assertSame(s, back);
        assertTrue(bytes.length < 1024, "a compact snapshot: " + bytes.length + " bytes");
    }

    @Test
    void shouldRefuseBytesThatAreNotASnapshot()
    {
        final byte[] bytes = SnapshotCodec.encode(b2buaCall("app-2", 1));
        assertThrows(IllegalArgumentException.class, () -> SnapshotCodec.decode(new byte[] {'x', 'y', 1, 0}));
        final byte[] otherFormat = bytes.clone();
        otherFormat[2] = 99;
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> SnapshotCodec.decode(otherFormat));
        assertTrue(e.getMessage().contains("format 99"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
            () -> SnapshotCodec.decode(Arrays.copyOf(bytes, bytes.length / 2)), "a truncated snapshot");
    }

    /** Field by field, byte arrays by content (records compare arrays by identity). */
    static void assertSame(final ApplicationSnapshot expected, final ApplicationSnapshot actual)
    {
        assertEquals(expected.id(), actual.id());
        assertEquals(expected.application(), actual.application());
        assertEquals(expected.node(), actual.node());
        assertEquals(expected.version(), actual.version());
        assertEquals(expected.createdMs(), actual.createdMs());
        assertEquals(expected.expiresAtMs(), actual.expiresAtMs());
        assertAttributes(expected.attributes(), actual.attributes());
        assertEquals(expected.sessions().size(), actual.sessions().size());
        for (int i = 0; i < expected.sessions().size(); i++)
        {
            final DialogSnapshot e = expected.sessions().get(i);
            final DialogSnapshot a = actual.sessions().get(i);
            assertEquals(e.withoutAttributes(), a.withoutAttributes());
            assertAttributes(e.attributes(), a.attributes());
        }
        assertEquals(expected.timers().size(), actual.timers().size());
        for (int i = 0; i < expected.timers().size(); i++)
        {
            final TimerSnapshot e = expected.timers().get(i);
            final TimerSnapshot a = actual.timers().get(i);
            assertEquals(e.id(), a.id());
            assertEquals(e.fireAtMs(), a.fireAtMs());
            assertEquals(e.periodMs(), a.periodMs());
            assertEquals(e.fixedRate(), a.fixedRate());
            if (null == e.info())
            {
                assertNull(a.info());
            }
            else
            {
                assertArrayEquals(e.info(), a.info());
            }
        }
    }

    private static void assertAttributes(final Map<String, byte[]> expected, final Map<String, byte[]> actual)
    {
        assertEquals(expected.keySet(), actual.keySet());
        expected.forEach((k, v) -> assertArrayEquals(v, actual.get(k), k));
    }
}
