package io.sipline.sip.transport;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The STUN server a SIP port owes its clients' keep-alives (RFC 5626 §4.4.2 and §8.4: a client that keeps a flow
 * alive with STUN sends Binding requests to the SIP port itself, and the edge proxy answers them without
 * authentication): a Binding request is answered with a Binding success response carrying the client's reflexive
 * address in {@code XOR-MAPPED-ADDRESS} (RFC 8489 §7.3.1, §14.2); every other STUN message is only counted by the
 * caller. The full STUN stack (credentials, ICE) is the media module's; this is just the keep-alive answer.
 *
 * <pre>
 *  Binding success response, IPv4 (32 bytes), IPv6 (44 bytes):
 *  | 0x0101 | length 12 or 24 | magic cookie 0x2112A442 | transaction id (96 bits, copied)            |
 *  | 0x0020 XOR-MAPPED-ADDRESS | 8 or 20 | 0x00 | family 0x01/0x02 | port ^ 0x2112 | address ^ cookie(+id) |
 * </pre>
 *
 * <p>Stateless; thread-safe. The answer is a new buffer of the given allocator, owned by the caller (who passes it
 * to a send method, which sends or releases it).
 */
public final class StunKeepAlive
{
    /** RFC 8489 §5, §18.2: a Binding request (method 0x001, class request). */
    public static final int BINDING_REQUEST = 0x0001;
    /** RFC 8489 §18.2: a Binding success response. */
    public static final int BINDING_SUCCESS = 0x0101;
    /** RFC 8489 §14.2. */
    public static final int XOR_MAPPED_ADDRESS = 0x0020;

    private StunKeepAlive()
    {
    }

    /**
     * The whole length of a STUN message whose 20-byte header starts the given bytes: 20 plus its Message Length
     * field (RFC 8489 §5), so that a stream can skip or frame it.
     */
    public static int messageLength(final int lengthField)
    {
        return DatagramKind.STUN_HEADER_BYTES + (lengthField & 0xFFFF);
    }

    /**
     * Answers a Binding request.
     *
     * @param type   the request's Message Type (the first two bytes).
     * @param id0    the first four bytes of its transaction id (bytes 8..11 of the message), big-endian.
     * @param id1    bytes 12..15.
     * @param id2    bytes 16..19.
     * @param mapped where the request came from: the reflexive address to report.
     * @return the response, owned by the caller; null when the message is not a Binding request (not answered).
     */
    public static ByteBuf answer(final ByteBufAllocator allocator, final int type, final int id0, final int id1,
        final int id2, final InetSocketAddress mapped)
    {
        if (BINDING_REQUEST != type || null == mapped || null == mapped.getAddress())
        {
            return null;
        }
        final InetAddress address = mapped.getAddress();
        final boolean v4 = address instanceof Inet4Address;
        final int valueLength = v4 ? 8 : 20;
        final ByteBuf out = allocator.buffer(DatagramKind.STUN_HEADER_BYTES + 4 + valueLength);
        out.writeShort(BINDING_SUCCESS);
        out.writeShort(4 + valueLength);
        out.writeInt(DatagramKind.STUN_MAGIC_COOKIE);
        out.writeInt(id0);
        out.writeInt(id1);
        out.writeInt(id2);
        out.writeShort(XOR_MAPPED_ADDRESS);
        out.writeShort(valueLength);
        out.writeByte(0);
        out.writeByte(v4 ? 0x01 : 0x02);
        out.writeShort(mapped.getPort() ^ (DatagramKind.STUN_MAGIC_COOKIE >>> 16));
        final byte[] raw = address.getAddress();
        // RFC 8489 §14.2: the address is XOR'ed with the magic cookie (IPv4), or with the cookie followed by the
        // transaction id (IPv6).
        final int[] key = {DatagramKind.STUN_MAGIC_COOKIE, id0, id1, id2};
        for (int i = 0; i < raw.length; i++)
        {
            final int k = key[i >> 2] >>> (24 - 8 * (i & 3));
            out.writeByte((raw[i] ^ k) & 0xFF);
        }
        return out;
    }
}
