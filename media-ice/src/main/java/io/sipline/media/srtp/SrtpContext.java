package io.sipline.media.srtp;

import java.nio.ByteBuffer;

import io.sipline.media.ssrc.SsrcIndex;

import static io.sipline.media.srtp.SrtpPackets.GCM_TAG;
import static io.sipline.media.srtp.SrtpPackets.RTP_HEADER;
import static io.sipline.media.srtp.SrtpPackets.SRTCP_WORD;
import static io.sipline.media.srtp.SrtpPackets.readInt;
import static io.sipline.media.srtp.SrtpPackets.readUnsignedShort;
import static io.sipline.media.srtp.SrtpPackets.rtpHeaderLength;

/**
 * One direction of an SRTP session (RFC 3711 §3.2): the master key of an {@link SrtpPolicy}, the streams of the SSRCs
 * seen so far, and in-place {@code protect}/{@code unprotect} of RTP and RTCP packets. Make one context per direction:
 * {@link #outbound(SrtpPolicy)} protects, {@link #inbound(SrtpPolicy)} unprotects. The packet layouts are drawn on
 * {@link #protectRtp(byte[], int, int)} and {@link #protectRtcp(byte[], int, int)}; how a packet finds its stream, on
 * {@link #oneSsrc}.
 *
 * <p>Every method borrows the buffer for the call and works in place; protect writes up to {@link #maxRtpOverhead()}
 * ({@link #maxRtcpOverhead()}) octets after the packet, within the array or below a {@code ByteBuffer}'s limit
 * (position and limit are not changed; direct buffers are staged through a per-context heap array, since
 * {@code javax.crypto} allocates per call for them). The result is the new length or a negative {@link SrtpResult}
 * (counted, {@link #count(int)}); nothing is thrown for a packet, and a failed unprotect leaves it as it was.
 *
 * <p>No allocation of our own per packet; none at all with AES-CM. With GCM on the {@code jca} backend,
 * {@code Cipher.init} allocates about 1 KB per packet. A new SSRC allocates its stream once.
 *
 * <p>Not thread-safe; owned by one media thread.
 */
public final class SrtpContext implements AutoCloseable
{
    /** Which operation a context performs. */
    public enum Direction
    {
        /** Protects what we send. */
        OUTBOUND,
        /** Unprotects what we receive. */
        INBOUND
    }

    private final SrtpPolicy policy;
    private final SrtpCryptoSuite suite;
    final Direction direction;
    final boolean aead;
    private final SrtpKeyDerivation kdf;
    final SrtpTransform shared;
    private final SrtpStreamLookup streams;
    /**
     * The {@link SsrcIndex} under {@link #streams} when that is the default {@link SsrcIndexStreamLookup}, else null:
     * a packet at N != 1 asks it directly ({@link SsrcIndex#getBeyondOne}, which is all that lookup's
     * {@code find} does), without the interface call's check of the receiver's class and the load of the lookup
     * object. Only read; adds and removes still go through {@link #streams}.
     */
    private final SsrcIndex<SrtpStream> streamIndex;
    private final byte[] mki;
    final int mkiLength;
    private final int srtpTag;
    final int srtcpTag;
    private final int windowSize;
    final long keyLifetime;
    final byte[] tag = new byte[20];
    private final long[] counts = new long[SrtpResult.COUNT];
    private long rtpPackets;
    long rtcpPackets;
    private byte[] stage;
    private SrtpStream probe;
    /**
     * The SSRC of {@link #one} while there is exactly one stream; otherwise an SSRC that has no stream, so that a
     * match returns {@link #one}, null, which is then the right answer. Every packet starts with {@link #stream(int)};
     * most contexts have one stream (one SSRC per direction of a call), kept in these two fields as libsrtp's
     * {@code srtp_get_stream} finds the head of a list of one in its session:
     * <pre>
     *   N == 1:  oneSsrc = the stream's SSRC            one = the stream
     *   N != 1:  oneSsrc = an SSRC that has no stream   one = null     then the {@link SrtpStreamLookup}
     * </pre>
     * An SSRC equal to {@code oneSsrc} returns {@code one}, right for every N; a miss with {@code one} set (N = 1) is
     * a miss without asking the lookup, which keeps the lookup call off the one-stream path (C2 then leaves it as an
     * uncommon trap instead of a real call that spills the live values). Only at N != 1 is the lookup asked, the
     * default {@link SsrcIndexStreamLookup}'s {@link SsrcIndex} directly. Adds and removes refresh both fields.
     */
    private int oneSsrc;
    /** The only stream while there is exactly one, else null. */
    private SrtpStream one;
    /** Why the last {@link #outboundStream}/{@link #inboundStream} returned null: a negative {@link SrtpResult}. */
    int refused;
    boolean closed;

