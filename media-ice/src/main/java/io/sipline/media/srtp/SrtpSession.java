package io.sipline.media.srtp;

import java.nio.ByteBuffer;

/**
 * Both directions of one SRTP media session (one RTP/RTCP flow pair of an m= line): an outbound {@link SrtpContext}
 * keyed by our {@code a=crypto} line and an inbound one keyed by the peer's (RFC 4568 §6.1: each side sends with the
 * key it offered). Packets are protected and unprotected by packet: the SSRC is read from the RTP header (octets 8 to
 * 11) or the RTCP header (octets 4 to 7), and each direction finds that SSRC's stream (rollover counter, replay
 * window, SRTCP index) in its own {@link io.sipline.media.ssrc.SsrcIndex}.
 *
 * <p><b>Streams, as in libsrtp.</b> With a template policy ({@link SrtpPolicy#acceptAnySsrc()}, the default;
 * libsrtp's {@code ssrc_any_outbound} / {@code ssrc_any_inbound}), an outbound SSRC gets its stream on its first
 * packet, and an inbound SSRC gets one only when its first packet authenticates under the template's keys, so forged
 * SSRCs take no slot and allocate nothing. Without a template, only the SSRCs added with
 * {@link #addOutboundStream(int)} / {@link #addInboundStream(int)} (from SDP {@code a=ssrc}) pass. Each direction
 * holds at most {@link SrtpPolicy#maxStreams()} streams (past it: {@link SrtpResult#STREAM_LIMIT}). A stream is
 * forgotten with {@link #removeInboundStream(int)} (the peer's RTCP BYE, RFC 3550 §6.6) or
 * {@link #removeOutboundStream(int)} (ours), allocating nothing.
 *
 * <p>Every method returns the new length or a negative {@link SrtpResult}, never throws for a packet, and counts
 * every failure ({@link #unknownSsrcs()}, {@link #authFailures()}, {@link #replays()}, ...). Buffers are borrowed
 * for the call. No allocation per packet once its stream exists (AES-CM; see {@link SrtpContext} for GCM). Not
 * thread-safe, without locks or volatiles: owned by the media thread that owns its sockets, which makes every call,
 * counters included. To move a session to another thread, hand it over through that thread's queue.
 */
public final class SrtpSession implements AutoCloseable
{
    private final SrtpContext outbound;
    private final SrtpContext inbound;

    /**
     * A session over two policies.
     *
     * @param outboundPolicy keys we protect with (our offered or answered {@code a=crypto} line).
     * @param inboundPolicy  keys the peer protects with (its {@code a=crypto} line).
     */
    public SrtpSession(final SrtpPolicy outboundPolicy, final SrtpPolicy inboundPolicy)
    {
        this.outbound = SrtpContext.outbound(outboundPolicy);
        this.inbound = SrtpContext.inbound(inboundPolicy);
    }

    /**
     * A session from the two SDES attributes of an offer/answer, with the default parameters.
     *
     * @param local  our {@code a=crypto} attribute (the key we send with).
     * @param remote the peer's {@code a=crypto} attribute with the same tag (the key it sends with).
     * @return a new session.
     * @throws IllegalArgumentException when the suites differ (RFC 4568 §6.1: the answer picks one offered suite).
     */
    public static SrtpSession fromSdes(final SdesCryptoAttribute local, final SdesCryptoAttribute remote)
    {
        if (local.suite() != remote.suite())
        {
            throw new IllegalArgumentException("SDES suites differ: local " + local.suite() + ", remote " +
                remote.suite());
        }
        return new SrtpSession(SrtpPolicy.fromSdes(local).build(), SrtpPolicy.fromSdes(remote).build());
    }

    /** @return the context that protects what we send. */
    public SrtpContext outbound()
    {
        return outbound;
    }

    /** @return the context that unprotects what we receive. */
    public SrtpContext inbound()
    {
        return inbound;
    }

    /**
     * Protects an outgoing RTP packet in place; see {@link SrtpContext#protectRtp(byte[], int, int)}.
     *
     * @param buffer the packet, borrowed; needs {@link SrtpContext#maxRtpOverhead()} octets of room after it.
     * @param offset where the RTP header starts.
     * @param length RTP packet length.
     * @return the SRTP packet length, or a negative {@link SrtpResult}.
     */
    public int protectRtp(final byte[] buffer, final int offset, final int length)
    {
        return outbound.protectRtp(buffer, offset, length);
    }

    /**
     * Unprotects an incoming SRTP packet in place; see {@link SrtpContext#unprotectRtp(byte[], int, int)}.
     *
     * @param buffer the packet, borrowed.
     * @param offset where the header starts.
     * @param length SRTP packet length.
     * @return the RTP packet length, or a negative {@link SrtpResult}.
     */
    public int unprotectRtp(final byte[] buffer, final int offset, final int length)
    {
        return inbound.unprotectRtp(buffer, offset, length);
    }

    /**
     * Protects an outgoing RTCP packet in place; see {@link SrtpContext#protectRtcp(byte[], int, int)}.
     *
     * @param buffer the packet, borrowed; needs {@link SrtpContext#maxRtcpOverhead()} octets of room after it.
     * @param offset where the first RTCP header starts.
     * @param length RTCP packet length.
     * @return the SRTCP packet length, or a negative {@link SrtpResult}.
     */
    public int protectRtcp(final byte[] buffer, final int offset, final int length)
    {
        return outbound.protectRtcp(buffer, offset, length);
    }

