package io.sipline.media.service;

import io.sipline.media.relay.RelayLeg;
import io.sipline.media.sdp.MediaDescription;
import io.sipline.media.sdp.SdpAttribute;
import io.sipline.media.sdp.SdpException;
import io.sipline.media.sdp.SessionDescription;
import io.sipline.media.srtp.SdesCryptoAttribute;
import io.sipline.media.srtp.SrtpPolicy;

import java.io.IOException;
import java.util.List;

/**
 * A later offer/answer exchange on an answered {@link AnchoredCall} (RFC 3264 §8), from either leg, in two steps.
 * {@link #offer}: the offering leg's streams are checked against the call's (same order, same transport, a usable
 * SDES key, a WebRTC peer keeping its fingerprint and DTLS role) and the other leg gets an offer on the same ports
 * with our same ICE credentials, fingerprint, settled DTLS role and SDES key; new {@code m=} lines after the call's,
 * and {@code m=} lines with a port in the slot of a stream removed with port 0, add streams
 * ({@link AnchoredCall#addedStream}, RFC 3264 §8.1), whose ports are opened for that offer; nothing else
 * of the call changes yet. {@link #answer}: the other leg's answer is checked, then both legs' new descriptions are
 * taken (their addresses, SDES keys, a WebRTC peer's new ICE credentials, which restart ICE on that leg only,
 * RFC 8445 §9), streams offered or answered with port 0 are closed (RFC 3264 §8.2), and the answer for the offering
 * leg is written, with our new ICE credentials on a restarted leg. {@link #withdraw}: the other leg refused the offer
 * (a 4xx-6xx to the re-INVITE), so the session stays as it was (RFC 3264 §8: the old description remains in force):
 * the pending offer is forgotten and the streams it added are closed (a reused slot gets its removed stream back).
 *
 * <p>Stateless; called under the anchor's state machine (one exchange at a time), from the application's thread.
 */
final class AnchorRenegotiation
{
    private AnchorRenegotiation()
    {
    }

    /**
     * @param call  the anchor.
     * @param from  the re-offer.
     * @param fromA whether leg A sent it.
     * @return the offer for the other leg.
     */
    static String offer(final AnchoredCall call, final SessionDescription from, final boolean fromA)
    {
        final List<AnchoredCall.Stream> streams = call.streamList();
        final int existing = streams.size();
        if (from.media().size() < existing)
        {
            throw new SdpException("the re-offer has " + from.media().size() + " m= lines, the call has " +
                existing + " (RFC 3264 §8: a stream is removed with port 0, its m= line stays)");
        }
        for (int i = 0; i < existing; i++)
        {
            check(i, call, streams.get(i), from.media().get(i), fromA, true);
            checkWebRtc(from, streams.get(i), from.media().get(i), fromA, true);
        }
        final SessionDescription to = call.ourDescription(call.nextVersion(!fromA));
        SdpCopy.sessionAttributes(from.attributes(), to.attributes());
        try
        {
            for (int i = 0; i < from.media().size(); i++)
            {
                final MediaDescription m = from.media().get(i);
                to.media().add(i < existing && !reusesSlot(streams.get(i), m) ?
                    offerStream(call, streams.get(i), m, fromA) : call.addedStream(from, m, fromA, i));
            }
        }
        catch (final IOException e)
        {
            withdraw(call);
            throw new IllegalStateException("cannot anchor the added stream: " + e.getMessage(), e);
        }
        catch (final RuntimeException e)
        {
            withdraw(call);
            throw e;
        }
        call.pendingReoffer(from);
        if (call.anyWebRtc(fromA))
        {
            to.attributes().add(new SdpAttribute("ice-lite", null));
        }
        return to.format();
    }

    /**
     * @param call  the anchor.
     * @param from  the answer of the leg that did not re-offer.
     * @param fromA whether leg A sent the re-offer.
     * @return the answer for the leg that re-offered.
     */
    static String answer(final AnchoredCall call, final SessionDescription from, final boolean fromA)
    {
        final List<AnchoredCall.Stream> streams = call.streamList();
        if (from.media().size() != streams.size())
        {
            throw new SdpException("the answer has " + from.media().size() + " m= lines, the re-offer had " +
                streams.size() + " (RFC 3264 §6: one per offered stream, in order)");
        }
        for (int i = 0; i < streams.size(); i++)
        {
            final AnchoredCall.Stream s = streams.get(i);
            if (null != s.reoffered && 0 != s.reoffered.port())
            {
                check(i, call, s, from.media().get(i), !fromA, false);
                checkWebRtc(from, s, from.media().get(i), !fromA, false);
            }
        }
        final SessionDescription offered = call.pendingReoffer();
        final SessionDescription to = call.ourDescription(call.nextVersion(fromA));
        SdpCopy.sessionAttributes(from.attributes(), to.attributes());
        for (int i = 0; i < streams.size(); i++)
        {
            to.media().add(answerStream(call, offered, from, streams.get(i), from.media().get(i), fromA));
            streams.get(i).added = false;
            streams.get(i).replaced = null;
        }
        call.pendingReoffer(null);
        if (call.anyWebRtc(!fromA))
        {
            to.attributes().add(new SdpAttribute("ice-lite", null));
        }
        return to.format();
    }