    /**
     * A context whose streams live in an {@link SsrcIndexStreamLookup} of {@link SrtpPolicy#maxStreams()} entries.
     *
     * @param policy    keys and parameters.
     * @param direction protect or unprotect.
     */
    public SrtpContext(final SrtpPolicy policy, final Direction direction)
    {
        this(policy, direction, new SsrcIndexStreamLookup(policy.maxStreams()));
    }

    /**
     * A context over a caller-supplied stream lookup (the SSRC index seam).
     *
     * @param policy    keys and parameters.
     * @param direction protect or unprotect.
     * @param streams   an empty lookup, owned by this context from now on: only the context adds to it and removes
     *                  from it (the context's single-stream fields follow those changes, not the lookup's).
     */
    public SrtpContext(final SrtpPolicy policy, final Direction direction, final SrtpStreamLookup streams)
    {
        this.policy = policy;
        this.suite = policy.suite();
        this.direction = direction;
        this.aead = suite.isAead();
        this.streams = streams;
        this.streamIndex = streams instanceof SsrcIndexStreamLookup typed ? typed.index() : null;
        this.mki = policy.mkiShared();
        this.mkiLength = policy.mkiLength();
        this.srtpTag = suite.srtpTagLength();
        this.srtcpTag = suite.srtcpTagLength();
        this.windowSize = policy.replayWindow();
        this.keyLifetime = policy.keyLifetime();
        this.kdf = new SrtpKeyDerivation(
            policy.backend(), policy.masterKeyShared(), policy.masterSaltShared(), policy.keyDerivationRate());
        if (0 == policy.keyDerivationRate())
        {
            shared = new SrtpTransform(suite, kdf, policy.backend());
            shared.rtpKeys(0);
            shared.rtcpKeys(0);
        }
        else
        {
            shared = null;
        }
        updateOne();
    }

    /**
     * A context that protects.
     *
     * @param policy keys and parameters.
     * @return a new outbound context.
     */
    public static SrtpContext outbound(final SrtpPolicy policy)
    {
        return new SrtpContext(policy, Direction.OUTBOUND);
    }

    /**
     * A context that unprotects.
     *
     * @param policy keys and parameters.
     * @return a new inbound context.
     */
    public static SrtpContext inbound(final SrtpPolicy policy)
    {
        return new SrtpContext(policy, Direction.INBOUND);
    }

    /** @return the policy this context was built from. */
    public SrtpPolicy policy()
    {
        return policy;
    }

    /** @return the direction. */
    public Direction direction()
    {
        return direction;
    }

    /** @return most octets protect adds to an RTP packet: MKI and tag. */
    public int maxRtpOverhead()
    {
        return mkiLength + srtpTag;
    }

    /** @return most octets protect adds to an RTCP packet: SRTCP index, MKI and tag. */
    public int maxRtcpOverhead()
    {
        return SRTCP_WORD + mkiLength + srtcpTag;
    }

    /**
     * How often a result occurred.
     *
     * @param result a negative {@link SrtpResult} code.
     * @return the count since creation.
     */
    public long count(final int result)
    {
        return result < 0 && -result < SrtpResult.COUNT ? counts[-result] : 0;
    }

    /** @return RTP packets protected or unprotected successfully. */
    public long rtpPackets()
    {
        return rtpPackets;
    }

    /** @return RTCP packets protected or unprotected successfully. */
    public long rtcpPackets()
    {
        return rtcpPackets;
    }

