package io.sipline.media.srtp;

import java.nio.ByteBuffer;

import io.sipline.media.ssrc.SsrcIndex;

/**
 * One direction of an SRTP session (RFC 3711 §3.2): the master key of an {@link SrtpPolicy}, the streams of the SSRCs
 * seen so far, and in-place {@code protect}/{@code unprotect} of RTP and RTCP packets. Make one context per direction:
 * {@link #outbound(SrtpPolicy)} protects, {@link #inbound(SrtpPolicy)} unprotects.
 *
 * <p>SRTP packet (RFC 3711 §3.1); with AES-GCM (RFC 7714 §7) the tag directly follows the ciphertext and the MKI, if
 * any, comes last:
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
 * <p>SRTCP packet (RFC 3711 §3.4); with AES-GCM (RFC 7714 §9) the order after the payload is tag, E || index, MKI,
 * and the AAD is the 8-octet header plus the E || index word:
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
 * <p><b>Buffers.</b> Every method borrows the buffer for the duration of the call and works in place between
 * {@code offset} and {@code offset + length}; protect also writes up to {@link #maxRtpOverhead()} (or
 * {@link #maxRtcpOverhead()}) octets after the packet, which must fit in the array, or below the {@code limit()} of a
 * {@code ByteBuffer}. A {@code ByteBuffer}'s position and limit are not changed. Direct buffers are staged through a
 * per-context heap array (two bulk copies), because {@code javax.crypto} allocates a temporary array per call for
 * direct buffers.
 *
 * <p><b>Results.</b> The return value is the new length, or a negative {@link SrtpResult} code (counted, see
 * {@link #count(int)}); no exception is thrown for any packet. A failed unprotect leaves the packet as it was.
 *
 * <p><b>Finding the stream of a packet.</b> Every packet starts with {@link #stream(int)}. Most contexts have one
 * stream (one SSRC per direction of a call), and the context keeps that one in two fields of its own, so that a packet
 * finds it as libsrtp 2.x's {@code srtp_get_stream} finds the head of a list of one in its session:
 * <pre>
 *   libsrtp:   srtp_t session --stream_list--&gt; node: compare node-&gt;ssrc, return node
 *   here:      SrtpContext    --oneSsrc (int), one (SrtpStream)--&gt; compare oneSsrc, return one
 *     N == 1:  oneSsrc = the stream's SSRC            one = the stream
 *     N != 1:  oneSsrc = an SSRC that has no stream   one = null     then the {@link SrtpStreamLookup}
 * </pre>
 * A lookup compares the SSRC with {@code oneSsrc} and, when equal, returns {@code one}: two loads from this object
 * that do not depend on each other, no cast (the field has the concrete type), no test of the size, and no load of
 * the lookup object. Whatever N is, {@code one} is the right answer whenever {@code oneSsrc} matches: at N = 1 it is
 * the stream; at N = 0 and N &gt;= 2 {@code oneSsrc} is kept on an SSRC that has no stream, so null is the right
 * answer for it too. That is why a plain {@code int} suffices (no SSRC value is free to mean "none", so the field
 * holds a non-member instead, chosen again whenever the streams change). When the SSRC does not match and
 * {@code one} is not null (N = 1), the answer is a miss without asking the lookup; only with {@code one} null
 * (N != 1) does the context call {@link SrtpStreamLookup#find} (or, when the lookup is the default
 * {@link SsrcIndexStreamLookup}, the {@link SsrcIndex} under it directly, without the receiver check of an interface
 * call and the load of the lookup object). Every add and
 * remove of the context refreshes both fields ({@link SrtpStreamLookup#onlyStream()} says which stream is the only
 * one), allocating nothing.
 *
 * <p>The miss test matters for more than misses: it keeps the call into the lookup off the path that a context with
 * one stream ever runs, so C2 can leave it as an uncommon trap. With the lookup called from the N = 1 miss path
 * instead, C2 compiled that call as a real, not inlined call ("low call site frequency") when only hits were seen,
 * and a hit cost 1.5 to 1.6 ns instead of 1.1 in three forks of four, because every value live across the call was
 * kept on the stack (media-ice/README.md, issue 7, seventh session). The fields moved here from
 * {@link SsrcIndexStreamLookup} in the eighth session: there, the caller loaded the lookup object before its fields,
 * one dependent load more than libsrtp, whose session holds the list head itself.
 *
 * <p><b>Allocation.</b> None of our own per packet. With AES-CM, none at all in steady state ({@link JcaSrtpBackend}).
 * With GCM, {@code javax.crypto} allocates about 1 KB per packet inside {@code Cipher.init}. A new SSRC allocates its
 * stream once; a non-zero key derivation rate allocates inside the crypto library at each re-keying.
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

    private static final int RTP_HEADER = 12;
    private static final int RTCP_HEADER = 8;
    private static final int GCM_TAG = 16;
    private static final int SRTCP_WORD = 4;

    private final SrtpPolicy policy;
    private final SrtpCryptoSuite suite;
    private final Direction direction;
    private final boolean aead;
    private final SrtpKeyDerivation kdf;
    private final SrtpTransform shared;
    private final SrtpStreamLookup streams;
    /**
     * The {@link SsrcIndex} under {@link #streams} when that is the default {@link SsrcIndexStreamLookup}, else null:
     * a packet at N != 1 asks it directly ({@link SsrcIndex#getBeyondOne}, which is all that lookup's
     * {@code find} does), without the interface call's check of the receiver's class and the load of the lookup
     * object. Only read; adds and removes still go through {@link #streams}.
     */
    private final SsrcIndex<SrtpStream> streamIndex;
    private final byte[] mki;
    private final int mkiLength;
    private final int srtpTag;
    private final int srtcpTag;
    private final int windowSize;
    private final long keyLifetime;
    private final byte[] tag = new byte[20];
    private final long[] counts = new long[SrtpResult.COUNT];
    private long rtpPackets;
    private long rtcpPackets;
    private byte[] stage;
    private SrtpStream probe;
    /**
     * The SSRC of {@link #one} while there is exactly one stream; otherwise an SSRC that has no stream, so that a
     * match returns {@link #one}, null, which is then the right answer (see the class javadoc).
     */
    private int oneSsrc;
    /** The only stream while there is exactly one, else null. */
    private SrtpStream one;
    /** Why the last {@link #outboundStream}/{@link #inboundStream} returned null: a negative {@link SrtpResult}. */
    private int refused;
    private boolean closed;

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
     * {@link SrtpStreamLookup} (see the class javadoc), for the default one its {@link SsrcIndex} directly, so that the
     * call needs no check of the receiver's class nor a load of the lookup object (3.53 -> 3.28 ns at N = 3 and
     * 4.57 -> 4.11 at 200 in short runs, media-ice/README.md, eighth session). Allocates nothing.
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
        return protectRtcp(buffer, offset, length, buffer.length);
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
        return unprotectRtcpChecked(buffer, offset, length);
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
                    return protectRtcp(array, base + offset, length, base + limit);
                default:
                    return unprotectRtcpChecked(array, base + offset, length);
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
                result = protectRtcp(stage, 0, length, room);
                break;
            default:
                result = unprotectRtcpChecked(stage, 0, length);
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
    // SRTCP (RFC 3711 §3.4, RFC 7714 §9)
    // ---------------------------------------------------------------------------------------------------------------

    private int protectRtcp(final byte[] b, final int offset, final int length, final int end)
    {
        if (Direction.OUTBOUND != direction)
        {
            return fail(SrtpResult.WRONG_DIRECTION);
        }
        if (closed)
        {
            return fail(SrtpResult.NO_CONTEXT);
        }
        if (length < RTCP_HEADER)
        {
            return fail(SrtpResult.TOO_SHORT);
        }
        if (0x80 != (b[offset] & 0xC0))
        {
            return fail(SrtpResult.BAD_HEADER);
        }
        final int overhead = SRTCP_WORD + mkiLength + srtcpTag;
        if (end - offset - length < overhead)
        {
            return fail(SrtpResult.BUFFER_TOO_SMALL);
        }
        final int ssrc = readInt(b, offset + 4);
        final SrtpStream stream = outboundStream(ssrc);
        if (null == stream)
        {
            return fail(refused);
        }
        final long index = stream.nextSrtcpIndex;
        if (index > SrtpStream.MAX_SRTCP_INDEX || rtcpPackets >= keyLifetime)
        {
            return fail(SrtpResult.KEY_EXPIRED);
        }
        final SrtpTransform t = null == stream.transform ? shared : stream.transform;
        t.rtcpKeys(index);
        final int word = 0x8000_0000 | (int)index;
        final int out;
        if (aead)
        {
            final int sealed = t.rtcpSeal(ssrc, word, b, offset, length);
            if (sealed < 0)
            {
                return fail(SrtpResult.CRYPTO_ERROR);
            }
            final int at = offset + RTCP_HEADER + sealed;
            SrtpTransform.writeInt(b, at, word);
            writeMki(b, at + SRTCP_WORD);
            out = RTCP_HEADER + sealed + SRTCP_WORD + mkiLength;
        }
        else
        {
            t.rtcpCrypt(ssrc, index, b, offset + RTCP_HEADER, length - RTCP_HEADER);
            SrtpTransform.writeInt(b, offset + length, word);
            writeMki(b, offset + length + SRTCP_WORD);
            t.rtcpTag(b, offset, length + SRTCP_WORD, tag);
            System.arraycopy(tag, 0, b, offset + length + SRTCP_WORD + mkiLength, srtcpTag);
            out = length + overhead;
        }
        stream.nextSrtcpIndex = index + 1;
        rtcpPackets++;
        return out;
    }

    private int unprotectRtcpChecked(final byte[] b, final int offset, final int length)
    {
        if (Direction.INBOUND != direction)
        {
            return fail(SrtpResult.WRONG_DIRECTION);
        }
        if (closed)
        {
            return fail(SrtpResult.NO_CONTEXT);
        }
        // AES-CM: header | payload | E+index | MKI | tag.   GCM: header | ciphertext | tag | E+index | MKI.
        final int trailer = SRTCP_WORD + mkiLength + srtcpTag;
        if (length < RTCP_HEADER + trailer)
        {
            return fail(SrtpResult.TOO_SHORT);
        }
        if (0x80 != (b[offset] & 0xC0))
        {
            return fail(SrtpResult.BAD_HEADER);
        }
        final int ssrc = readInt(b, offset + 4);
        final SrtpStream stream = inboundStream(ssrc);
        if (null == stream)
        {
            return fail(refused);
        }
        final int wordOffset = aead ? offset + length - mkiLength - SRTCP_WORD : offset + length - trailer;
        final int word = readInt(b, wordOffset);
        final long index = word & 0x7FFF_FFFFL;
        if (rtcpPackets >= keyLifetime)
        {
            return fail(SrtpResult.KEY_EXPIRED);
        }
        final int replay = stream.rtcpWindow.check(index);
        if (0 != replay)
        {
            return fail(replay);
        }
        if (!mkiMatches(b, aead ? offset + length - mkiLength : wordOffset + SRTCP_WORD))
        {
            return fail(SrtpResult.BAD_MKI);
        }
        final SrtpTransform t = null == stream.transform ? shared : stream.transform;
        t.rtcpKeys(index);
        final int out;
        if (aead)
        {
            final int cipherLength = wordOffset - offset - RTCP_HEADER;
            final int opened = t.rtcpOpen(ssrc, word, b, offset, cipherLength);
            if (opened < 0)
            {
                return fail(SrtpResult.AUTH_FAIL);
            }
            out = word < 0 ? RTCP_HEADER + opened : RTCP_HEADER + cipherLength - GCM_TAG;
        }
        else
        {
            final int authenticated = wordOffset + SRTCP_WORD - offset;
            t.rtcpTag(b, offset, authenticated, tag);
            if (!tagMatches(b, offset + length - srtcpTag, srtcpTag))
            {
                return fail(SrtpResult.AUTH_FAIL);
            }
            if (word < 0)
            {
                t.rtcpCrypt(ssrc, index, b, offset + RTCP_HEADER, wordOffset - offset - RTCP_HEADER);
            }
            out = wordOffset - offset;
        }
        commitInbound(stream);
        stream.rtcpWindow.update(index);
        rtcpPackets++;
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
    private SrtpStream outboundStream(final int ssrc)
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
    private SrtpStream inboundStream(final int ssrc)
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

    private void commitInbound(final SrtpStream stream)
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

    /**
     * RTP header length: 12 + 4 * CC, plus the extension (4 + 4 * length) when X is set (RFC 3550 §5.1, §5.3.1).
     *
     * @return the length, or {@link SrtpResult#TOO_SHORT} / {@link SrtpResult#BAD_HEADER}.
     */
    static int rtpHeaderLength(final byte[] b, final int offset, final int available)
    {
        if (available < RTP_HEADER)
        {
            return SrtpResult.TOO_SHORT;
        }
        final int first = b[offset] & 0xFF;
        if (0x80 != (first & 0xC0))
        {
            return SrtpResult.BAD_HEADER;
        }
        int length = RTP_HEADER + 4 * (first & 0x0F);
        if (0 != (first & 0x10))
        {
            if (length + 4 > available)
            {
                return SrtpResult.BAD_HEADER;
            }
            length += 4 + 4 * readUnsignedShort(b, offset + length + 2);
        }
        return length <= available ? length : SrtpResult.BAD_HEADER;
    }

    private boolean tagMatches(final byte[] b, final int at, final int length)
    {
        // Constant time over the tag length (RFC 3711 §3.3 step 5 does not mandate it; timing leaks are cheap to avoid).
        int diff = 0;
        for (int i = 0; i < length; i++)
        {
            diff |= b[at + i] ^ tag[i];
        }
        return 0 == diff;
    }

    private boolean mkiMatches(final byte[] b, final int at)
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

    private void writeMki(final byte[] b, final int at)
    {
        if (0 != mkiLength)
        {
            System.arraycopy(mki, 0, b, at, mkiLength);
        }
    }

    private int fail(final int result)
    {
        counts[-result]++;
        return result;
    }

    private static int readInt(final byte[] b, final int at)
    {
        return ((b[at] & 0xFF) << 24) | ((b[at + 1] & 0xFF) << 16) | ((b[at + 2] & 0xFF) << 8) | (b[at + 3] & 0xFF);
    }

    private static int readUnsignedShort(final byte[] b, final int at)
    {
        return ((b[at] & 0xFF) << 8) | (b[at + 1] & 0xFF);
    }

    /** Test hook: the transform shared by all streams (key derivation rate 0), or null. */
    SrtpTransform sharedTransform()
    {
        return shared;
    }
}
