package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/** The dialog table: tags of the ShardIds form as keys, growth, and removal inside probe runs. */
class SessionTableTest
{
    @Test
    void shouldFindEveryLiveSessionThroughGrowthAndRandomRemovals()
    {
        final FakeHost host = new FakeHost();
        final SessionTable table = new SessionTable();
        final SipApplicationSessionImpl app = new SipApplicationSessionImpl(new FakeApp(), host, null);
        final List<SipSessionImpl> live = new ArrayList<>();
        final SplittableRandom random = new SplittableRandom(3261);
        for (int i = 0; i < 10_000; i++)
        {
            final SipSessionImpl s = SipSessionImpl.forOutgoing(app, null, "<sip:a@x>", "<sip:b@y>", "sip:b@y", "m");
            table.putDialog(s.localTag(), s);
            live.add(s);
            if (random.nextInt(3) == 0)
            {
                final SipSessionImpl gone = live.remove(random.nextInt(live.size()));
                table.removeDialog(gone.localTag(), gone);
                assertNull(table.dialog(gone.callId(), gone.localTag()));
            }
        }
        assertEquals(live.size(), table.dialogCount());
        for (final SipSessionImpl s : live)
        {
            assertSame(s, table.dialog(s.callId(), s.localTag()));
            assertNull(table.dialog("other-call-id", s.localTag()), "the Call-ID must match too");
        }
    }

    @Test
    void shouldRefuseTagsThisStackDidNotMake()
    {
        final SessionTable table = new SessionTable();
        assertEquals(-1, SessionTable.key("1928301774"));
        assertEquals(-1, SessionTable.key("s0000zzzzzzzzzzzzz"));
        assertEquals(-1, SessionTable.key("s01abcdef0123456"), "16 characters are not an id of ours");
        assertEquals(0x1ABCDEF0123456L, SessionTable.key("s0107abcdef0123456"), "the node digits are not in the key");
        assertThrows(IllegalArgumentException.class, () -> table.putDialog("peer-tag", null));
        assertNull(table.dialog("c", "peer-tag"));
    }

    @Test
    void shouldShrinkTheDialogIndexOnceABurstOfCallsHasEndedForTheQuietTrims()
    {
        final FakeHost host = new FakeHost();
        final SessionTable table = new SessionTable();
        final SipApplicationSessionImpl app = new SipApplicationSessionImpl(new FakeApp(), host, null);
        final List<SipSessionImpl> burst = new ArrayList<>();
        for (int i = 0; i < 5_000; i++)
        {
            final SipSessionImpl s = SipSessionImpl.forOutgoing(app, null, "<sip:a@x>", "<sip:b@y>", "sip:b@y", "m");
            table.putDialog(s.localTag(), s);
            burst.add(s);
        }
        assertEquals(16_384, table.dialogCapacity());
        final SipSessionImpl held = burst.removeFirst();
        for (final SipSessionImpl s : burst)
        {
            table.removeDialog(s.localTag(), s);
        }
        long now = 7_000_000_000L;
        for (int second = 0; second < SessionTable.QUIET_TRIMS; second++, now += SessionTable.TRIM_PERIOD_NS)
        {
            table.trim(now);
            table.trim(now + SessionTable.TRIM_PERIOD_NS / 2); // a tick within the second: nothing
        }
        assertEquals(16_384, table.dialogCapacity(), "the first trim saw the burst's peak");
        table.trim(now);
        assertEquals(2_048, table.dialogCapacity(), "back to its initial size");
        now += SessionTable.TRIM_PERIOD_NS;
        table.trim(now); // the rest of the old slots moved
        assertSame(held, table.dialog(held.callId(), held.localTag()));
        assertEquals(1, table.dialogCount());
    }
}
