package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sipline.container.replication.ApplicationSnapshot;

/**
 * The calls a shard adopts wait in order and are found by the Call-ID of either of their dialogs: a request of a
 * waiting call takes it out ahead of its turn, and the calls restored in order afterwards skip it.
 */
class AdoptionBacklogTest
{
    @Test
    void shouldGiveTheCallsInOrderAndACallOfARequestAheadOfItsTurnOnce()
    {
        final AdoptionBacklog backlog = new AdoptionBacklog();
        final List<ApplicationSnapshot> calls = new ArrayList<>();
        for (int i = 0; i < 5; i++)
        {
            calls.add(call("app-" + i, "in-" + i, "out-" + i));
            backlog.add(calls.get(i));
        }
        backlog.add(call("app-1", "in-1", "out-1")); // handed over twice: waits once
        assertEquals(5, backlog.size());

        assertSame(calls.get(3), backlog.take("out-3"), "the callee leg's Call-ID finds the call");
        assertNull(backlog.take("in-3"), "taken out with both of its dialogs");
        assertNull(backlog.take("unknown"));

        final List<String> restored = new ArrayList<>();
        for (ApplicationSnapshot next = backlog.next(); null != next; next = backlog.next())
        {
            restored.add(next.id());
        }
        assertEquals(List.of("app-0", "app-1", "app-2", "app-4"), restored);
        assertTrue(backlog.isEmpty());
        assertNull(backlog.take("in-0"), "a restored call is no longer found");
    }

    private static ApplicationSnapshot call(final String id, final String inCallId, final String outCallId)
    {
        return new ApplicationSnapshot(id, "b2bua", 1, 1, 1L, 0L, Map.of(), List.of(dialog("s1", inCallId),
            dialog("s2", outCallId)), List.of());
    }

    private static ApplicationSnapshot.DialogSnapshot dialog(final String session, final String callId)
    {
        return new ApplicationSnapshot.DialogSnapshot(session, "CONFIRMED", false, "main", callId,
            "s0001a1b2c3d4e5f60", "abc", "sip:a@192.0.2.1", "sip:b@192.0.2.2", "sip:b@192.0.2.2", List.of(), 1, 1,
            null, Map.of());
    }
}
