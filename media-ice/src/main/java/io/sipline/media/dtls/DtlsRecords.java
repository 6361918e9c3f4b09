package io.sipline.media.dtls;

import java.nio.ByteBuffer;

/**
 * Checks that a datagram is a whole sequence of DTLS records before it is queued for a handshake (RFC 6347 §4.1,
 * §4.1.1: several records may share a datagram, none may span two):
 * <pre>
 *    0        1        2        3        4        5  ...  10       11       12
 *   +--------+--------+--------+--------+--------+-- ... -+--------+--------+--------+
 *   |  type  | version (FE xx) |      epoch      |  sequence_number  |     length      |  fragment ...
 *   +--------+--------+--------+--------+--------+-- ... -+--------+--------+--------+
 *   type: 20 change_cipher_spec, 21 alert, 22 handshake, 23 application_data, 24 heartbeat
 *   length: at most 2^14 + 2048 (RFC 6347 §4.1, as TLSCiphertext)
 * </pre>
 * A datagram that fails is dropped and counted by the caller; this class reads only, allocates nothing and never
 * throws for bad input.
 *
 * <p>Stateless; thread-safe.
 */
final class DtlsRecords
{
    /** Octets of a DTLS record header. */
    static final int HEADER_LENGTH = 13;
    /** Largest record fragment (RFC 6347 §4.1: TLSCiphertext limit). */
    static final int MAX_FRAGMENT_LENGTH = (1 << 14) + 2048;

    private static final int DTLS_MAJOR_VERSION = 0xFE;
    private static final int LENGTH_OFFSET = 11;

    private DtlsRecords()
    {
    }

    /**
     * @param buffer the datagram, borrowed.
     * @param offset first octet.
     * @param length octets.
     * @return whether it is one or more whole, plausible DTLS records and nothing else.
     */
    static boolean isWellFormed(final byte[] buffer, final int offset, final int length)
    {
        if (length < HEADER_LENGTH || offset < 0 || offset + length > buffer.length)
        {
            return false;
        }
        int position = offset;
        final int end = offset + length;
        while (position < end)
        {
            if (end - position < HEADER_LENGTH || !isPlausibleHeader(buffer[position], buffer[position + 1]))
            {
                return false;
            }
            final int fragment = ((buffer[position + LENGTH_OFFSET] & 0xFF) << 8) |
                (buffer[position + LENGTH_OFFSET + 1] & 0xFF);
            if (fragment > MAX_FRAGMENT_LENGTH || end - position - HEADER_LENGTH < fragment)
            {
                return false;
            }
            position += HEADER_LENGTH + fragment;
        }
        return true;
    }

    /**
     * @param buffer the datagram, borrowed; its position and limit are left alone.
     * @param offset absolute index of the first octet.
     * @param length octets.
     * @return whether it is one or more whole, plausible DTLS records and nothing else.
     */
    static boolean isWellFormed(final ByteBuffer buffer, final int offset, final int length)
    {
        if (length < HEADER_LENGTH || offset < 0 || offset + length > buffer.capacity())
        {
            return false;
        }
        int position = offset;
        final int end = offset + length;
        while (position < end)
        {
            if (end - position < HEADER_LENGTH || !isPlausibleHeader(buffer.get(position), buffer.get(position + 1)))
            {
                return false;
            }
            final int fragment = buffer.getShort(position + LENGTH_OFFSET) & 0xFFFF;
            if (fragment > MAX_FRAGMENT_LENGTH || end - position - HEADER_LENGTH < fragment)
            {
                return false;
            }
            position += HEADER_LENGTH + fragment;
        }
        return true;
    }

    private static boolean isPlausibleHeader(final byte type, final byte majorVersion)
    {
        return type >= 20 && type <= 24 && (majorVersion & 0xFF) == DTLS_MAJOR_VERSION;
    }
}
