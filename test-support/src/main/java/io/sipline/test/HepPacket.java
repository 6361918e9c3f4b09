package io.sipline.test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One HEPv3 packet decoded for a test, strictly: the {@code HEP3} id, a total length equal to the packet's, and
 * every chunk inside it with its length; a chunk of the generic vendor (0) whose value has the wrong size fails the
 * decoding. Written apart from the encoder under test (from the HEP3 specification's chunk table), so that a test
 * compares the encoder with the specification, not with itself.
 *
 * @param family        chunk 0x0001: 2 ({@code AF_INET}) or 10 ({@code AF_INET6}).
 * @param protocol      chunk 0x0002: the IP protocol (17 UDP, 6 TCP, ...).
 * @param source        chunks 0x0003 or 0x0005, and 0x0007.
 * @param destination   chunks 0x0004 or 0x0006, and 0x0008.
 * @param seconds       chunk 0x0009, unsigned.
 * @param micros        chunk 0x000a, unsigned.
 * @param protocolType  chunk 0x000b (1 = SIP).
 * @param captureId     chunk 0x000c, unsigned.
 * @param authKey       chunk 0x000e, or null.
 * @param payload       chunk 0x000f.
 * @param chunkTypes    every chunk's type, in order.
 * @param encoded       the packet as it was received.
 */
public record HepPacket(int family, int protocol, InetSocketAddress source, InetSocketAddress destination,
    long seconds, long micros, int protocolType, long captureId, byte[] authKey, byte[] payload,
    List<Integer> chunkTypes, byte[] encoded)
{
    /** Decodes {@code packet[0, length)}; throws {@link IllegalArgumentException} on anything malformed. */
    public static HepPacket decode(final byte[] packet, final int length)
    {
        final ByteBuffer b = ByteBuffer.wrap(packet, 0, length);
        if (length < 6 || b.getInt(0) != 0x48455033)
        {
            throw new IllegalArgumentException("not HEP3");
        }
        if ((b.getShort(4) & 0xFFFF) != length)
        {
            throw new IllegalArgumentException("total length " + (b.getShort(4) & 0xFFFF) + " != " + length);
        }
        int family = -1;
        int protocol = -1;
        byte[] src = null;
        byte[] dst = null;
        int srcPort = -1;
        int dstPort = -1;
        long seconds = -1;
        long micros = -1;
        int type = -1;
        long captureId = -1;
        byte[] auth = null;
        byte[] payload = null;
        final List<Integer> types = new ArrayList<>();
        int p = 6;
        while (p < length)
        {
            if (p + 6 > length)
            {
                throw new IllegalArgumentException("chunk header cut at " + p);
            }
            final int vendor = b.getShort(p) & 0xFFFF;
            final int chunk = b.getShort(p + 2) & 0xFFFF;
            final int chunkLength = b.getShort(p + 4) & 0xFFFF;
            if (chunkLength < 6 || p + chunkLength > length)
            {
                throw new IllegalArgumentException("chunk " + chunk + " length " + chunkLength + " at " + p);
            }
            if (0 != vendor)
            {
                throw new IllegalArgumentException("vendor " + vendor + " at " + p);
            }
            types.add(chunk);
            final int v = p + 6;
            final int n = chunkLength - 6;
            switch (chunk)
            {
                case 0x0001 -> family = fixed(b, v, n, 1);
                case 0x0002 -> protocol = fixed(b, v, n, 1);
                case 0x0003, 0x0005 -> src = Arrays.copyOfRange(packet, v, v + size(n, 0x0003 == chunk ? 4 : 16));
                case 0x0004, 0x0006 -> dst = Arrays.copyOfRange(packet, v, v + size(n, 0x0004 == chunk ? 4 : 16));
                case 0x0007 -> srcPort = fixed(b, v, n, 2);
                case 0x0008 -> dstPort = fixed(b, v, n, 2);
                case 0x0009 -> seconds = b.getInt(v + size(n, 4) - 4) & 0xFFFF_FFFFL;
                case 0x000a -> micros = b.getInt(v + size(n, 4) - 4) & 0xFFFF_FFFFL;
                case 0x000b -> type = fixed(b, v, n, 1);
                case 0x000c -> captureId = b.getInt(v + size(n, 4) - 4) & 0xFFFF_FFFFL;
                case 0x000e -> auth = Arrays.copyOfRange(packet, v, v + n);
                case 0x000f -> payload = Arrays.copyOfRange(packet, v, v + n);
                default -> throw new IllegalArgumentException("unexpected chunk type " + chunk);
            }
            p += chunkLength;
        }
        if (null == src || null == dst || null == payload || srcPort < 0 || dstPort < 0)
        {
            throw new IllegalArgumentException("missing chunks: " + types);
        }
        return new HepPacket(family, protocol, address(src, srcPort), address(dst, dstPort), seconds, micros, type,
            captureId, auth, payload, List.copyOf(types), Arrays.copyOf(packet, length));
    }

    /** The capture's time, nanoseconds since the epoch (to the microsecond). */
    public long nanos()
    {
        return seconds * 1_000_000_000L + micros * 1_000L;
    }

    private static int fixed(final ByteBuffer b, final int at, final int n, final int size)
    {
        size(n, size);
        return 1 == size ? b.get(at) & 0xFF : b.getShort(at) & 0xFFFF;
    }

    private static int size(final int n, final int expected)
    {
        if (n != expected)
        {
            throw new IllegalArgumentException("value of " + n + " bytes, expected " + expected);
        }
        return n;
    }

    private static InetSocketAddress address(final byte[] bytes, final int port)
    {
        try
        {
            return new InetSocketAddress(InetAddress.getByAddress(bytes), port);
        }
        catch (final UnknownHostException e)
        {
            throw new IllegalArgumentException(e);
        }
    }
}