    /**
     * Forgets the pending re-offer, which the other leg refused: the call keeps its addresses, keys and streams.
     *
     * @param call the anchor.
     */
    static void withdraw(final AnchoredCall call)
    {
        call.dropAddedStreams();
        for (final AnchoredCall.Stream s : call.streamList())
        {
            s.reoffered = null;
        }
        call.pendingReoffer(null);
    }

    /**
     * RFC 3264 §8.1: a new stream may take the slot of one removed earlier (an {@code m=} line with port 0), its
     * media description replacing the old one in place; an {@code m=} line with a port where the call's stream is
     * gone is such a stream.
     */
    private static boolean reusesSlot(final AnchoredCall.Stream s, final MediaDescription m)
    {
        return !live(s) && 0 != m.port();
    }

    private static boolean live(final AnchoredCall.Stream s)
    {
        return null != s.relay && !s.relay.isClosed();
    }

    private static MediaProfile profile(final AnchoredCall call, final AnchoredCall.Stream s, final boolean sideA)
    {
        return sideA ? s.profileA : call.profileB();
    }

    /** Checks one stream of a re-offer or of its answer before anything changes. */
    private static void check(final int index, final AnchoredCall call, final AnchoredCall.Stream s,
        final MediaDescription m, final boolean sideA, final boolean offer)
    {
        if (!live(s) || 0 == m.port())
        {
            return;
        }
        final MediaProfile profile = profile(call, s, sideA);
        if (MediaProfile.ofProto(m.proto()) != profile)
        {
            throw new SdpException("m= line " + index + " is " + m.proto() + ", the call's leg is " + profile.proto() +
                " (changing a stream's transport is not supported)");
        }
        if (MediaProfile.RTP_SAVP == profile && null == AnchoredCall.firstUsableCrypto(m))
        {
            throw new SdpException("m= line " + index + " of the " + (offer ? "re-offer" : "answer") +
                " has no usable a=crypto (RFC 4568 §7.1)");
        }
        if (MediaProfile.RTP_SAVP == profile && !offer)
        {
            answeredCrypto(s, m, sideA);
        }
    }

    /**
     * Checks a WebRTC peer's later description: the same fingerprint and DTLS roles (RFC 8842 §5.5), new ICE
     * credentials only in an offer (an ICE restart, RFC 8445 §9). Nothing of the leg changes yet.
     */
    private static void checkWebRtc(final SessionDescription from, final AnchoredCall.Stream s,
        final MediaDescription m, final boolean sideA, final boolean offer)
    {
        final WebRtcLegs.Leg webRtc = sideA ? s.webRtcA : s.webRtcB;
        if (live(s) && 0 != m.port() && null != webRtc)
        {
            webRtc.check(SdpCopy.withSessionTransport(from, m), offer);
        }
    }

    private static MediaDescription offerStream(final AnchoredCall call, final AnchoredCall.Stream s,
        final MediaDescription m, final boolean fromA)
    {
        final MediaProfile profileY = profile(call, s, !fromA);
        s.reoffered = m;
        if (!live(s) || 0 == m.port())
        {
            // RFC 3264 §8.2: a stream offered with port 0 is removed (once answered); its answer has port 0 too.
            return new MediaDescription(m.media(), 0, null == profileY ? m.proto() : profileY.proto(), m.formats());
        }
        final RelayLeg legY = (fromA ? s.relay.legA() : s.relay.legB()).peer();
        final MediaDescription y = new MediaDescription(m.media(), legY.rtpPort(), profileY.proto(), m.formats());
        SdpCopy.mediaAttributes(m, y, profileY.proto().endsWith("F"));
        if (MediaProfile.WEBRTC != profileY)
        {
            y.add("rtcp", Integer.toString(legY.rtcpPort()));
        }
        y.add("rtcp-mux", null);
        final SdesCryptoAttribute ourKeyToY = fromA ? s.cryptoUsedToB : s.cryptoToA;
        if (null != ourKeyToY)
        {
            y.add("crypto", ourKeyToY.format());
        }
        final WebRtcLegs.Leg webRtcY = fromA ? s.webRtcB : s.webRtcA;
        if (null != webRtcY)
        {
            webRtcY.describe(y, true);
        }
        return y;
    }

