package io.sipline.media.srtp;

/**
 * Sizes and field readers of the RTP and RTCP packets that SRTP and SRTCP protect (RFC 3550 §5.1, §6.4; RFC 3711
 * §3.1, §3.4; RFC 7714 §7, §9), shared by {@link SrtpContext} and {@link SrtcpProtection}. The packet layouts are
 * drawn in {@link SrtpContext}.
 *
 * <p>Stateless; every method borrows the array for the call and allocates nothing.
 */
final class SrtpPackets
{
    /** The fixed RTP header: V, P, X, CC, M, PT, sequence number, timestamp, SSRC. */
    static final int RTP_HEADER = 12;
    /** The RTCP header SRTCP leaves in clear: V, P, RC, PT, length, SSRC of sender. */
    static final int RTCP_HEADER = 8;
    /** The AES-GCM authentication tag (RFC 7714 §8.2). */
    static final int GCM_TAG = 16;
    /** The SRTCP E flag and 31-bit index. */
    static final int SRTCP_WORD = 4;

    private SrtpPackets()
    {
    }

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

    /** @return the big-endian 32-bit value at {@code at}. */
    static int readInt(final byte[] b, final int at)
    {
        return ((b[at] & 0xFF) << 24) | ((b[at + 1] & 0xFF) << 16) | ((b[at + 2] & 0xFF) << 8) | (b[at + 3] & 0xFF);
    }

    /** @return the big-endian unsigned 16-bit value at {@code at}. */
    static int readUnsignedShort(final byte[] b, final int at)
    {
        return ((b[at] & 0xFF) << 8) | (b[at + 1] & 0xFF);
    }
}
