package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import javax.servlet.sip.SipApplicationSession.Protocol;

import org.junit.jupiter.api.Test;

/**
 * The fields few application sessions use, kept in an {@link ApplicationExtras} made on first use: what an
 * application reads of them is the same with or without it.
 */
class ApplicationExtrasTest
{
    private final FakeHost host = new FakeHost();
    private final FakeApp app = new FakeApp();

    @Test
    void shouldFindASessionByTheKeyItWasMadeFor()
    {
        // JSR 289 §15.11.2: the session of a key is found again by that key
        final SipApplicationSessionImpl keyed = new SipApplicationSessionImpl(app, host, "conference-7");
        assertEquals("conference-7", keyed.key());
        assertSame(keyed, host.table.applicationByKey("fake", "conference-7"));
    }

    @Test
    void shouldHaveNoKeyTimersNorHttpSessionsUntilOneIsGiven()
    {
        final SipApplicationSessionImpl plain = new SipApplicationSessionImpl(app, host, null);
        assertNull(plain.key());
        // JSR 289 SipApplicationSession.getTimers, getSessions(protocol), getSession(id, protocol): empty, not null
        assertTrue(plain.getTimers().isEmpty());
        assertNull(plain.getTimer("t-1"));
        assertFalse(plain.getSessions("HTTP").hasNext());
        assertNull(plain.getSession("h-1", Protocol.HTTP));
        assertTrue(plain.readyToInvalidate(), "§6.1.2.2.2: no protocol session and no timer left");
    }

    @Test
    void shouldNumberSnapshotsOneAfterAnother()
    {
        final SipApplicationSessionImpl plain = new SipApplicationSessionImpl(app, host, null);
        assertEquals(1, plain.nextSnapshotVersion());
        assertEquals(2, plain.nextSnapshotVersion());
    }
}