    private static MediaDescription answerStream(final AnchoredCall call, final SessionDescription offered,
        final SessionDescription from, final AnchoredCall.Stream s, final MediaDescription b, final boolean fromA)
    {
        final MediaDescription m = s.reoffered;
        s.reoffered = null;
        if (null == m || !live(s) || 0 == m.port() || 0 == b.port())
        {
            if (null != s.relay)
            {
                s.relay.close();
            }
            final MediaDescription was = null == m ? s.offeredByA : m;
            return new MediaDescription(was.media(), 0, was.proto(), was.formats());
        }
        final RelayLeg legX = fromA ? s.relay.legA() : s.relay.legB();
        // The offer is taken only now that it is accepted, so that a refused one leaves the call as it was.
        takeTransport(call, offered, s, m, fromA, true);
        takeTransport(call, from, s, b, !fromA, false);
        final MediaDescription r = new MediaDescription(m.media(), legX.rtpPort(), m.proto(), b.formats());
        SdpCopy.mediaAttributes(b, r, m.proto().endsWith("F"));
        final MediaProfile profileX = profile(call, s, fromA);
        if (m.rtcpMux() || MediaProfile.WEBRTC == profileX)
        {
            r.add("rtcp-mux", null);
        }
        else
        {
            r.add("rtcp", Integer.toString(legX.rtcpPort()));
        }
        if (null != s.reanswerCrypto)
        {
            r.add("crypto", s.reanswerCrypto.format());
            s.reanswerCrypto = null;
        }
        final WebRtcLegs.Leg webRtcX = fromA ? s.webRtcA : s.webRtcB;
        if (null != webRtcX)
        {
            webRtcX.describe(r, false);
        }
        return r;
    }

    /**
     * Takes a leg's new description of one stream: its address, its WebRTC description (DTLS as it is, ICE restarted
     * when an offer brought new credentials) and its SDES key, re-keying the leg only when the key changed.
     */
    private static void takeTransport(final AnchoredCall call, final SessionDescription from,
        final AnchoredCall.Stream s, final MediaDescription m, final boolean sideA, final boolean offer)
    {
        final RelayLeg leg = sideA ? s.relay.legA() : s.relay.legB();
        final MediaProfile profile = profile(call, s, sideA);
        final WebRtcLegs.Leg webRtc = sideA ? s.webRtcA : s.webRtcB;
        if (null != webRtc)
        {
            webRtc.peer(SdpCopy.withSessionTransport(from, m), offer);
        }
        leg.remote(SdpCopy.address(from.connectionOf(m), m.port()), AnchoredCall.rtcpAddress(from, m),
            m.rtcpMux() || MediaProfile.WEBRTC == profile);
        if (MediaProfile.RTP_SAVP != profile)
        {
            return;
        }
        final SdesCryptoAttribute theirs = offer ? AnchoredCall.firstUsableCrypto(m) : answeredCrypto(s, m, sideA);
        final SdesCryptoAttribute before = sideA ? s.cryptoFromA : s.cryptoFromB;
        SdesCryptoAttribute ours = sideA ? s.cryptoToA : s.cryptoUsedToB;
        final boolean sameKey = null != before && before.format().equals(theirs.format());
        if (offer && (ours.tag() != theirs.tag() || ours.suite() != theirs.suite()))
        {
            // RFC 4568 §7.1.2: the answer's key goes under the tag and suite the offer chose.
            ours = SdesCryptoAttribute.generate(theirs.tag(), theirs.suite(), call.service().random());
        }
        if (!sameKey || ours != (sideA ? s.cryptoToA : s.cryptoUsedToB))
        {
            leg.keys(SrtpPolicy.fromSdes(ours).build(), SrtpPolicy.fromSdes(theirs).build());
        }
        if (sideA)
        {
            s.cryptoFromA = theirs;
            s.cryptoToA = ours;
        }
        else
        {
            s.cryptoFromB = theirs;
            s.cryptoUsedToB = ours;
        }
        if (offer)
        {
            s.reanswerCrypto = ours;
        }
    }

    /** The key an answer gives under the tag of the key we offered (RFC 4568 §7.1.3). */
    private static SdesCryptoAttribute answeredCrypto(final AnchoredCall.Stream s, final MediaDescription m,
        final boolean sideA)
    {
        final SdesCryptoAttribute offered = sideA ? s.cryptoToA : s.cryptoUsedToB;
        for (final String value : m.attributes("crypto"))
        {
            try
            {
                final SdesCryptoAttribute c = SdesCryptoAttribute.parse(value);
                if (c.tag() == offered.tag() && c.suite() == offered.suite())
                {
                    return c;
                }
            }
            catch (final IllegalArgumentException malformed)
            {
                // The next one may match.
            }
        }
        throw new SdpException("the answer has no a=crypto matching the offered tag " + offered.tag() +
            " and suite (RFC 4568 §7.1.3)");
    }
}
