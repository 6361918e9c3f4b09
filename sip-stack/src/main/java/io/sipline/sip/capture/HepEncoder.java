package io.sipline.sip.capture;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

import io.netty.buffer.ByteBuf;

/**
 * Writes one SIP message as a HEPv3 packet (HEP3/EEP, sipcapture.org's "HEP3 Network Protocol Specification") into
 * one reused direct buffer. A packet is a 6-byte header and a run of chunks, every number in network order:
 * <pre>
 *  0               1               2               3
 * +---------------+---------------+---------------+---------------+
 * |      'H'      |      'E'      |      'P'      |      '3'      |
 * +---------------+---------------+---------------+---------------+
 * |  total length (header included) |  chunk: vendor id = 0x0000   |
 * +---------------+---------------+---------------+---------------+
 * |  chunk type id                |  chunk length (its 6-byte header included)
 * +---------------+---------------+---------------+---------------+
 * |  value ...                                                    |
 * </pre>
 * Chunks written, all of vendor 0 (generic), in this order: 0x0001 IP family (u8, {@code AF_INET} 2 or
 * {@code AF_INET6} 10), 0x0002 IP protocol (u8, see {@link #PROTOCOL_UDP}, {@link #PROTOCOL_TCP},
 * {@link #PROTOCOL_TLS}), 0x0003/0x0004 IPv4 source/destination (4 bytes) or 0x0005/0x0006 IPv6 (16 bytes), 0x0007
 * source port and 0x0008 destination port (u16), 0x0009 timestamp seconds and 0x000a its microseconds (u32), 0x000b
 * protocol type (u8, 1 = SIP), 0x000c capture agent id (u32), 0x000e authentication key (the password, when there
 * is one), 0x000f the captured payload (the SIP message's bytes, unchanged). When one address is IPv4 and the other
 * IPv6 (a dual-stack socket), both are written as IPv6, the IPv4 one mapped ({@code ::ffff:a.b.c.d}, RFC 4291
 * §2.5.5.2).
 *
 * <p>Buffers: owns {@link #buffer()} (direct, {@value #MAX_PACKET_BYTES} bytes, allocated once); the encode methods
 * borrow their payload and copy it in. Nothing is allocated per packet: IPv4 addresses are read from the address
 * object, IPv6 ones from a small cache keyed by the address object's identity (peers' address objects are reused by
 * the transport). Not thread-safe; one per shard, used on its event loop only.
 */
public final class HepEncoder
{
    /** IP protocol 17, RFC 768: SIP over UDP. */
    public static final int PROTOCOL_UDP = 17;
    /** IP protocol 6: SIP over TCP, and over WebSocket (WS and WSS, RFC 7118), which Homer files under TCP. */
    public static final int PROTOCOL_TCP = 6;
    /**
     * SIP over TLS: IP protocol 22, the value HEP agents (sofia-sip, reSIProcate) send for TLS and Homer shows as
     * "TLS"; the payload is the decrypted SIP message.
     */
    public static final int PROTOCOL_TLS = 22;
    /** Protocol type (chunk 0x000b) of SIP. */
    public static final int TYPE_SIP = 1;
    /** The largest packet: its length field is 16 bits. */
    public static final int MAX_PACKET_BYTES = 65_535;

    static final short AF_INET = 2;
    static final short AF_INET6 = 10;
    private static final int CHUNK_HEADER = 6;
    private static final int IPV6_CACHE_SLOTS = 64;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    /** {@link Inet4Address#hashCode()} is the address as a big-endian int in OpenJDK; checked once, else copied. */
    private static final boolean IPV4_HASH_IS_ADDRESS = hashIsAddress("127.0.0.1") && hashIsAddress("10.200.30.4")
        && hashIsAddress("255.1.128.7");

    private final ByteBuffer buffer = ByteBuffer.allocateDirect(MAX_PACKET_BYTES);
    private final int captureId;
    private final byte[] password;
    /** Bytes of the headers and chunks around a payload, addresses excluded. */
    private final int fixedBytes;
    private final Inet6Address[] ipv6Keys = new Inet6Address[IPV6_CACHE_SLOTS];
    private final byte[][] ipv6Bytes = new byte[IPV6_CACHE_SLOTS][];

    /**
     * @param captureId the capture agent id, unsigned.
     * @param password  the authentication key's bytes (kept, not copied), or null for no such chunk.
     */
    public HepEncoder(final int captureId, final byte[] password)
    {
        this.captureId = captureId;
        this.password = password;
        this.fixedBytes = 6 + (CHUNK_HEADER + 1) * 2 + (CHUNK_HEADER + 2) * 2 + (CHUNK_HEADER + 4) * 2
            + (CHUNK_HEADER + 1) + (CHUNK_HEADER + 4) + (null == password ? 0 : CHUNK_HEADER + password.length)
            + CHUNK_HEADER;
    }

    /** The packet last encoded, from position 0 to its limit; owned by this encoder, valid until the next encode. */
    public ByteBuffer buffer()
    {
        return buffer;
    }

    /**
     * Encodes {@code payload[offset, offset + length)}, sent from {@code source} to {@code destination}.
     *
     * @param protocol the IP protocol chunk's value ({@link #PROTOCOL_UDP}, ...).
     * @param atNanos  when the message was read or written, nanoseconds since the epoch.
     * @param payload  borrowed.
     * @return the packet's length ({@link #buffer()} is ready to send), or -1 when it would exceed
     *         {@value #MAX_PACKET_BYTES} bytes (nothing usable is written then).
     */
    public int encode(final int protocol, final InetSocketAddress source, final InetSocketAddress destination,
        final long atNanos, final byte[] payload, final int offset, final int length)
    {
        final int at = header(protocol, source, destination, atNanos, length);
        if (at < 0)
        {
            return -1;
        }
        buffer.put(at, payload, offset, length);
        return at + length;
    }

