package io.sipline.bench.abuse;

import java.nio.charset.StandardCharsets;

/**
 * The client side of the WebSocket wire, just what the attacks send: the HTTP upgrade request offering the
 * {@code sip} subprotocol (RFC 6455 §4.1, RFC 7118 §4), and frame headers with any claimed length, masked as a client
 * must mask (RFC 6455 §5.2, §5.3). A well-formed client library cannot claim 10 MB and stream it, so the attacks
 * write these bytes on plain sockets themselves.
 * <p>
 * Stateless and thread-safe; every array returned is new and the caller's.
 */
final class WsClientFrames
{
    /** RFC 6455 §5.2 opcodes. */
    static final int CONTINUATION = 0x0;
    static final int TEXT = 0x1;

    private WsClientFrames()
    {
    }

    /** A version-13 upgrade request for {@code /} offering {@code sip}; the key is the RFC's sample nonce (§4.2.1). */
    static byte[] upgrade()
    {
        return ("GET / HTTP/1.1\r\n"
            + "Host: 127.0.0.1\r\n"
            + "Upgrade: websocket\r\n"
            + "Connection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            + "Sec-WebSocket-Version: 13\r\n"
            + "Sec-WebSocket-Protocol: sip\r\n"
            + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A masked frame header (§5.2): FIN and opcode, the MASK bit and the payload length in 7, 7+16 or 7+64 bits, then
     * the 4-byte masking key.
     */
    static byte[] header(final boolean fin, final int opcode, final long length, final byte[] maskKey)
    {
        final int extended = length < 126 ? 0 : length < 65_536 ? 2 : 8;
        final byte[] h = new byte[2 + extended + 4];
        h[0] = (byte)((fin ? 0x80 : 0) | opcode);
        h[1] = (byte)(0x80 | (extended == 0 ? (int)length : extended == 2 ? 126 : 127));
        for (int i = 0; i < extended; i++)
        {
            h[2 + i] = (byte)(length >>> 8 * (extended - 1 - i));
        }
        System.arraycopy(maskKey, 0, h, 2 + extended, 4);
        return h;
    }

    /**
     * Masks {@code payload} in place as the {@code position}-th byte on of its frame's payload (§5.3: byte i is
     * XORed with key byte i mod 4).
     */
    static void mask(final byte[] payload, final byte[] maskKey, final long position)
    {
        for (int i = 0; i < payload.length; i++)
        {
            payload[i] ^= maskKey[(int)((position + i) & 3)];
        }
    }
}