    /**
     * The stream of an SSRC: the lookup that protect and unprotect make first for every packet, public for
     * diagnostics (ROC, indices) and so that {@code SsrcLookupBenchmark} measures the very code of the packet path.
     * With one stream, one compare with a field of this context and one field read; otherwise the
     * {@link SrtpStreamLookup} (see {@link #oneSsrc}), for the default one its {@link SsrcIndex} directly, so that the
     * call needs no check of the receiver's class nor a load of the lookup object. Allocates nothing.
     *
     * @param ssrc a 32-bit SSRC.
     * @return the stream, or null (never the provisional stream of an inbound SSRC not yet authenticated).
     */
    public SrtpStream stream(final int ssrc)
    {
        final SrtpStream single = one;
        if (ssrc == oneSsrc)
        {
            return single;
        }
        // With one stream, any other SSRC is a miss: no need to ask the lookup (and no call on the N = 1 path).
        if (null != single)
        {
            return null;
        }
        final SsrcIndex<SrtpStream> direct = streamIndex;
        return null != direct ? direct.getBeyondOne(ssrc) : streams.find(ssrc);
    }

    /**
     * Number of streams (SSRCs seen and authenticated, or added).
     *
     * @return 0 to {@link SrtpPolicy#maxStreams()}.
     */
    public int streamCount()
    {
        return streams.size();
    }

    /**
     * Creates the stream of {@code ssrc} ahead of its first packet (required when the policy does not accept any
     * SSRC). Allocates.
     *
     * @param ssrc a 32-bit SSRC.
     * @return false when the stream table is full; true when added or already present.
     */
    public boolean addStream(final int ssrc)
    {
        // streams.find, not stream(): set-up calls stay out of the branch profile of the packet path's lookup.
        if (null != streams.find(ssrc))
        {
            return true;
        }
        return add(newStream(ssrc));
    }

    /**
     * Forgets the stream of {@code ssrc} (RTCP BYE).
     *
     * @param ssrc a 32-bit SSRC.
     * @return whether there was one.
     */
    public boolean removeStream(final int ssrc)
    {
        if (null == streams.remove(ssrc))
        {
            return false;
        }
        updateOne();
        return true;
    }

    /**
     * Sets the rollover counter of a stream (RFC 3711 §3.3.1: from signalling, or when joining a stream already in
     * progress; like libsrtp's {@code srtp_set_stream_roc}). Creates the stream if needed.
     *
     * @param ssrc a 32-bit SSRC.
     * @param roc  the ROC, unsigned 32 bits.
     * @return false when the stream table is full.
     */
    public boolean roc(final int ssrc, final long roc)
    {
        if (!addStream(ssrc))
        {
            return false;
        }
        streams.find(ssrc).roc(roc & 0xFFFF_FFFFL);
        return true;
    }

    /**
     * Sets the next SRTCP index an outbound stream will send (RFC 3711 §3.4 starts at 0; libsrtp starts at 1).
     * Creates the stream if needed. For tests and for resuming a stream.
     *
     * @param ssrc  a 32-bit SSRC.
     * @param index 0 to 2^31 - 1.
     * @return false when the stream table is full.
     */
    public boolean nextSrtcpIndex(final int ssrc, final long index)
    {
        if (index < 0 || index > SrtpStream.MAX_SRTCP_INDEX || !addStream(ssrc))
        {
            return false;
        }
        streams.find(ssrc).nextSrtcpIndex = index;
        return true;
    }