    /**
     * Encodes {@code length} bytes of {@code payload} from {@code index}, sent from {@code source} to
     * {@code destination}, as {@link #encode(int, InetSocketAddress, InetSocketAddress, long, byte[], int, int)}.
     *
     * @param payload borrowed; its indexes are not moved.
     */
    public int encode(final int protocol, final InetSocketAddress source, final InetSocketAddress destination,
        final long atNanos, final ByteBuf payload, final int index, final int length)
    {
        final int at = header(protocol, source, destination, atNanos, length);
        if (at < 0)
        {
            return -1;
        }
        // getLong/putLong: a bulk getBytes into a ByteBuffer would make a NIO view of a pooled direct buffer.
        final int longs = length & ~7;
        int i = 0;
        for (; i < longs; i += 8)
        {
            buffer.putLong(at + i, payload.getLong(index + i));
        }
        for (; i < length; i++)
        {
            buffer.put(at + i, payload.getByte(index + i));
        }
        return at + length;
    }

    /** Writes everything before the payload's bytes; returns where they go, or -1 when the packet is too long. */
    private int header(final int protocol, final InetSocketAddress source, final InetSocketAddress destination,
        final long atNanos, final int payloadLength)
    {
        final InetAddress from = source.getAddress();
        final InetAddress to = destination.getAddress();
        final boolean ipv6 = from instanceof Inet6Address || to instanceof Inet6Address;
        final int addressBytes = ipv6 ? 16 : 4;
        final int total = fixedBytes + 2 * (CHUNK_HEADER + addressBytes) + payloadLength;
        if (total > MAX_PACKET_BYTES || null == from || null == to)
        {
            return -1;
        }
        final ByteBuffer b = buffer;
        b.clear();
        b.limit(total);
        b.putInt(0, 0x48455033); // "HEP3"
        b.putShort(4, (short)total);
        int p = 6;
        p = chunk(b, p, 0x0001, 1);
        b.put(p++, (byte)(ipv6 ? AF_INET6 : AF_INET));
        p = chunk(b, p, 0x0002, 1);
        b.put(p++, (byte)protocol);
        p = chunk(b, p, ipv6 ? 0x0005 : 0x0003, addressBytes);
        p = address(b, p, from, ipv6);
        p = chunk(b, p, ipv6 ? 0x0006 : 0x0004, addressBytes);
        p = address(b, p, to, ipv6);
        p = chunk(b, p, 0x0007, 2);
        b.putShort(p, (short)source.getPort());
        p = chunk(b, p + 2, 0x0008, 2);
        b.putShort(p, (short)destination.getPort());
        p = chunk(b, p + 2, 0x0009, 4);
        b.putInt(p, (int)Math.floorDiv(atNanos, NANOS_PER_SECOND));
        p = chunk(b, p + 4, 0x000a, 4);
        b.putInt(p, (int)(Math.floorMod(atNanos, NANOS_PER_SECOND) / 1_000L));
        p = chunk(b, p + 4, 0x000b, 1);
        b.put(p++, (byte)TYPE_SIP);
        p = chunk(b, p, 0x000c, 4);
        b.putInt(p, captureId);
        p += 4;
        if (null != password)
        {
            p = chunk(b, p, 0x000e, password.length);
            b.put(p, password, 0, password.length);
            p += password.length;
        }
        return chunk(b, p, 0x000f, payloadLength);
    }

    /** A chunk header of vendor 0; returns where its value goes. */
    private static int chunk(final ByteBuffer b, final int at, final int type, final int valueLength)
    {
        b.putShort(at, (short)0);
        b.putShort(at + 2, (short)type);
        b.putShort(at + 4, (short)(CHUNK_HEADER + valueLength));
        return at + CHUNK_HEADER;
    }

    private int address(final ByteBuffer b, final int at, final InetAddress address, final boolean ipv6)
    {
        if (address instanceof Inet4Address v4)
        {
            if (ipv6)
            {
                b.putLong(at, 0L);
                b.putInt(at + 8, 0x0000_FFFF);
                b.putInt(at + 12, ipv4(v4));
                return at + 16;
            }
            b.putInt(at, ipv4(v4));
            return at + 4;
        }
        b.put(at, ipv6Bytes((Inet6Address)address), 0, 16);
        return at + 16;
    }

    /** The 16 bytes of {@code address}, copied once per address object seen (per slot). */
    private byte[] ipv6Bytes(final Inet6Address address)
    {
        final int slot = System.identityHashCode(address) & (IPV6_CACHE_SLOTS - 1);
        if (ipv6Keys[slot] != address)
        {
            ipv6Bytes[slot] = address.getAddress(); // a copy: an IPv6 address has no other way out
            ipv6Keys[slot] = address;
        }
        return ipv6Bytes[slot];
    }

    private static int ipv4(final Inet4Address address)
    {
        if (IPV4_HASH_IS_ADDRESS)
        {
            return address.hashCode();
        }
        final byte[] b = address.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
    }

    private static boolean hashIsAddress(final String literal)
    {
        final InetAddress address = InetAddress.ofLiteral(literal);
        final byte[] b = address.getAddress();
        return address.hashCode() == ((b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF));
    }
}
