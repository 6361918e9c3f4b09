package io.sipline.sip.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.sipline.test.HepPacket;
import org.junit.jupiter.api.Test;

/**
 * {@link HepEncoder} against the HEP3 chunk table: each packet is decoded by the test's own {@link HepPacket} and
 * compared field by field, for IPv4, IPv6, a mixed pair (mapped to IPv6), with and without an authentication key,
 * from a {@code byte[]} and from a pooled direct buffer, and at the size limit.
 */
class HepEncoderTest
{
    private static final byte[] INVITE = ("INVITE sip:bob@example.com SIP/2.0\r\nVia: SIP/2.0/UDP 192.0.2.1:5060;"
        + "branch=z9hG4bK776asdhds\r\nCall-ID: a84b4c76e66710\r\nContent-Length: 0\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
    /** A time in November 2026, to the nanosecond. */
    private static final long AT_NANOS = 1_795_928_400L * 1_000_000_000L + 123_456_789L;

    private static InetSocketAddress at(final String literal, final int port)
    {
        return new InetSocketAddress(InetAddress.ofLiteral(literal), port);
    }

    private static HepPacket decode(final HepEncoder encoder, final int length)
    {
        final ByteBuffer b = encoder.buffer();
        assertEquals(0, b.position());
        assertEquals(length, b.limit());
        final byte[] bytes = new byte[length];
        b.get(0, bytes);
        return HepPacket.decode(bytes, length);
    }

    @Test
    void shouldWriteEveryChunkOfAnIpv4Capture()
    {
        final HepEncoder encoder = new HepEncoder(0xFFFF_FFFE, null);
        final int n = encoder.encode(HepEncoder.PROTOCOL_UDP, at("192.0.2.1", 5060), at("198.51.100.7", 65535),
            AT_NANOS, INVITE, 0, INVITE.length);
        final HepPacket p = decode(encoder, n);
        assertEquals(2, p.family());
        assertEquals(17, p.protocol());
        assertEquals(at("192.0.2.1", 5060), p.source());
        assertEquals(at("198.51.100.7", 65535), p.destination());
        assertEquals(1_795_928_400L, p.seconds());
        assertEquals(123_456L, p.micros());
        assertEquals(1, p.protocolType());
        assertEquals(0xFFFF_FFFEL, p.captureId());
        assertNull(p.authKey());
        assertArrayEquals(INVITE, p.payload());
        assertEquals(List.of(1, 2, 3, 4, 7, 8, 9, 10, 11, 12, 15), p.chunkTypes());
        assertEquals(6 + 7 + 7 + 10 + 10 + 8 + 8 + 10 + 10 + 7 + 10 + 6 + INVITE.length, n);
    }

    @Test
    void shouldWriteIpv6AddressesAndTheAuthenticationKey()
    {
        final HepEncoder encoder = new HepEncoder(2001, "s3cret".getBytes(StandardCharsets.UTF_8));
        final ByteBuf payload = PooledByteBufAllocator.DEFAULT.directBuffer(INVITE.length + 16);
        try
        {
            payload.writeBytes(new byte[5]).writeBytes(INVITE); // the message at a non-zero reader index
            payload.readerIndex(5);
            final int n = encoder.encode(HepEncoder.PROTOCOL_TLS, at("2001:db8::1", 5061),
                at("2001:db8:0:1::ab", 40000), AT_NANOS, payload, payload.readerIndex(), payload.readableBytes());
            final HepPacket p = decode(encoder, n);
            assertEquals(10, p.family());
            assertEquals(22, p.protocol());
            assertEquals(at("2001:db8::1", 5061), p.source());
            assertEquals(at("2001:db8:0:1::ab", 40000), p.destination());
            assertEquals(2001L, p.captureId());
            assertArrayEquals("s3cret".getBytes(StandardCharsets.UTF_8), p.authKey());
            assertArrayEquals(INVITE, p.payload());
            assertEquals(List.of(1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15), p.chunkTypes());
            assertEquals(5, payload.readerIndex(), "the payload's indexes are not moved");
        }
        finally
        {
            payload.release();
        }
    }

    @Test
    void shouldMapAnIpv4PeerOfADualStackSocketToIpv6()
    {
        final HepEncoder encoder = new HepEncoder(1, null);
        final int n = encoder.encode(HepEncoder.PROTOCOL_UDP, at("192.0.2.9", 5060), at("::", 5060), AT_NANOS,
            INVITE, 0, INVITE.length);
        final HepPacket p = decode(encoder, n);
        assertEquals(10, p.family());
        final byte[] raw = new byte[16];
        encoder.buffer().get(6 + 7 + 7 + 6, raw); // the IPv6 source chunk's value
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte)0xFF, (byte)0xFF, (byte)192, 0, 2, 9}, raw);
        assertEquals(at("::", 5060), p.destination());
    }

    @Test
    void shouldTimeCapturesBeforeTheEpochAndReuseTheBuffer()
    {
        final HepEncoder encoder = new HepEncoder(7, null);
        final byte[] shortMessage = "SIP/2.0 200 OK\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        encoder.encode(HepEncoder.PROTOCOL_TCP, at("10.0.0.1", 1), at("10.0.0.2", 2), AT_NANOS, INVITE, 0,
            INVITE.length);
        final int n = encoder.encode(HepEncoder.PROTOCOL_TCP, at("10.0.0.1", 1), at("10.0.0.2", 2), 1_999_000L,
            shortMessage, 0, shortMessage.length);
        final HepPacket p = decode(encoder, n);
        assertEquals(6, p.protocol());
        assertEquals(0, p.seconds());
        assertEquals(1_999, p.micros());
        assertArrayEquals(shortMessage, p.payload(), "nothing of the longer packet before it is left");
    }

    @Test
    void shouldRefuseAMessageLongerThanOnePacket()
    {
        final HepEncoder encoder = new HepEncoder(7, null);
        final byte[] big = new byte[HepEncoder.MAX_PACKET_BYTES];
        assertEquals(-1, encoder.encode(HepEncoder.PROTOCOL_TCP, at("10.0.0.1", 1), at("10.0.0.2", 2), AT_NANOS,
            big, 0, big.length));
        final int overhead = 6 + 7 + 7 + 10 + 10 + 8 + 8 + 10 + 10 + 7 + 10 + 6;
        final int largest = HepEncoder.MAX_PACKET_BYTES - overhead;
        assertEquals(HepEncoder.MAX_PACKET_BYTES, encoder.encode(HepEncoder.PROTOCOL_TCP, at("10.0.0.1", 1),
            at("10.0.0.2", 2), AT_NANOS, big, 0, largest));
        assertEquals(largest, decode(encoder, HepEncoder.MAX_PACKET_BYTES).payload().length);
    }

    @Test
    void shouldRefuseAConfigurationThatCannotWork()
    {
        assertThrows(IllegalArgumentException.class,
            () -> new HepConfig(InetSocketAddress.createUnresolved("homer.invalid", 9060), 1, null));
        assertThrows(IllegalArgumentException.class, () -> new HepConfig(at("127.0.0.1", 0), 1, null));
        assertThrows(IllegalArgumentException.class, () -> new HepConfig(at("127.0.0.1", 9060), 1, ""));
        assertThrows(IllegalArgumentException.class,
            () -> new HepConfig(at("127.0.0.1", 9060), 1, "x".repeat(HepConfig.MAX_PASSWORD_BYTES + 1)));
    }
}
