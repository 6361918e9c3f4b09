package io.sipline.media.turn;

/**
 * ChannelData framing (RFC 8656 §12.4): a 4-byte header — channel number and data length — then the application
 * data, padded to a multiple of 4 bytes over UDP (the padding is not counted in the length field and may be omitted
 * over UDP, RFC 8656 §12.5; we write it, and accept frames with or without it).
 *
 * <pre>
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |         Channel Number        |            Length             |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   /                       Application Data                        /
 *   +-------------------------------+-------------------------------+
 * </pre>
 *
 * <p>Channel numbers 0x4000-0x4FFF are valid (RFC 8656 §12); 0x5000-0x7FFF are reserved and, like anything else,
 * make {@link #channel} return -1. Stateless; thread-safe; allocates nothing.
 */
public final class TurnChannelData
{
    /** Lowest channel number (RFC 8656 §12). */
    public static final int MIN_CHANNEL = 0x4000;
    /** Highest channel number (RFC 8656 §12). */
    public static final int MAX_CHANNEL = 0x4FFF;
    /** Bytes in the ChannelData header. */
    public static final int HEADER_LENGTH = 4;

    private TurnChannelData()
    {
    }

    /**
     * @param channel a number.
     * @return whether it is a valid channel number.
     */
    public static boolean isValidChannel(final int channel)
    {
        return channel >= MIN_CHANNEL && channel <= MAX_CHANNEL;
    }

    /**
     * First-byte demultiplexing (RFC 7983 §7: 64-79 is TURN ChannelData).
     *
     * @param buf    bytes.
     * @param offset first byte.
     * @param length bytes available.
     * @return whether this looks like a ChannelData message (checks only the first two bits: 0b01).
     */
    public static boolean looksLikeChannelData(final byte[] buf, final int offset, final int length)
    {
        return length >= HEADER_LENGTH && 0x40 == (buf[offset] & 0xC0);
    }

    /**
     * @param buf    bytes.
     * @param offset first byte.
     * @param length bytes available.
     * @return the channel number of a well-framed ChannelData message, or -1 (reserved number, or the length field
     *     promises more than {@code length} holds).
     */
    public static int channel(final byte[] buf, final int offset, final int length)
    {
        if (!looksLikeChannelData(buf, offset, length))
        {
            return -1;
        }
        final int channel = ((buf[offset] & 0xFF) << 8) | (buf[offset + 1] & 0xFF);
        if (!isValidChannel(channel) || HEADER_LENGTH + dataLength(buf, offset) > length)
        {
            return -1;
        }
        return channel;
    }

    /**
     * @param buf    bytes.
     * @param offset first byte of a ChannelData message.
     * @return the length field.
     */
    public static int dataLength(final byte[] buf, final int offset)
    {
        return ((buf[offset + 2] & 0xFF) << 8) | (buf[offset + 3] & 0xFF);
    }

    /**
     * @param dataLength application bytes.
     * @param padded     whether to pad to 4 (UDP).
     * @return the frame length.
     */
    public static int frameLength(final int dataLength, final boolean padded)
    {
        return HEADER_LENGTH + (padded ? (dataLength + 3) & ~3 : dataLength);
    }

    /**
     * Writes a ChannelData message.
     *
     * @param dst     destination.
     * @param at      first destination byte.
     * @param channel channel number.
     * @param src     application data (borrowed, copied).
     * @param from    first data byte.
     * @param length  data bytes, at most 65535.
     * @param padded  pad with zeros to a multiple of 4 (UDP).
     * @return bytes written, or -1 when {@code dst} is too small or the arguments are out of range.
     */
    public static int encode(final byte[] dst, final int at, final int channel, final byte[] src, final int from,
        final int length, final boolean padded)
    {
        final int frame = frameLength(length, padded);
        if (!isValidChannel(channel) || length < 0 || length > 0xFFFF || at < 0 || at + frame > dst.length)
        {
            return -1;
        }
        dst[at] = (byte) (channel >>> 8);
        dst[at + 1] = (byte) channel;
        dst[at + 2] = (byte) (length >>> 8);
        dst[at + 3] = (byte) length;
        System.arraycopy(src, from, dst, at + HEADER_LENGTH, length);
        for (int i = at + HEADER_LENGTH + length; i < at + frame; i++)
        {
            dst[i] = 0;
        }
        return frame;
    }
}
