package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ObjectInputStream;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.sipline.container.replication.ApplicationSnapshot;
import io.sipline.container.replication.ApplicationSnapshot.DialogSnapshot;
import io.sipline.container.replication.SnapshotCodec;
import io.sipline.container.replication.SnapshotSink;

/**
 * A distributable application's sessions ({@code <distributable/>}, JSR 289) leave snapshots at their dialog
 * boundaries: none on a provisional response, one when the dialog is confirmed and one when each later transaction
 * completes, holding the dialog state, the Serializable attributes and the pending timers; the removal when the
 * application session ends.
 * An application that is not distributable leaves nothing.
 */
class SessionSnapshotsTest
{
    private final FakeHost host = new FakeHost();
    private final FakeApp app = new FakeApp();
    private final List<ApplicationSnapshot> written = new ArrayList<>();
    private final List<String> removed = new ArrayList<>();

    private final SnapshotSink sink = new SnapshotSink()
    {
        @Override
        public int node()
        {
            return 3;
        }

        @Override
        public void write(final ApplicationSnapshot snapshot)
        {
            written.add(snapshot);
        }

        @Override
        public void remove(final String id)
        {
            removed.add(id);
        }
    };

    private SipServletRequestImpl invite()
    {
        final SipServletRequestImpl r = SipServletRequestImpl.received(TestMessages.parse(TestMessages.INVITE), null,
            TestMessages.PEER, TestMessages.LOCAL);
        r.initial(true);
        final SipApplicationSessionImpl as = new SipApplicationSessionImpl(app, host, null);
        final SipSessionImpl s = SipSessionImpl.forReceived(as, r, "main");
        s.begin(r);
        return r;
    }

    /** The peer's BYE, matched to the dialog as the container does (§12.2.2: the remote CSeq moves on). */
    private static SipServletRequestImpl bye(final SipSessionImpl s)
    {
        final io.sipline.sip.message.SipMessage message = TestMessages.parse(
            TestMessages.INVITE.replace("INVITE sip", "BYE sip").replace("314159 INVITE", "314160 BYE"));
        assertEquals(0, s.matchInDialog(message));
        final SipServletRequestImpl bye = SipServletRequestImpl.received(message, null,
            TestMessages.PEER, TestMessages.LOCAL);
        bye.session(s);
        s.begin(bye);
        return bye;
    }

    @Test
    void shouldSnapshotAtEachDialogBoundaryAndRemoveWhenTheSessionEnds() throws Exception
    {
        app.replication = sink;
        final SipServletRequestImpl invite = invite();
        final SipSessionImpl s = invite.sessionImpl();
        final SipApplicationSessionImpl as = s.appSession();
        as.setAttribute("legs", 2);
        as.setAttribute("socket", new Object()); // not Serializable: stays on this node
        s.setAttribute("peer", "bob");
        final ServletTimerImpl timer = new ServletTimerImpl(as, 60_000, 0, false, "reminder");

        invite.createResponse(180).send();
        assertTrue(written.isEmpty(), "a provisional response is no boundary");
        invite.createResponse(200).send();
        assertEquals(1, written.size(), "the dialog is confirmed");
        final ApplicationSnapshot confirmed = written.getFirst();
        assertEquals(as.getId(), confirmed.id());
        assertEquals("fake", confirmed.application());
        assertEquals(3, confirmed.node());
        assertEquals(1, confirmed.version());
        assertEquals(as.getExpirationTime(), confirmed.expiresAtMs());
        assertEquals(2, (Integer)deserialize(confirmed.attributes().get("legs")));
        assertFalse(confirmed.attributes().containsKey("socket"));
        final DialogSnapshot d = confirmed.sessions().getFirst();
        assertEquals(s.getId(), d.id());
        assertEquals("CONFIRMED", d.state());
        assertEquals("a84b4c76e66710@pc33.atlanta.example", d.callId());
        assertEquals("1928301774", d.remoteTag());
        assertEquals(s.localTag(), d.localTag());
        assertEquals("sip:alice@192.0.2.9:5062", d.remoteTarget());
        assertEquals(List.of("<sip:p1.example;lr>"), d.routeSet());
        assertEquals(314159, d.remoteCSeq());
        assertNull(d.linkedId());
        assertEquals("bob", deserialize(d.attributes().get("peer")));
        assertEquals(1, confirmed.timers().size());
        assertEquals(timer.getId(), confirmed.timers().getFirst().id());
        assertEquals(timer.scheduledExecutionTime(), confirmed.timers().getFirst().fireAtMs());
        assertEquals("reminder", deserialize(confirmed.timers().getFirst().info()));
        final ApplicationSnapshot decoded = SnapshotCodec.decode(SnapshotCodec.encode(confirmed));
        assertEquals(d.withoutAttributes(), decoded.sessions().getFirst().withoutAttributes());
        assertArrayEquals(confirmed.attributes().get("legs"), decoded.attributes().get("legs"));

        bye(s).createResponse(200).send();
        assertEquals(2, written.size(), "the BYE's transaction completed");
        assertEquals(2, written.get(1).version());
        assertEquals("TERMINATED", written.get(1).sessions().getFirst().state());
        assertEquals(314160, written.get(1).sessions().getFirst().remoteCSeq());
        assertTrue(removed.isEmpty());
        timer.cancel();
        as.checkReady();
        assertFalse(as.isValid());
        assertEquals(List.of(as.getId()), removed, "the ended session leaves the grid");
    }

    @Test
    void shouldLeaveNothingForAnApplicationThatIsNotDistributable() throws Exception
    {
        final SipServletRequestImpl invite = invite();
        invite.createResponse(200).send();
        final SipSessionImpl s = invite.sessionImpl();
        bye(s).createResponse(200).send();
        s.appSession().checkReady();
        assertFalse(s.appSession().isValid());
        assertTrue(written.isEmpty());
        assertTrue(removed.isEmpty());
    }

    private static Object deserialize(final byte[] bytes) throws Exception
    {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes)))
        {
            return in.readObject();
        }
    }
}
