package io.sipline.media.service;

import io.sipline.media.sdp.MediaDescription;
import io.sipline.media.sdp.SdpAttribute;
import io.sipline.media.sdp.SdpConnection;
import io.sipline.media.sdp.SessionDescription;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What an anchored call copies from one leg's SDP to the other's: the attributes that describe the media (codecs,
 * {@code rtpmap}/{@code fmtp}, {@code ptime}, direction, {@code ssrc}, {@code mid}, {@code extmap}, ...) pass, since
 * payloads, SSRCs and header extensions go through unchanged; those that describe one leg's transport (ICE, DTLS,
 * SDES keys, RTCP ports, BUNDLE) stay with that leg, and the relay writes its own.
 *
 * <p>Stateless; thread-safe.
 */
final class SdpCopy
{
    /** Transport attributes of one leg (RFC 8839 ICE, RFC 8842 DTLS, RFC 4568, RFC 3605, RFC 5761, RFC 9143). */
    private static final Set<String> MEDIA_TRANSPORT = Set.of(
        "candidate", "remote-candidates", "end-of-candidates", "ice-ufrag", "ice-pwd", "ice-options", "ice-lite",
        "ice-mismatch", "ice-pacing", "fingerprint", "setup", "connection", "tls-id", "crypto", "rtcp", "rtcp-mux",
        "rtcp-mux-only", "bundle-only", "sctp-port", "sctpmap", "max-message-size");
    /** Session-level transport attributes; {@code group:BUNDLE} is refused by leaving it out (RFC 9143 §7.3.3). */
    private static final Set<String> SESSION_TRANSPORT = Set.of(
        "group", "ice-lite", "ice-ufrag", "ice-pwd", "ice-options", "fingerprint", "setup", "tls-id", "ice-pacing");

    /** What a WebRTC leg reads from the peer that may be written at session level. */
    private static final List<String> SESSION_DTLS_ICE = List.of("ice-ufrag", "ice-pwd", "fingerprint", "setup");

    private SdpCopy()
    {
    }

    /**
     * @param from     the media section read.
     * @param to       the media section written.
     * @param feedback whether {@code to}'s profile carries RTCP feedback ({@code ...F}, RFC 4585), which keeps
     *                 {@code a=rtcp-fb}.
     */
    static void mediaAttributes(final MediaDescription from, final MediaDescription to, final boolean feedback)
    {
        for (final SdpAttribute a : from.attributes())
        {
            final String name = a.name().toLowerCase(Locale.ROOT);
            if (!MEDIA_TRANSPORT.contains(name) && (feedback || !"rtcp-fb".equals(name)))
            {
                to.attributes().add(a);
            }
        }
        to.bandwidths().addAll(from.bandwidths());
    }

    /**
     * @param from session-level attributes read.
     * @param to   session-level attributes written.
     */
    static void sessionAttributes(final List<SdpAttribute> from, final List<SdpAttribute> to)
    {
        for (final SdpAttribute a : from)
        {
            if (!SESSION_TRANSPORT.contains(a.name().toLowerCase(Locale.ROOT)))
            {
                to.add(a);
            }
        }
    }

    /**
     * A WebRTC media section with the peer's session-level ICE credentials, fingerprints and setup folded in where
     * it has none of its own (RFC 8839 §5.4, RFC 8122 §5, RFC 4145 §4: a media-level value overrides the session's).
     *
     * @param session the peer's description.
     * @param media   one of its media sections, left as it is.
     * @return a copy of {@code media} with the session-level values it lacks.
     */
    static MediaDescription withSessionTransport(final SessionDescription session, final MediaDescription media)
    {
        final MediaDescription out = new MediaDescription(media.media(), media.port(), media.proto(),
            media.formats());
        out.attributes().addAll(media.attributes());
        for (final String name : SESSION_DTLS_ICE)
        {
            if (null == media.attribute(name))
            {
                for (final SdpAttribute a : session.attributes())
                {
                    if (a.name().equalsIgnoreCase(name))
                    {
                        out.attributes().add(a);
                    }
                }
            }
        }
        return out;
    }

    /**
     * @param connection a {@code c=} line, or null.
     * @param port       the port.
     * @return the socket address, or null when there is no connection, it is the null address (hold, RFC 3264
     *         §8.4), the port is 0, or the address is a name rather than a literal (the relay resolves nothing: it
     *         latches instead).
     */
    static InetSocketAddress address(final SdpConnection connection, final int port)
    {
        if (null == connection || connection.isUnspecified() || 0 == port)
        {
            return null;
        }
        try
        {
            return new InetSocketAddress(InetAddress.ofLiteral(connection.address()), port);
        }
        catch (final IllegalArgumentException notLiteral)
        {
            return null;
        }
    }

    /**
     * @param address the relay's advertised address.
     * @return its {@code c=} line.
     */
    static SdpConnection connection(final InetAddress address)
    {
        return new SdpConnection(address instanceof java.net.Inet6Address ? "IP6" : "IP4", address.getHostAddress());
    }
}
