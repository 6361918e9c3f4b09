package io.sipline.media.service;

import io.sipline.media.relay.RelayEvents;
import io.sipline.media.relay.RelayLeg;
import io.sipline.media.relay.RelayStream;
import io.sipline.media.sdp.MediaDescription;
import io.sipline.media.sdp.SdpAttribute;
import io.sipline.media.sdp.SdpConnection;
import io.sipline.media.sdp.SdpException;
import io.sipline.media.sdp.SessionDescription;
import io.sipline.media.srtp.SdesCryptoAttribute;
import io.sipline.media.srtp.SrtpCryptoSuite;
import io.sipline.media.srtp.SrtpPolicy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One anchored call: the offer/answer translation between leg A's SDP and leg B's (RFC 3264), and the
 * {@link RelayStream} of each relayed {@code m=} line. Built by {@link RelayMediaService#anchor}; the offer for leg B
 * is written at once, the answer for leg A when leg B's answer arrives.
 * <ul>
 *   <li>Each {@code m=} line keeps its position, media type, payload types and media attributes ({@link SdpCopy});
 *       the relay writes its address, ports, {@code a=rtcp} (RFC 3605), {@code a=rtcp-mux} (RFC 5761) and the keys.
 *   <li>A stream rejected by either side (port 0), or one the relay cannot carry (not RTP, no usable
 *       {@code a=crypto}), gets port 0 on both legs and no sockets.
 *   <li>SDES (RFC 4568 §6.1): on leg A the relay answers the first offered {@code a=crypto} of a supported suite
 *       with a key of its own under the same tag; on leg B it offers AES_CM_128_HMAC_SHA1_80 (tag 1) and
 *       AES_CM_128_HMAC_SHA1_32 (tag 2) and uses the one leg B answers.
 *   <li>WebRTC legs ({@link WebRtcLegs}): each session with one gets {@code a=ice-lite}; the leg writes and reads its
 *       ICE and DTLS attributes, the peer's session-level ones folded in ({@link SdpCopy#withSessionTransport}).
 *   <li>Later offers from either leg, once answered, go through {@link AnchorRenegotiation}.
 * </ul>
 *
 * <p>Thread-safe: the state moves by compare-and-set; {@link #end()} may race with {@link #answer} from any thread.
 */
final class AnchoredCall implements MediaAnchor, RelayEvents
{
    private static final int OFFERED = 0;
    private static final int ANSWERING = 1;
    private static final int ANSWERED = 2;
    private static final int ENDED = 3;
    private static final int REOFFERING = 4;
    private static final int REOFFERED = 5;
    private static final int REANSWERING = 6;

    private final RelayMediaService service;
    private final MediaListener listener;
    private final MediaProfile profileB;
    private final long sessionId;
    /** Appended to by a re-offer that adds streams (signalling rate); read by the media thread's events. */
    private final List<Stream> streams = new CopyOnWriteArrayList<>();
    private final AtomicInteger state = new AtomicInteger(OFFERED);
    private String offerB;
    private long versionToA = 1;
    private long versionToB = 1;
    private boolean reofferFromA;
    private SessionDescription pendingReoffer;

    /**
     * One {@code m=} line: what leg A offered (or, for a stream a re-offer added, what the re-offering leg offered)
     * and the relay stream carrying it, or none when rejected.
     */
    static final class Stream
    {
        final MediaDescription offeredByA;
        /** Added by the pending re-offer: removed again if the re-offer is withdrawn. */
        boolean added;
        /** The removed stream whose slot this added one reuses, put back if the re-offer is withdrawn; else null. */
        Stream replaced;
        MediaProfile profileA;
        RelayStream relay;
        SdesCryptoAttribute cryptoFromA;
        SdesCryptoAttribute cryptoToA;
        List<SdesCryptoAttribute> cryptoToB = List.of();
        /** The SDES keys in use on leg B once answered: ours (the offered one leg B chose) and leg B's. */
        SdesCryptoAttribute cryptoUsedToB;
        SdesCryptoAttribute cryptoFromB;
        /** The media section of a re-offer waiting for its answer, and the SDES key we will answer it with. */
        MediaDescription reoffered;
        SdesCryptoAttribute reanswerCrypto;
        WebRtcLegs.Leg webRtcA;
        WebRtcLegs.Leg webRtcB;

        Stream(final MediaDescription offeredByA)
        {
            this.offeredByA = offeredByA;
        }
    }

    AnchoredCall(final RelayMediaService service, final MediaListener listener, final MediaProfile profileB)
    {
        this.service = service;
        this.listener = listener;
        this.profileB = profileB;
        this.sessionId = service.nextSessionId();
    }

    /**
     * Reads leg A's offer, opens a relay stream per usable {@code m=} line and writes leg B's offer.
     *
     * @param offer leg A's SDP.
     * @throws SdpException          when malformed or nothing can be anchored.
     * @throws IllegalStateException when the ports run out (every stream opened so far is closed again).
     */
    void start(final String offer)
    {
        final SessionDescription fromA = SessionDescription.parse(offer);
        final SessionDescription toB = ourDescription();
        SdpCopy.sessionAttributes(fromA.attributes(), toB.attributes());
        try
        {
            for (final MediaDescription m : fromA.media())
            {
                final Stream s = new Stream(m);
                streams.add(s);
                toB.media().add(offerStream(fromA, s));
            }
        }
        catch (final IOException e)
        {
            closeStreams();
            throw new IllegalStateException("cannot anchor the call's media: " + e.getMessage(), e);
        }
        catch (final RuntimeException e)
        {
            closeStreams();
            throw e;
        }
        if (anyWebRtc(true))
        {
            toB.attributes().add(new SdpAttribute("ice-lite", null));
        }
        offerB = toB.format();
    }

    private SessionDescription ourDescription()
    {
        return ourDescription(1);
    }

    /** RFC 3264 §8: each new description sent on a leg has the next {@code o=} version. */
    SessionDescription ourDescription(final long version)
    {
        final SessionDescription d = new SessionDescription();
        final SdpConnection ours = SdpCopy.connection(service.advertised());
        d.origin("sipline", sessionId, version, ours);
        d.connection(ours);
        return d;
    }

    private MediaDescription offerStream(final SessionDescription fromA, final Stream s) throws IOException
    {
        final MediaDescription a = s.offeredByA;
        s.profileA = a.port() == 0 || !a.isRtp() ? null : MediaProfile.ofProto(a.proto());
        if (MediaProfile.RTP_SAVP == s.profileA)
        {
            s.cryptoFromA = firstUsableCrypto(a);
        }
        final boolean usable = null != s.profileA && (MediaProfile.RTP_SAVP != s.profileA || null != s.cryptoFromA);
        if (!usable)
        {
            return new MediaDescription(a.media(), 0, a.proto(), a.formats());
        }
        s.webRtcA = MediaProfile.WEBRTC == s.profileA ? service.webRtcLeg() : null;
        s.webRtcB = MediaProfile.WEBRTC == profileB ? service.webRtcLeg() : null;
        if (null != s.webRtcA)
        {
            s.webRtcA.peer(SdpCopy.withSessionTransport(fromA, a), true);
        }
        s.relay = service.relay().open(this, MediaProfile.RTP_AVP != s.profileA, s.webRtcA,
            MediaProfile.RTP_AVP != profileB, s.webRtcB);
        final RelayLeg legA = s.relay.legA();
        final RelayLeg legB = s.relay.legB();
        final boolean muxA = a.rtcpMux() || MediaProfile.WEBRTC == s.profileA;
        legA.remote(SdpCopy.address(fromA.connectionOf(a), a.port()), rtcpAddress(fromA, a), muxA);
        if (null != s.cryptoFromA)
        {
            s.cryptoToA = SdesCryptoAttribute.generate(s.cryptoFromA.tag(), s.cryptoFromA.suite(), service.random());
            legA.keys(SrtpPolicy.fromSdes(s.cryptoToA).build(), SrtpPolicy.fromSdes(s.cryptoFromA).build());
        }
        final MediaDescription b = new MediaDescription(a.media(), legB.rtpPort(), profileB.proto(), a.formats());
        SdpCopy.mediaAttributes(a, b, profileB.proto().endsWith("F"));
        if (MediaProfile.WEBRTC != profileB)
        {
            b.add("rtcp", Integer.toString(legB.rtcpPort()));
        }
        b.add("rtcp-mux", null);
        if (MediaProfile.RTP_SAVP == profileB)
        {
            s.cryptoToB = List.of(
                SdesCryptoAttribute.generate(1, SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, service.random()),
                SdesCryptoAttribute.generate(2, SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_32, service.random()));
            for (final SdesCryptoAttribute c : s.cryptoToB)
            {
                b.add("crypto", c.format());
            }
        }
        if (null != s.webRtcB)
        {
            s.webRtcB.describe(b, true);
        }
        return b;
    }

    /**
     * A stream a re-offer adds (RFC 3264 §8.1: a new {@code m=} line after the others, or one in the slot of a stream
     * removed earlier with port 0, which the new description replaces in place): opens its relay stream and
     * writes the offer for the other leg, Y. The re-offering leg, X, keeps its own profile on leg A, and must use the
     * call's profile on leg B; leg A is offered the profile of its first relayed stream. SDES: our key for X's answer
     * under the tag and suite X chose first (RFC 4568 §7.1.2), and one key (AES_CM_128_HMAC_SHA1_80) offered to Y. A
     * stream that cannot be relayed is offered to Y with port 0 and answered with port 0. X's description and Y's
     * answer are taken when Y answers ({@link AnchorRenegotiation}); a withdrawn re-offer closes the stream again.
     *
     * @param from  the re-offer.
     * @param m     its new media section.
     * @param fromA whether leg A sent it.
     * @param slot  its index: the end of the call's streams, or the slot of a removed stream it reuses.
     * @return the media section of the offer for Y.
     * @throws IOException when the port range is exhausted.
     */
    MediaDescription addedStream(final SessionDescription from, final MediaDescription m, final boolean fromA,
        final int slot) throws IOException
    {
        final Stream s = new Stream(m);
        s.added = true;
        s.reoffered = m;
        if (slot < streams.size())
        {
            s.replaced = streams.get(slot);
            streams.set(slot, s);
        }
        else
        {
            streams.add(s);
        }
        final MediaProfile profileX = 0 == m.port() || !m.isRtp() ? null : MediaProfile.ofProto(m.proto());
        final MediaProfile profileY = fromA ? profileB : firstProfileA();
        final SdesCryptoAttribute theirs = MediaProfile.RTP_SAVP == profileX ? firstUsableCrypto(m) : null;
        final boolean usable = null != profileX && null != profileY && (fromA || profileX == profileB) &&
            (MediaProfile.RTP_SAVP != profileX || null != theirs);
        if (!usable)
        {
            return new MediaDescription(m.media(), 0, null == profileY ? m.proto() : profileY.proto(), m.formats());
        }
        s.profileA = fromA ? profileX : profileY;
        s.webRtcA = MediaProfile.WEBRTC == s.profileA ? service.webRtcLeg() : null;
        s.webRtcB = MediaProfile.WEBRTC == profileB ? service.webRtcLeg() : null;
        final WebRtcLegs.Leg webRtcX = fromA ? s.webRtcA : s.webRtcB;
        if (null != webRtcX)
        {
            webRtcX.check(SdpCopy.withSessionTransport(from, m), true);
        }
        s.relay = service.relay().open(this, MediaProfile.RTP_AVP != s.profileA, s.webRtcA,
            MediaProfile.RTP_AVP != profileB, s.webRtcB);
        SdesCryptoAttribute toY = null;
        if (MediaProfile.RTP_SAVP == profileY)
        {
            toY = SdesCryptoAttribute.generate(1, SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, service.random());
        }
        final SdesCryptoAttribute toX = null == theirs ? null
            : SdesCryptoAttribute.generate(theirs.tag(), theirs.suite(), service.random());
        s.cryptoToA = fromA ? toX : toY;
        s.cryptoUsedToB = fromA ? toY : toX;
        final RelayLeg legY = fromA ? s.relay.legB() : s.relay.legA();
        final MediaDescription y = new MediaDescription(m.media(), legY.rtpPort(), profileY.proto(), m.formats());
        SdpCopy.mediaAttributes(m, y, profileY.proto().endsWith("F"));
        if (MediaProfile.WEBRTC != profileY)
        {
            y.add("rtcp", Integer.toString(legY.rtcpPort()));
        }
        y.add("rtcp-mux", null);
        if (null != toY)
        {
            y.add("crypto", toY.format());
        }
        final WebRtcLegs.Leg webRtcY = fromA ? s.webRtcB : s.webRtcA;
        if (null != webRtcY)
        {
            webRtcY.describe(y, true);
        }
        return y;
    }

    /** @return the profile of leg A's first relayed stream, which a stream added towards leg A is offered in. */
    private MediaProfile firstProfileA()
    {
        for (final Stream s : streams)
        {
            if (null != s.profileA && !s.added)
            {
                return s.profileA;
            }
        }
        return null;
    }

    /**
     * Closes and forgets the streams the pending re-offer added (it was refused); a reused slot gets its removed
     * stream back.
     */
    void dropAddedStreams()
    {
        for (final Stream s : streams)
        {
            if (s.added)
            {
                if (null != s.relay)
                {
                    s.relay.close();
                }
                if (null == s.replaced)
                {
                    streams.remove(s);
                }
                else
                {
                    streams.set(streams.indexOf(s), s.replaced);
                }
            }
        }
    }

    /** RFC 4568 §7.1.2: the answerer picks the first offered attribute it supports; malformed ones are skipped. */
    static SdesCryptoAttribute firstUsableCrypto(final MediaDescription m)
    {
        for (final String value : m.attributes("crypto"))
        {
            try
            {
                final SdesCryptoAttribute c = SdesCryptoAttribute.parse(value);
                if (1 == c.keyCount() && null == c.mki(0))
                {
                    return c;
                }
            }
            catch (final IllegalArgumentException unsupported)
            {
                // An unknown suite or a malformed line: the next one may do.
            }
        }
        return null;
    }

    static InetSocketAddress rtcpAddress(final SessionDescription d, final MediaDescription m)
    {
        final String named = m.rtcpAddress();
        final SdpConnection c = null == named ? d.connectionOf(m)
            : new SdpConnection(named.contains(":") ? "IP6" : "IP4", named);
        return SdpCopy.address(c, m.rtcpPort());
    }

    @Override
    public String offer()
    {
        return offerB;
    }

    @Override
    public String answer(final String answer)
    {
        if (state.compareAndSet(REOFFERED, REANSWERING))
        {
            try
            {
                final String toOfferer = AnchorRenegotiation.answer(this, SessionDescription.parse(answer),
                    reofferFromA);
                if (!state.compareAndSet(REANSWERING, ANSWERED))
                {
                    throw new IllegalStateException("the anchor ended while its answer was read");
                }
                return toOfferer;
            }
            catch (final RuntimeException e)
            {
                state.compareAndSet(REANSWERING, REOFFERED);
                throw e;
            }
        }
        if (!state.compareAndSet(OFFERED, ANSWERING))
        {
            throw new IllegalStateException(ENDED == state.get() ? "the anchor has ended" : "already answered");
        }
        try
        {
            final String toA = translateAnswer(SessionDescription.parse(answer));
            if (!state.compareAndSet(ANSWERING, ANSWERED))
            {
                throw new IllegalStateException("the anchor ended while its answer was read");
            }
            return toA;
        }
        catch (final RuntimeException e)
        {
            state.compareAndSet(ANSWERING, OFFERED);
            throw e;
        }
    }

    private String translateAnswer(final SessionDescription fromB)
    {
        if (fromB.media().size() != streams.size())
        {
            throw new SdpException("the answer has " + fromB.media().size() + " m= lines, the offer had " +
                streams.size() + " (RFC 3264 §6: one per offered stream, in order)");
        }
        final SdpKeys[] keys = new SdpKeys[streams.size()];
        for (int i = 0; i < streams.size(); i++)
        {
            keys[i] = checkAnswerStream(i, fromB.media().get(i));
        }
        final SessionDescription toA = ourDescription();
        SdpCopy.sessionAttributes(fromB.attributes(), toA.attributes());
        for (int i = 0; i < streams.size(); i++)
        {
            toA.media().add(answerStream(fromB, streams.get(i), fromB.media().get(i), keys[i]));
        }
        if (anyWebRtc(false))
        {
            toA.attributes().add(new SdpAttribute("ice-lite", null));
        }
        return toA.format();
    }

    /** The SDES keys leg B answered for one stream: ours (the offered tag it chose) and its own. */
    private record SdpKeys(SdesCryptoAttribute ours, SdesCryptoAttribute theirs)
    {
    }

    /** Checks one answered stream before anything changes, so that a bad answer leaves the anchor as it was. */
    private SdpKeys checkAnswerStream(final int index, final MediaDescription b)
    {
        final Stream s = streams.get(index);
        if (null == s.relay || 0 == b.port())
        {
            return null;
        }
        if (MediaProfile.ofProto(b.proto()) != profileB)
        {
            throw new SdpException("m= line " + index + " of the answer is " + b.proto() + ", the offer was " +
                profileB.proto() + " (RFC 3264 §6: the answer keeps the offered transport)");
        }
        if (MediaProfile.RTP_SAVP != profileB)
        {
            return null;
        }
        for (final String value : b.attributes("crypto"))
        {
            final SdesCryptoAttribute theirs;
            try
            {
                theirs = SdesCryptoAttribute.parse(value);
            }
            catch (final IllegalArgumentException e)
            {
                throw new SdpException("m= line " + index + ": a=crypto:" + value + ": " + e.getMessage());
            }
            for (final SdesCryptoAttribute ours : s.cryptoToB)
            {
                if (ours.tag() == theirs.tag() && ours.suite() == theirs.suite())
                {
                    return new SdpKeys(ours, theirs);
                }
            }
        }
        throw new SdpException("m= line " + index + " of the answer has no a=crypto matching an offered tag and " +
            "suite (RFC 4568 §7.1.3)");
    }

    private MediaDescription answerStream(final SessionDescription fromB, final Stream s, final MediaDescription b,
        final SdpKeys keys)
    {
        final MediaDescription a = s.offeredByA;
        if (null == s.relay || 0 == b.port())
        {
            if (null != s.relay)
            {
                s.relay.close();
            }
            // RFC 3264 §6: a rejected stream keeps its m= line with port 0.
            return new MediaDescription(a.media(), 0, a.proto(), a.formats());
        }
        final RelayLeg legA = s.relay.legA();
        final RelayLeg legB = s.relay.legB();
        if (null != keys)
        {
            legB.keys(SrtpPolicy.fromSdes(keys.ours()).build(), SrtpPolicy.fromSdes(keys.theirs()).build());
            s.cryptoUsedToB = keys.ours();
            s.cryptoFromB = keys.theirs();
        }
        if (null != s.webRtcB)
        {
            s.webRtcB.peer(SdpCopy.withSessionTransport(fromB, b), false);
        }
        legB.remote(SdpCopy.address(fromB.connectionOf(b), b.port()), rtcpAddress(fromB, b),
            b.rtcpMux() || MediaProfile.WEBRTC == profileB);
        final MediaDescription r = new MediaDescription(a.media(), legA.rtpPort(), a.proto(), b.formats());
        SdpCopy.mediaAttributes(b, r, a.proto().endsWith("F"));
        if (a.rtcpMux() || MediaProfile.WEBRTC == s.profileA)
        {
            r.add("rtcp-mux", null);
        }
        else
        {
            r.add("rtcp", Integer.toString(legA.rtcpPort()));
        }
        if (null != s.cryptoToA)
        {
            r.add("crypto", s.cryptoToA.format());
        }
        if (null != s.webRtcA)
        {
            s.webRtcA.describe(r, false);
        }
        return r;
    }

    @Override
    public String reoffer(final String offer, final boolean fromA)
    {
        if (!state.compareAndSet(ANSWERED, REOFFERING))
        {
            throw new IllegalStateException(switch (state.get())
            {
                case ENDED -> "the anchor has ended";
                case REOFFERING, REOFFERED, REANSWERING -> "a re-offer is already waiting for its answer";
                default -> "the first offer has not been answered yet (RFC 3264 §8: one exchange at a time)";
            });
        }
        try
        {
            final String toOther = AnchorRenegotiation.offer(this, SessionDescription.parse(offer), fromA);
            reofferFromA = fromA;
            if (!state.compareAndSet(REOFFERING, REOFFERED))
            {
                throw new IllegalStateException("the anchor ended while its re-offer was read");
            }
            return toOther;
        }
        catch (final RuntimeException e)
        {
            state.compareAndSet(REOFFERING, ANSWERED);
            throw e;
        }
    }

    @Override
    public boolean withdraw()
    {
        if (!state.compareAndSet(REOFFERED, REANSWERING))
        {
            return false;
        }
        AnchorRenegotiation.withdraw(this);
        state.compareAndSet(REANSWERING, ANSWERED);
        return true;
    }

    @Override
    public boolean isReoffered()
    {
        return REOFFERED == state.get();
    }

    /** @return the re-offer waiting for its answer (for {@link AnchorRenegotiation}, under the state machine). */
    SessionDescription pendingReoffer()
    {
        return pendingReoffer;
    }

    /** @param offer the re-offer now waiting for its answer, or null once answered or withdrawn. */
    void pendingReoffer(final SessionDescription offer)
    {
        pendingReoffer = offer;
    }

    /** @return the streams, in {@code m=} line order (for {@link AnchorRenegotiation}, under the state machine). */
    List<Stream> streamList()
    {
        return streams;
    }

    /** @return the profile of leg B. */
    MediaProfile profileB()
    {
        return profileB;
    }

    /** @return the service (its random, its address). */
    RelayMediaService service()
    {
        return service;
    }

    /** @return the {@code o=} version of the next description sent on that leg. */
    long nextVersion(final boolean toA)
    {
        return toA ? ++versionToA : ++versionToB;
    }

    @Override
    public void end()
    {
        if (ENDED != state.getAndSet(ENDED))
        {
            closeStreams();
            service.ended(this);
        }
    }

    private void closeStreams()
    {
        for (final Stream s : streams)
        {
            if (null != s.relay)
            {
                s.relay.close();
            }
        }
    }

    @Override
    public boolean isEnded()
    {
        return ENDED == state.get();
    }

    @Override
    public int streams()
    {
        return streams.size();
    }

    @Override
    public boolean isRelayed(final int stream)
    {
        final RelayStream relay = streams.get(stream).relay;
        return null != relay && !relay.isClosed();
    }

    /**
     * @param stream a stream's index.
     * @return its relay stream, or null when rejected (for tests and statistics).
     */
    RelayStream relayStream(final int stream)
    {
        return streams.get(stream).relay;
    }

    private int indexOf(final RelayStream relay)
    {
        for (int i = 0; i < streams.size(); i++)
        {
            if (streams.get(i).relay == relay)
            {
                return i;
            }
        }
        return -1;
    }

    @Override
    public void onIdle(final RelayStream stream, final long idleMs)
    {
        if (null != listener && !isEnded())
        {
            final int index = indexOf(stream);
            service.events().execute(() -> listener.onMediaTimeout(this, index, idleMs));
        }
    }

    @Override
    public void onHandshakeFailed(final RelayStream stream, final RelayLeg leg, final String reason)
    {
        if (null != listener && !isEnded())
        {
            final int index = indexOf(stream);
            service.events().execute(() -> listener.onHandshakeFailed(this, index, reason));
        }
    }

    /** Whether any relayed stream has a WebRTC leg on that side, which makes that side's session ICE-lite. */
    boolean anyWebRtc(final boolean sideB)
    {
        for (final Stream s : streams)
        {
            if (null != (sideB ? s.webRtcB : s.webRtcA))
            {
                return true;
            }
        }
        return false;
    }
}
