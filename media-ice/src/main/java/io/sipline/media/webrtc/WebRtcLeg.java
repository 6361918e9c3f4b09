package io.sipline.media.webrtc;

import io.sipline.media.dtls.DtlsEndpoint;
import io.sipline.media.dtls.DtlsFailure;
import io.sipline.media.dtls.DtlsListener;
import io.sipline.media.dtls.DtlsRole;
import io.sipline.media.dtls.DtlsSender;
import io.sipline.media.dtls.DtlsSetup;
import io.sipline.media.dtls.DtlsSrtpKeys;
import io.sipline.media.relay.DtlsLeg;
import io.sipline.media.relay.RelayDrop;
import io.sipline.media.sdp.MediaDescription;
import io.sipline.media.service.WebRtcLegs;
import io.sipline.media.stun.StunIntegrity;
import io.sipline.media.stun.StunTransport;

import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * One WebRTC leg: its {@link IceLiteAgent}, its {@link DtlsEndpoint} and the SDP attributes of both (RFC 8839,
 * RFC 8842). The DTLS handshake starts once ICE has nominated a pair (RFC 5763 §5: after ICE) and the peer's
 * description is known: as the client towards the selected address, or as the server on the first DTLS datagram from
 * a checked address. The exported keys go to the relay leg ({@link DtlsLeg#keysReady}); a failed handshake, a
 * fingerprint mismatch or lost consent (RFC 7675) go to {@link DtlsLeg#handshakeFailed}, which stops the stream and
 * tells the application.
 *
 * <p>Threading: {@link #describe} and {@link #peer} run on the application's thread and publish through volatile
 * fields; the packet callbacks, {@link #tick()} and the agent run on the leg's media thread; the DTLS endpoint calls
 * {@link DtlsSender} and {@link DtlsListener} on its handshake thread, whose datagrams are copied and queued to the
 * media thread. Buffers handed in are borrowed for the call.
 *
 * <p>Later offers and answers on the same leg (a re-INVITE) keep our certificate and, unless the peer's offer changes
 * them, our DTLS role. A re-offer with new ICE credentials restarts ICE (RFC 8445 §9): we answer with new credentials
 * of our own, which the media thread hands to the agent before the next STUN datagram; the DTLS association and its
 * keys stay, and the handshake's and the media's address follow the pair the new checks nominate. A new fingerprint
 * of the peer, or other DTLS roles in its offer, ask for a new DTLS association (RFC 8842 §4): once the exchange is
 * complete the media thread closes the established one and starts the new handshake on the selected pair; media goes
 * on under the old keys until the new ones arrive.
 */
final class WebRtcLeg implements WebRtcLegs.Leg, StunTransport, DtlsSender, DtlsListener
{
    private final DtlsWebRtcLegs owner;
    private final IceLiteAgent ice;
    private final Runnable tick = this::tick;
    private final Runnable startIfReady = this::startIfReady;
    private final Runnable renewAssociation = this::renewAssociation;
    private volatile WebRtcPeer peer;
    /** Our ICE credentials as written in our latest description; the media thread installs them in the agent. */
    private volatile IceCredentials credentials;
    private IceCredentials installed;
    private volatile boolean described;
    private volatile long negotiatedMs = -1;
    private volatile DtlsLeg relay;
    private volatile boolean closed;
    private DtlsEndpoint dtls;
    private InetSocketAddress dtlsPeer;
    private boolean failed;
    private long dtlsEarly;

    WebRtcLeg(final DtlsWebRtcLegs owner, final String ufrag, final String password)
    {
        this.owner = owner;
        this.credentials = new IceCredentials(ufrag, password);
        this.installed = credentials;
        this.ice = new IceLiteAgent(ufrag, password, new StunIntegrity(), this, owner.consentTimeoutMs());
    }

    /** Our {@code ice-ufrag} and {@code ice-pwd}, published together. */
    private record IceCredentials(String ufrag, String password)
    {
    }

    @Override
    public void describe(final MediaDescription local, final boolean offer)
    {
        final WebRtcPeer p = peer;
        if (!offer && null == p)
        {
            throw new IllegalStateException("an answer is described after the peer's offer was read");
        }
        final IceCredentials ours = credentials;
        local.add("ice-ufrag", ours.ufrag());
        local.add("ice-pwd", ours.password());
        local.add("candidate", owner.hostCandidate(local.port()));
        local.add("end-of-candidates", null);
        local.add("fingerprint", owner.certificate().sdpFingerprint());
        // RFC 8842 §5.5: once the role is settled, later offers and answers keep it, and so the DTLS association.
        local.add("setup", offer && null == p ? "actpass" : settledSetup(p).sdpValue());
        if (!local.rtcpMux())
        {
            local.add("rtcp-mux", null);
        }
        described = true;
        negotiated();
    }

    private static DtlsSetup settledSetup(final WebRtcPeer p)
    {
        return DtlsRole.CLIENT == p.role() ? DtlsSetup.ACTIVE : DtlsSetup.PASSIVE;
    }

    @Override
    public void check(final MediaDescription remote, final boolean offer)
    {
        checked(peer, remote, offer);
    }

    /** The peer's description parsed, and allowed as a renegotiation of {@code before} (if any); else it throws. */
    private static WebRtcPeer checked(final WebRtcPeer before, final MediaDescription remote, final boolean offer)
    {
        final WebRtcPeer next = WebRtcPeer.parse(remote, offer);
        if (null != before)
        {
            before.checkRenegotiation(next, offer);
        }
        return next;
    }

    @Override
    public void peer(final MediaDescription remote, final boolean offer)
    {
        final WebRtcPeer before = peer;
        final WebRtcPeer next = checked(before, remote, offer);
        if (null != before)
        {
            if (before.restartsIce(next))
            {
                // RFC 8445 §9: the answer to a restart has new credentials of ours; DTLS stays (RFC 8842 §5.5).
                peer = before.restarted(next);
                credentials = new IceCredentials(owner.iceChars(8), owner.iceChars(24));
            }
            if (before.newAssociation(next, offer))
            {
                // RFC 8842 §4: a new fingerprint or new roles replace the association; ICE and its pair stay.
                peer = before.renewed(next, offer);
                final DtlsLeg r = relay;
                if (null != r)
                {
                    r.execute(renewAssociation);
                }
            }
            return;
        }
        peer = next;
        negotiated();
        final DtlsLeg r = relay;
        if (null != r)
        {
            r.execute(startIfReady);
        }
    }

    /** The offer/answer exchange is complete once both sides are described: checks may come from now on. */
    private void negotiated()
    {
        if (described && null != peer && negotiatedMs < 0)
        {
            negotiatedMs = owner.nowMs();
        }
    }

    @Override
    public void onOpen(final DtlsLeg leg)
    {
        relay = leg;
        owner.register(this);
    }

    @Override
    public void onStunPacket(final DtlsLeg leg, final byte[] buffer, final int offset, final int length,
        final InetSocketAddress source)
    {
        if (failed)
        {
            leg.dropped(RelayDrop.INACTIVE);
            return;
        }
        final IceCredentials ours = credentials;
        if (ours != installed)
        {
            // An ICE restart was answered: checks signed with these may come from now on.
            installed = ours;
            ice.restart(ours.ufrag(), ours.password());
        }
        final int result = ice.onStun(buffer, offset, length, source, owner.nowMs());
        if (IceLiteAgent.NOMINATED != result)
        {
            switch (result)
            {
                case IceLiteAgent.UNAUTHENTICATED -> leg.dropped(RelayDrop.STUN_UNAUTHENTICATED);
                case IceLiteAgent.REJECTED -> leg.dropped(RelayDrop.STUN_REJECTED);
                case IceLiteAgent.DROPPED -> leg.dropped(RelayDrop.STUN_UNANSWERED);
                default ->
                {
                    // A valid check: consent refreshed, nothing to count.
                }
            }
        }
        else
        {
            final InetSocketAddress selected = ice.selected();
            leg.latch(selected);
            if (null != dtls)
            {
                // RFC 8445 §8.1.1: the media (and the DTLS connection) follow the newly nominated pair.
                dtlsPeer = selected;
            }
            startIfReady();
        }
    }

    @Override
    public void onDtlsPacket(final DtlsLeg leg, final byte[] buffer, final int offset, final int length,
        final InetSocketAddress source)
    {
        if (failed)
        {
            leg.dropped(RelayDrop.INACTIVE);
            return;
        }
        if (!ice.isChecked(source))
        {
            dtlsEarly++;
            leg.dropped(RelayDrop.DTLS_UNCHECKED);
            return;
        }
        if (null == dtls)
        {
            final WebRtcPeer p = peer;
            if (null == p || DtlsRole.SERVER != p.role())
            {
                dtlsEarly++;
                leg.dropped(RelayDrop.DTLS_UNCHECKED);
                return;
            }
            start(p, source);
        }
        dtls.onDatagram(buffer, offset, length);
    }

    @Override
    public void onClose(final DtlsLeg leg)
    {
        closed = true;
        owner.unregister(this);
        if (null != dtls)
        {
            dtls.close();
        }
    }

    /** Media thread: starts the handshake once the peer is known and ICE has selected a pair. */
    private void startIfReady()
    {
        final WebRtcPeer p = peer;
        if (!failed && !closed && null == dtls && null != p && null != ice.selected())
        {
            start(p, ice.selected());
        }
    }

    /**
     * Media thread: ends the established DTLS association and starts the new one (RFC 8842 §4) in the role the
     * renegotiation gave, as the first one started: at once as the client, on the peer's first DTLS datagram as the
     * server. Media goes on under the old SRTP keys until the new handshake delivers new ones.
     */
    private void renewAssociation()
    {
        if (failed || closed)
        {
            return;
        }
        if (null != dtls)
        {
            dtls.close();
            dtls = null;
        }
        startIfReady();
    }

    private void start(final WebRtcPeer p, final InetSocketAddress towards)
    {
        dtlsPeer = towards;
        dtls = DtlsEndpoint.start(p.role(), owner.certificate(), p.fingerprint(), owner.dtlsConfig(), this, this);
    }

    /** Media thread, once a second: consent freshness and the handshake's deadline. */
    void tick()
    {
        if (failed || closed)
        {
            return;
        }
        final long nowMs = owner.nowMs();
        final long negotiated = negotiatedMs;
        if (negotiated >= 0)
        {
            ice.arm(negotiated);
        }
        if (ice.consentExpired(nowMs))
        {
            fail(null == ice.selected() ?
                "ICE failed: no valid connectivity check within " + owner.consentTimeoutMs() + " ms" :
                "ICE consent expired: no valid connectivity check for " + owner.consentTimeoutMs() +
                    " ms (RFC 7675 §5.1)");
            return;
        }
        if (null != dtls)
        {
            dtls.onTimer(nowMs);
        }
    }

    private void fail(final String reason)
    {
        failed = true;
        if (null != dtls)
        {
            dtls.close();
        }
        relay.handshakeFailed(reason);
    }

    /** @return the task {@link DtlsWebRtcLegs} queues to the media thread each second; made once. */
    Runnable tickTask()
    {
        return tick;
    }

    /** @return the relay leg, or null before the media thread opened it. */
    DtlsLeg relayLeg()
    {
        return relay;
    }

    @Override
    public void send(final byte[] buf, final int offset, final int length, final InetSocketAddress destination)
    {
        relay.send(buf, offset, length, destination);
    }

    @Override
    public void sendDtls(final byte[] datagram, final int offset, final int length)
    {
        // Handshake thread: the socket belongs to the media thread, so the flight goes there (handshake rate only).
        final byte[] copy = Arrays.copyOfRange(datagram, offset, offset + length);
        final DtlsLeg r = relay;
        r.execute(() -> r.send(copy, 0, copy.length, dtlsPeer));
    }

    @Override
    public void onDtlsConnected(final DtlsEndpoint endpoint, final DtlsSrtpKeys keys)
    {
        if (!closed && DtlsEndpoint.State.CLOSED != endpoint.state())
        {
            relay.keysReady(keys.outboundPolicy(), keys.inboundPolicy());
        }
    }

    @Override
    public void onDtlsFailed(final DtlsEndpoint endpoint, final DtlsFailure failure, final String detail)
    {
        if (!closed && DtlsFailure.CLOSED != failure)
        {
            final DtlsLeg r = relay;
            r.execute(() -> {
                if (!failed)
                {
                    failed = true;
                    r.handshakeFailed("DTLS " + failure.name().toLowerCase(java.util.Locale.ROOT) + ": " + detail);
                }
            });
        }
    }

    @Override
    public void onDtlsClosed(final DtlsEndpoint endpoint, final String detail)
    {
        // The peer's close_notify (RFC 5246 §7.2.1): its keys stay valid for media in flight; the call's BYE or the
        // relay's idle timeout ends the stream.
    }

    /** @return the ICE-lite agent, for tests on the media thread. */
    IceLiteAgent ice()
    {
        return ice;
    }

    /** @return DTLS datagrams dropped before a handshake could take them (unchecked source, role or peer unknown). */
    long dtlsEarly()
    {
        return dtlsEarly;
    }
}