    /**
     * Unprotects an incoming SRTCP packet in place; see {@link SrtpContext#unprotectRtcp(byte[], int, int)}.
     *
     * @param buffer the packet, borrowed.
     * @param offset where the header starts.
     * @param length SRTCP packet length.
     * @return the RTCP packet length, or a negative {@link SrtpResult}.
     */
    public int unprotectRtcp(final byte[] buffer, final int offset, final int length)
    {
        return inbound.unprotectRtcp(buffer, offset, length);
    }

    /**
     * {@link #protectRtp(byte[], int, int)} on a heap or direct buffer (position and limit untouched).
     *
     * @param buffer the packet, borrowed; writable up to {@code limit()}.
     * @param offset absolute index of the RTP header.
     * @param length RTP packet length.
     * @return the SRTP packet length, or a negative {@link SrtpResult}.
     */
    public int protectRtp(final ByteBuffer buffer, final int offset, final int length)
    {
        return outbound.protectRtp(buffer, offset, length);
    }

    /**
     * {@link #unprotectRtp(byte[], int, int)} on a heap or direct buffer (position and limit untouched).
     *
     * @param buffer the packet, borrowed.
     * @param offset absolute index of the header.
     * @param length SRTP packet length.
     * @return the RTP packet length, or a negative {@link SrtpResult}.
     */
    public int unprotectRtp(final ByteBuffer buffer, final int offset, final int length)
    {
        return inbound.unprotectRtp(buffer, offset, length);
    }

    /**
     * {@link #protectRtcp(byte[], int, int)} on a heap or direct buffer (position and limit untouched).
     *
     * @param buffer the packet, borrowed; writable up to {@code limit()}.
     * @param offset absolute index of the RTCP header.
     * @param length RTCP packet length.
     * @return the SRTCP packet length, or a negative {@link SrtpResult}.
     */
    public int protectRtcp(final ByteBuffer buffer, final int offset, final int length)
    {
        return outbound.protectRtcp(buffer, offset, length);
    }

    /**
     * {@link #unprotectRtcp(byte[], int, int)} on a heap or direct buffer (position and limit untouched).
     *
     * @param buffer the packet, borrowed.
     * @param offset absolute index of the header.
     * @param length SRTCP packet length.
     * @return the RTCP packet length, or a negative {@link SrtpResult}.
     */
    public int unprotectRtcp(final ByteBuffer buffer, final int offset, final int length)
    {
        return inbound.unprotectRtcp(buffer, offset, length);
    }

    /**
     * Admits an outbound SSRC ahead of its first packet (required without a template). Allocates its stream.
     *
     * @param ssrc a 32-bit SSRC.
     * @return false when the outbound direction already holds {@link SrtpPolicy#maxStreams()} streams.
     */
    public boolean addOutboundStream(final int ssrc)
    {
        return outbound.addStream(ssrc);
    }

    /**
     * Admits an inbound SSRC ahead of its first packet (required without a template; e.g. from SDP {@code a=ssrc}).
     * Allocates its stream.
     *
     * @param ssrc a 32-bit SSRC.
     * @return false when the inbound direction already holds {@link SrtpPolicy#maxStreams()} streams.
     */
    public boolean addInboundStream(final int ssrc)
    {
        return inbound.addStream(ssrc);
    }

    /**
     * Forgets an outbound stream (we sent RTCP BYE, or changed SSRC). Allocates nothing.
     *
     * @param ssrc a 32-bit SSRC.
     * @return whether there was one.
     */
    public boolean removeOutboundStream(final int ssrc)
    {
        return outbound.removeStream(ssrc);
    }

    /**
     * Forgets an inbound stream (the peer's RTCP BYE, RFC 3550 §6.6, or a timed-out source). With a template, a later
     * authenticated packet of that SSRC starts a new stream (replay state and ROC start over). Allocates nothing.
     *
     * @param ssrc a 32-bit SSRC.
     * @return whether there was one.
     */
    public boolean removeInboundStream(final int ssrc)
    {
        return inbound.removeStream(ssrc);
    }

    /** @return outbound streams now held. */
    public int outboundStreams()
    {
        return outbound.streamCount();
    }

    /** @return inbound streams now held. */
    public int inboundStreams()
    {
        return inbound.streamCount();
    }

    /**
     * Packets refused because their SSRC has no stream and the policy has no template, in both directions
     * ({@link SrtpResult#NO_CONTEXT}).
     *
     * @return the count since creation.
     */
    public long unknownSsrcs()
    {
        return outbound.count(SrtpResult.NO_CONTEXT) + inbound.count(SrtpResult.NO_CONTEXT);
    }

    /**
     * Packets refused because their SSRC would pass the stream limit, in both directions
     * ({@link SrtpResult#STREAM_LIMIT}).
     *
     * @return the count since creation.
     */
    public long streamLimitRefusals()
    {
        return outbound.count(SrtpResult.STREAM_LIMIT) + inbound.count(SrtpResult.STREAM_LIMIT);
    }

    /**
     * Received packets whose tag did not verify ({@link SrtpResult#AUTH_FAIL}).
     *
     * @return the count since creation.
     */
    public long authFailures()
    {
        return inbound.count(SrtpResult.AUTH_FAIL);
    }

    /**
     * Received packets refused by the replay check, duplicates and too old ({@link SrtpResult#REPLAY_DUPLICATE},
     * {@link SrtpResult#REPLAY_OLD}).
     *
     * @return the count since creation.
     */
    public long replays()
    {
        return inbound.count(SrtpResult.REPLAY_DUPLICATE) + inbound.count(SrtpResult.REPLAY_OLD);
    }

    /** Closes both directions ({@link SrtpContext#close()}); every later call returns {@link SrtpResult#NO_CONTEXT}. */
    @Override
    public void close()
    {
        outbound.close();
        inbound.close();
    }
}
