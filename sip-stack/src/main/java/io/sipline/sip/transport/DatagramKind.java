package io.sipline.sip.transport;

import io.netty.buffer.ByteBuf;

/**
 * Demultiplexes a datagram on its first bytes, before any parsing: a SIP port also receives NAT keep-alives and STUN
 * (RFC 5626 §3.5, §4.4; RFC 7983 §7 for the same first-byte rule). Returns an {@code int} constant: nothing allocated.
 *
 * <pre>
 *  first byte    what                          rule
 *  ----------    ----------------------------  -----------------------------------------------------------------
 *  0x00..0x3F    STUN (RFC 8489 §5)            top two bits 0, 20-byte header, magic cookie 0x2112A442 at offset 4
 *  CR / LF       keep-alive                    the datagram is nothing but CR and LF bytes ("\r\n\r\n", "\r\n")
 *  anything else SIP                           handed to the parser, which judges it (RFC 3261 §7)
 *
 *  |0 0| STUN Message Type (14) | Message Length (16) | Magic Cookie (32) | Transaction ID (96) |
 * </pre>
 *
 * A SIP message starts with a method token or "SIP/", so it never looks like STUN. Over UDP a CRLF datagram is no
 * ping owed a pong (RFC 5626 §4.4.1 allows that only on connections; §4.4.2 makes STUN the UDP keep-alive): it is
 * counted and dropped. A STUN Binding request is answered with the sender's reflexive address ({@link StunKeepAlive},
 * RFC 5626 §8.4); other STUN messages are dropped.
 *
 * <p>Stateless; thread-safe. Borrows the buffer it classifies (indexes untouched).
 */
public final class DatagramKind
{
    /** Anything that is neither of the others: handed to the SIP parser. */
    public static final int SIP = 0;
    /** Nothing but CR and LF bytes: a NAT keep-alive (RFC 5626 §3.5.1 form, sent over UDP). */
    public static final int KEEP_ALIVE = 1;
    /** A STUN message (RFC 8489 §5). */
    public static final int STUN = 2;

    /** RFC 8489 §5: the fixed value at bytes 4..7 of every STUN message. */
    public static final int STUN_MAGIC_COOKIE = 0x2112A442;
    /** RFC 8489 §5: a STUN message is at least its 20-byte header. */
    public static final int STUN_HEADER_BYTES = 20;

    private DatagramKind()
    {
    }

    /**
     * Classifies the readable bytes of a datagram.
     *
     * @param datagram borrowed; neither read-index-moved nor released here.
     * @return {@link #SIP}, {@link #KEEP_ALIVE} or {@link #STUN}.
     */
    public static int classify(final ByteBuf datagram)
    {
        final int start = datagram.readerIndex();
        final int length = datagram.readableBytes();
        if (0 == length)
        {
            return SIP;
        }
        final int first = datagram.getByte(start) & 0xFF;
        if ((first & 0xC0) == 0)
        {
            // RFC 8489 §5: the two most significant bits of every STUN message are zero, and the cookie follows the
            // type and length fields. No SIP message starts with a byte below 0x40 ('A' is 0x41), except CR and LF.
            if (length >= STUN_HEADER_BYTES && datagram.getInt(start + 4) == STUN_MAGIC_COOKIE)
            {
                return STUN;
            }
            if (first == '\r' || first == '\n')
            {
                return onlyLineBreaks(datagram, start, length) ? KEEP_ALIVE : SIP;
            }
        }
        return SIP;
    }

    private static boolean onlyLineBreaks(final ByteBuf datagram, final int start, final int length)
    {
        final int end = start + length;
        for (int i = start; i < end; i++)
        {
            final byte b = datagram.getByte(i);
            if (b != '\r' && b != '\n')
            {
                return false;
            }
        }
        return true;
    }
}