    /**
     * Zeroes the salts held by this context; every later call returns {@link SrtpResult#NO_CONTEXT}. The key
     * schedules inside the crypto library cannot be reached and are left to the garbage collector.
     */
    @Override
    public void close()
    {
        closed = true;
        if (null != shared)
        {
            shared.destroy();
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // byte[]
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * Protects an RTP packet in place (RFC 3711 §3.3; RFC 7714 §7.1).
     *
     * <p>The SRTP packet (RFC 3711 §3.1); with AES-GCM (RFC 7714 §7) the tag directly follows the ciphertext and the
     * MKI, if any, comes last:
     * <pre>
     *    0                   1                   2                   3
     *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
     *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+&lt;+
     *   |V=2|P|X|  CC   |M|     PT      |       sequence number         | |
     *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ |
     *   |                           timestamp                           | |
     *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ |
     *   |           synchronization source (SSRC) identifier            | |
     *   +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+ |
     *   |            contributing source (CSRC) identifiers             | |
     *   |                               ....                            | |
     *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ |
     *   |                   RTP extension (OPTIONAL)                    | |
     * +&gt;+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ |
     * | |                          payload  ...                         | |
     * | |                               +-------------------------------+ |
     * | |                               | RTP padding   | RTP pad count | |
     * +&gt;+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+&lt;+
     * | ~                     SRTP MKI (OPTIONAL)                       ~ |
     * | +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ |
     * | :                 authentication tag (RECOMMENDED)              : |
     * | +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ |
     * |                                                                   |
     * +- encrypted portion                           authenticated portion +
     *    (AES-CM: HMAC-SHA1 over the authenticated portion || ROC, RFC 3711 §4.2;
     *     GCM: the header is the AAD and the tag is 16 octets, RFC 7714 §8.2)
     * </pre>
     *
     * @param buffer the packet, borrowed; needs {@link #maxRtpOverhead()} octets of room after it.
     * @param offset where the RTP header starts.
     * @param length RTP packet length.
     * @return the SRTP packet length, or a negative {@link SrtpResult}.
     */
    public int protectRtp(final byte[] buffer, final int offset, final int length)
    {
        if ((offset | length) < 0 || length > buffer.length - offset)
        {
            return fail(SrtpResult.BAD_ARGUMENT);
        }
        return protectRtp(buffer, offset, length, buffer.length);
    }

    /**
     * Unprotects an SRTP packet in place (RFC 3711 §3.3; RFC 7714 §7.2).
     *
     * @param buffer the packet, borrowed.
     * @param offset where the header starts.
     * @param length SRTP packet length.
     * @return the RTP packet length, or a negative {@link SrtpResult}.
     */
    public int unprotectRtp(final byte[] buffer, final int offset, final int length)
    {
        if ((offset | length) < 0 || length > buffer.length - offset)
        {
            return fail(SrtpResult.BAD_ARGUMENT);
        }
        return unprotectRtpChecked(buffer, offset, length);
    }

    /**
     * Protects an RTCP (compound) packet in place (RFC 3711 §3.4; RFC 7714 §9.1), always encrypting (E = 1).
     *
     * <p>The SRTCP packet (RFC 3711 §3.4); with AES-GCM (RFC 7714 §9) the order after the payload is tag, E || index,
     * MKI, and the AAD is the 8-octet header plus the E || index word:
     * <pre>
     *    0                   1                   2                   3
     *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
     *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+&lt;+
     *   |V=2|P|    RC   |   PT=SR or RR   |             length          | |
     *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ |
     *   |                         SSRC of sender                        | |
     * +&gt;+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ |
     * | ~                          sender info                          ~ |
     * | ~                         report block 1 ... and the rest       ~ |
     * | ~                    of the compound packet                     ~ |
     * +&gt;+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ |
     * | |E|                         SRTCP index (31 bits)               | |
     * | +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+&lt;+
     * | ~                     SRTCP MKI (OPTIONAL)                      ~ |
     * | +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ |
     * | :                     authentication tag                        : |
     * | +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+ |
     * |                                                                   |
     * +- encrypted portion (when E = 1)              authenticated portion +
     * </pre>
     *
     * @param buffer the packet, borrowed; needs {@link #maxRtcpOverhead()} octets of room after it.
     * @param offset where the first RTCP header starts.
     * @param length RTCP packet length.
     * @return the SRTCP packet length, or a negative {@link SrtpResult}.
     */
    public int protectRtcp(final byte[] buffer, final int offset, final int length)
    {
        if ((offset | length) < 0 || length > buffer.length - offset)
        {
            return fail(SrtpResult.BAD_ARGUMENT);
        }
        return SrtcpProtection.protect(this, buffer, offset, length, buffer.length);
    }

    /**
     * Unprotects an SRTCP packet in place (RFC 3711 §3.4; RFC 7714 §9), encrypted (E = 1) or not.
     *
     * @param buffer the packet, borrowed.
     * @param offset where the header starts.
     * @param length SRTCP packet length.
     * @return the RTCP packet length, or a negative {@link SrtpResult}.
     */
    public int unprotectRtcp(final byte[] buffer, final int offset, final int length)
    {
        if ((offset | length) < 0 || length > buffer.length - offset)
        {
            return fail(SrtpResult.BAD_ARGUMENT);
        }
        return SrtcpProtection.unprotect(this, buffer, offset, length);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // ByteBuffer (absolute: position and limit untouched)
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * {@link #protectRtp(byte[], int, int)} on a heap or direct buffer.
     *
     * @param buffer the packet, borrowed; writable up to {@code limit()}.
     * @param offset absolute index of the RTP header.
     * @param length RTP packet length.
     * @return the SRTP packet length, or a negative {@link SrtpResult}.
     */
    public int protectRtp(final ByteBuffer buffer, final int offset, final int length)
    {
        return bufferOp(buffer, offset, length, 0);
    }

    /**
     * {@link #unprotectRtp(byte[], int, int)} on a heap or direct buffer.
     *
     * @param buffer the packet, borrowed.
     * @param offset absolute index of the header.
     * @param length SRTP packet length.
     * @return the RTP packet length, or a negative {@link SrtpResult}.
     */
    public int unprotectRtp(final ByteBuffer buffer, final int offset, final int length)
    {
        return bufferOp(buffer, offset, length, 1);
    }

    /**
     * {@link #protectRtcp(byte[], int, int)} on a heap or direct buffer.
     *
     * @param buffer the packet, borrowed; writable up to {@code limit()}.
     * @param offset absolute index of the RTCP header.
     * @param length RTCP packet length.
     * @return the SRTCP packet length, or a negative {@link SrtpResult}.
     */
    public int protectRtcp(final ByteBuffer buffer, final int offset, final int length)
    {
        return bufferOp(buffer, offset, length, 2);
    }

    /**
     * {@link #unprotectRtcp(byte[], int, int)} on a heap or direct buffer.
     *
     * @param buffer the packet, borrowed.
     * @param offset absolute index of the header.
     * @param length SRTCP packet length.
     * @return the RTCP packet length, or a negative {@link SrtpResult}.
     */
    public int unprotectRtcp(final ByteBuffer buffer, final int offset, final int length)
    {
        return bufferOp(buffer, offset, length, 3);
    }

    private int bufferOp(final ByteBuffer buffer, final int offset, final int length, final int op)
    {
        final int limit = buffer.limit();
        if ((offset | length) < 0 || length > limit - offset || buffer.isReadOnly())
        {
            return fail(SrtpResult.BAD_ARGUMENT);
        }
        if (buffer.hasArray())
        {
            final byte[] array = buffer.array();
            final int base = buffer.arrayOffset();
            switch (op)
            {
                case 0:
                    return protectRtp(array, base + offset, length, base + limit);
                case 1:
                    return unprotectRtpChecked(array, base + offset, length);
                case 2:
                    return SrtcpProtection.protect(this, array, base + offset, length, base + limit);
                default:
                    return SrtcpProtection.unprotect(this, array, base + offset, length);
            }
        }
        final int room = Math.min(limit - offset, length + Math.max(maxRtpOverhead(), maxRtcpOverhead()) + GCM_TAG);
        if (null == stage || stage.length < room)
        {
            // Grows once to the largest packet seen; not per packet.
            stage = new byte[Math.max(room, 2048)];
        }
        buffer.get(offset, stage, 0, length);
        final int result;
        switch (op)
        {
            case 0:
                result = protectRtp(stage, 0, length, room);
                break;
            case 1:
                result = unprotectRtpChecked(stage, 0, length);
                break;
            case 2:
                result = SrtcpProtection.protect(this, stage, 0, length, room);
                break;
            default:
                result = SrtcpProtection.unprotect(this, stage, 0, length);
                break;
        }
        if (result > 0)
        {
            buffer.put(offset, stage, 0, result);
        }
        return result;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // SRTP (RFC 3711 §3.3, RFC 7714 §7)
    // ---------------------------------------------------------------------------------------------------------------

    private int protectRtp(final byte[] b, final int offset, final int length, final int end)
    {
        if (Direction.OUTBOUND != direction)
        {
            return fail(SrtpResult.WRONG_DIRECTION);
        }
        if (closed)
        {
            return fail(SrtpResult.NO_CONTEXT);
        }
        final int header = rtpHeaderLength(b, offset, length);
        if (header < 0)
        {
            return fail(header);
        }
        final int overhead = mkiLength + srtpTag;
        if (end - offset - length < overhead)
        {
            return fail(SrtpResult.BUFFER_TOO_SMALL);
        }
        final int ssrc = readInt(b, offset + 8);
        final SrtpStream stream = outboundStream(ssrc);
        if (null == stream)
        {
            return fail(refused);
        }
        final long index = stream.estimateIndex(readUnsignedShort(b, offset + 2));
        if (index > SrtpStream.MAX_SRTP_INDEX || rtpPackets >= keyLifetime)
        {
            return fail(SrtpResult.KEY_EXPIRED);
        }
        // RFC 3711 §3.3.1 sender side: never protect one index twice (keystream and GCM IV reuse), as libsrtp.
        final int replay = stream.rtpWindow.check(index);
        if (0 != replay)
        {
            return fail(replay);
        }
        final SrtpTransform t = null == stream.transform ? shared : stream.transform;
        t.rtpKeys(index);
        final int out;
        if (aead)
        {
            final int sealed = t.rtpSeal(ssrc, index, b, offset, header, length - header);
            if (sealed < 0)
            {
                return fail(SrtpResult.CRYPTO_ERROR);
            }
            writeMki(b, offset + header + sealed);
            out = header + sealed + mkiLength;
        }
        else
        {
            t.rtpCrypt(ssrc, index, b, offset + header, length - header);
            writeMki(b, offset + length);
            t.rtpTag(b, offset, length, (int)(index >>> 16), tag);
            System.arraycopy(tag, 0, b, offset + length + mkiLength, srtpTag);
            out = length + overhead;
        }
        stream.rtpWindow.update(index);
        rtpPackets++;
        return out;
    }

    private int unprotectRtpChecked(final byte[] b, final int offset, final int length)
    {
        if (Direction.INBOUND != direction)
        {
            return fail(SrtpResult.WRONG_DIRECTION);
        }
        if (closed)
        {
            return fail(SrtpResult.NO_CONTEXT);
        }
        // AES-CM: header | payload | MKI | tag.   GCM: header | ciphertext | tag | MKI.
        final int trailer = mkiLength + srtpTag;
        if (length < RTP_HEADER + trailer)
        {
            return fail(SrtpResult.TOO_SHORT);
        }
        final int header = rtpHeaderLength(b, offset, length - trailer);
        if (header < 0)
        {
            return fail(header);
        }
        final int ssrc = readInt(b, offset + 8);
        final SrtpStream stream = inboundStream(ssrc);
        if (null == stream)
        {
            return fail(refused);
        }
        final long index = stream.estimateIndex(readUnsignedShort(b, offset + 2));
        if (index > SrtpStream.MAX_SRTP_INDEX || rtpPackets >= keyLifetime)
        {
            return fail(SrtpResult.KEY_EXPIRED);
        }
        final int replay = stream.rtpWindow.check(index);
        if (0 != replay)
        {
            return fail(replay);
        }
        final int mkiOffset = aead ? offset + length - mkiLength : offset + length - trailer;
        if (!mkiMatches(b, mkiOffset))
        {
            return fail(SrtpResult.BAD_MKI);
        }
        final SrtpTransform t = null == stream.transform ? shared : stream.transform;
        t.rtpKeys(index);
        final int out;
        if (aead)
        {
            final int opened = t.rtpOpen(ssrc, index, b, offset, header, length - mkiLength - header);
            if (opened < 0)
            {
                return fail(SrtpResult.AUTH_FAIL);
            }
            out = header + opened;
        }
        else
        {
            final int authenticated = length - trailer;
            t.rtpTag(b, offset, authenticated, (int)(index >>> 16), tag);
            if (!tagMatches(b, offset + length - srtpTag, srtpTag))
            {
                return fail(SrtpResult.AUTH_FAIL);
            }
            t.rtpCrypt(ssrc, index, b, offset + header, authenticated - header);
            out = authenticated;
        }
        commitInbound(stream);
        stream.rtpWindow.update(index);
        rtpPackets++;
        return out;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Streams
    // ---------------------------------------------------------------------------------------------------------------

    private SrtpStream newStream(final int ssrc)
    {
        final SrtpTransform own = null == shared ? new SrtpTransform(suite, kdf, policy.backend()) : null;
        return new SrtpStream(ssrc, windowSize, own);
    }

    /**
     * Whether a stream may be created for an SSRC not seen yet.
     *
     * @return 0 if so, else {@link SrtpResult#NO_CONTEXT} (no template) or {@link SrtpResult#STREAM_LIMIT} (full).
     */
    private int admission()
    {
        if (!policy.acceptAnySsrc())
        {
            return SrtpResult.NO_CONTEXT;
        }
        return streams.isFull() ? SrtpResult.STREAM_LIMIT : 0;
    }

    /**
     * The stream of an outbound SSRC, created on its first packet when the policy is a template (libsrtp's
     * {@code ssrc_any_outbound}): the sender trusts its own SSRCs. Null with {@link #refused} set otherwise.
     */
    SrtpStream outboundStream(final int ssrc)
    {
        SrtpStream stream = stream(ssrc);
        if (null != stream)
        {
            return stream;
        }
        refused = admission();
        if (0 != refused)
        {
            return null;
        }
        stream = newStream(ssrc);
        add(stream);
        return stream;
    }

    /**
     * The stream of an inbound SSRC. For an unknown one under a template policy (libsrtp's
     * {@code ssrc_any_inbound}), a provisional stream instantiated from the policy, which joins the lookup only once
     * a packet authenticates ({@link #commitInbound}), so forged SSRCs cost no allocation and no slot. Null with
     * {@link #refused} set when there is neither.
     */
    SrtpStream inboundStream(final int ssrc)
    {
        final SrtpStream stream = stream(ssrc);
        if (null != stream)
        {
            return stream;
        }
        refused = admission();
        if (0 != refused)
        {
            return null;
        }
        if (null == probe)
        {
            probe = newStream(ssrc);
        }
        probe.ssrc = ssrc;
        return probe;
    }

    void commitInbound(final SrtpStream stream)
    {
        if (stream == probe)
        {
            add(stream);
            probe = null;
        }
    }

    /**
     * Adds a stream to the lookup and refreshes the single-stream fields.
     *
     * @return false when the lookup refused it (full).
     */
    private boolean add(final SrtpStream stream)
    {
        if (!streams.add(stream))
        {
            return false;
        }
        updateOne();
        return true;
    }

    /**
     * Sets {@link #one} and {@link #oneSsrc} after the streams changed: the stream and its SSRC at one stream, else
     * null and an SSRC without a stream. The search for one tries {@code oneSsrc}, then the SSRCs after it: at most
     * {@code streamCount() + 1} lookups, run when a stream starts or ends, never per packet; no allocation.
     */
    private void updateOne()
    {
        final SrtpStream only = streams.onlyStream();
        if (null != only)
        {
            one = only;
            oneSsrc = only.ssrc();
            return;
        }
        one = null;
        int candidate = oneSsrc;
        while (null != streams.find(candidate))
        {
            candidate++;
        }
        oneSsrc = candidate;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Helpers
    // ---------------------------------------------------------------------------------------------------------------


    boolean tagMatches(final byte[] b, final int at, final int length)
    {
        // Constant time over the tag length (RFC 3711 §3.3 step 5 does not ask for it; the leak is cheap to avoid).
        int diff = 0;
        for (int i = 0; i < length; i++)
        {
            diff |= b[at + i] ^ tag[i];
        }
        return 0 == diff;
    }

    boolean mkiMatches(final byte[] b, final int at)
    {
        for (int i = 0; i < mkiLength; i++)
        {
            if (b[at + i] != mki[i])
            {
                return false;
            }
        }
        return true;
    }

    void writeMki(final byte[] b, final int at)
    {
        if (0 != mkiLength)
        {
            System.arraycopy(mki, 0, b, at, mkiLength);
        }
    }

    int fail(final int result)
    {
        counts[-result]++;
        return result;
    }



    /** Test hook: the transform shared by all streams (key derivation rate 0), or null. */
    SrtpTransform sharedTransform()
    {
        return shared;
    }
}
