package io.sipline.media.ice;

/**
 * Tells apart the protocols that share one media 5-tuple by the first octet of a datagram (RFC 7983 §7, which updates
 * RFC 5764 §5.1.2), and RTP from RTCP when they share the port (RFC 5761 §4), then reads the SSRC by which an RTP
 * or RTCP packet finds its stream (for example in an {@link io.sipline.media.ssrc.SsrcIndex}):
 * <pre>
 *   first octet   0..3     STUN                  (RFC 8489)
 *                 16..19   ZRTP                  (RFC 6189)
 *                 20..63   DTLS                  (RFC 6347; DTLS-SRTP, RFC 5764)
 *                 64..79   TURN ChannelData      (RFC 8656 §12)
 *                 128..191 RTP or RTCP: RTCP when the second octet (RTCP packet type) is 192..223 (RFC 5761 §4)
 *                 anything else: not for us (RFC 7983 §7: drop)
 * </pre>
 * A pure function of the bytes: nothing is allocated, nothing is thrown for any input, short datagrams are
 * {@link #UNKNOWN}.
 *
 * <p>Stateless and thread-safe.
 */
public final class MediaDemux
{
    /** A first octet outside every range of RFC 7983 §7, or too short for its protocol's header. */
    public static final int UNKNOWN = 0;
    /** STUN: first octet 0..3. */
    public static final int STUN = 1;
    /** ZRTP: first octet 16..19. */
    public static final int ZRTP = 2;
    /** DTLS: first octet 20..63. */
    public static final int DTLS = 3;
    /** TURN ChannelData: first octet 64..79. */
    public static final int TURN_CHANNEL = 4;
    /** RTP: first octet 128..191, second octet not an RTCP packet type. */
    public static final int RTP = 5;
    /** RTCP: first octet 128..191, second octet 192..223. */
    public static final int RTCP = 6;

    /** RTP fixed header (RFC 3550 §5.1). */
    public static final int RTP_HEADER = 12;
    /** RTCP header with the sender's SSRC (RFC 3550 §6.4). */
    public static final int RTCP_HEADER = 8;

    private static final int STUN_HEADER = 20;
    private static final int DTLS_HEADER = 13;
    private static final int CHANNEL_HEADER = 4;

    /**
     * The class of each first octet; RTP's range still needs the second octet to tell RTCP.
     */
    private static final byte[] BY_FIRST_OCTET = firstOctetTable();

    private MediaDemux()
    {
    }

    /**
     * Classifies a datagram.
     *
     * @param buf    bytes.
     * @param offset first octet of the datagram.
     * @param length octets in the datagram.
     * @return {@link #STUN}, {@link #ZRTP}, {@link #DTLS}, {@link #TURN_CHANNEL}, {@link #RTP}, {@link #RTCP} or
     * {@link #UNKNOWN} (out of range, or shorter than that protocol's fixed header, or a bad offset/length).
     */
    public static int classify(final byte[] buf, final int offset, final int length)
    {
        if (length < CHANNEL_HEADER || offset < 0 || offset > buf.length - length)
        {
            return UNKNOWN;
        }
        final int kind = BY_FIRST_OCTET[buf[offset] & 0xFF];
        if (RTP == kind)
        {
            final int type = buf[offset + 1] & 0xFF;
            if (type >= 192 && type <= 223)
            {
                return length >= RTCP_HEADER ? RTCP : UNKNOWN;
            }
            return length >= RTP_HEADER ? RTP : UNKNOWN;
        }
        return length >= minimumLength(kind) ? kind : UNKNOWN;
    }

    /**
     * The SSRC of an RTP packet (octets 8 to 11) or the sender SSRC of an RTCP packet (octets 4 to 7).
     *
     * @param kind   {@link #RTP} or {@link #RTCP}, as returned by {@link #classify} for these bytes.
     * @param buf    bytes.
     * @param offset first octet of the packet.
     * @return the SSRC.
     */
    public static int ssrc(final int kind, final byte[] buf, final int offset)
    {
        final int at = offset + (RTCP == kind ? 4 : 8);
        return (buf[at] & 0xFF) << 24 | (buf[at + 1] & 0xFF) << 16 | (buf[at + 2] & 0xFF) << 8 | buf[at + 3] & 0xFF;
    }

    /**
     * @param kind a class.
     * @return its name, for logs.
     */
    public static String name(final int kind)
    {
        return switch (kind)
        {
            case STUN -> "STUN";
            case ZRTP -> "ZRTP";
            case DTLS -> "DTLS";
            case TURN_CHANNEL -> "TURN_CHANNEL";
            case RTP -> "RTP";
            case RTCP -> "RTCP";
            default -> "UNKNOWN";
        };
    }

    private static int minimumLength(final int kind)
    {
        return switch (kind)
        {
            case STUN -> STUN_HEADER;
            case DTLS -> DTLS_HEADER;
            case ZRTP, TURN_CHANNEL -> CHANNEL_HEADER;
            default -> Integer.MAX_VALUE;
        };
    }

    private static byte[] firstOctetTable()
    {
        final byte[] table = new byte[256];
        for (int b = 0; b < 256; b++)
        {
            final int kind;
            if (b <= 3)
            {
                kind = STUN;
            }
            else if (b >= 16 && b <= 19)
            {
                kind = ZRTP;
            }
            else if (b >= 20 && b <= 63)
            {
                kind = DTLS;
            }
            else if (b >= 64 && b <= 79)
            {
                kind = TURN_CHANNEL;
            }
            else if (b >= 128 && b <= 191)
            {
                kind = RTP;
            }
            else
            {
                kind = UNKNOWN;
            }
            table[b] = (byte)kind;
        }
        return table;
    }
}
