package io.sipline.media.dtls;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

class DtlsRecordsTest
{
    private static byte[] record(final int type, final int major, final int fragmentLength)
    {
        final byte[] record = new byte[13 + fragmentLength];
        record[0] = (byte)type;
        record[1] = (byte)major;
        record[2] = (byte)0xFD;
        record[11] = (byte)(fragmentLength >> 8);
        record[12] = (byte)fragmentLength;
        return record;
    }

    private static boolean wellFormedBothWays(final byte[] datagram, final int offset, final int length)
    {
        final boolean heap = DtlsRecords.isWellFormed(datagram, offset, length);
        final ByteBuffer direct = ByteBuffer.allocateDirect(datagram.length).put(0, datagram);
        assertTrue(heap == DtlsRecords.isWellFormed(direct, offset, length));
        return heap;
    }

    @Test
    void shouldAcceptOneOrSeveralWholeRecordsAsRfc6347Section4Point1Allows()
    {
        assertTrue(wellFormedBothWays(record(22, 0xFE, 40), 0, 53));
        final byte[] two = new byte[53 + 14];
        System.arraycopy(record(22, 0xFE, 40), 0, two, 0, 53);
        System.arraycopy(record(20, 0xFE, 1), 0, two, 53, 14);
        assertTrue(wellFormedBothWays(two, 0, two.length));
        final byte[] padded = new byte[70];
        System.arraycopy(record(21, 0xFE, 2), 0, padded, 5, 15);
        assertTrue(wellFormedBothWays(padded, 5, 15));
    }

    @Test
    void shouldRefuseTruncatedForeignOrTrailingBytes()
    {
        final byte[] handshake = record(22, 0xFE, 40);
        assertFalse(wellFormedBothWays(handshake, 0, 12));
        assertFalse(wellFormedBothWays(handshake, 0, 52));
        assertFalse(wellFormedBothWays(record(25, 0xFE, 4), 0, 17));
        assertFalse(wellFormedBothWays(record(63, 0xFE, 4), 0, 17));
        // TLS, not DTLS: version major 3.
        assertFalse(wellFormedBothWays(record(22, 0x03, 4), 0, 17));
        final byte[] trailing = Arrays.copyOf(handshake, 60);
        assertFalse(wellFormedBothWays(trailing, 0, 60));
        assertFalse(wellFormedBothWays(handshake, 40, 53));
    }
}
