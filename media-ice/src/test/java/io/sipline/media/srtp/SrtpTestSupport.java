package io.sipline.media.srtp;

import java.util.HexFormat;

/**
 * Helpers shared by the SRTP tests: hex, RTP/RTCP packet builders and policies with fixed keys.
 */
final class SrtpTestSupport
{
    static final HexFormat HEX = HexFormat.of();

    private SrtpTestSupport()
    {
    }

    static byte[] unhex(final String hex)
    {
        return HEX.parseHex(hex.replaceAll("\\s+", ""));
    }

    static String hex(final byte[] bytes, final int offset, final int length)
    {
        return HEX.formatHex(bytes, offset, offset + length);
    }

    static String hex(final byte[] bytes)
    {
        return HEX.formatHex(bytes);
    }

    /** A deterministic master key and salt for {@code suite}, varied by {@code seed}. */
    static byte[] keyMaterial(final SrtpCryptoSuite suite, final int seed)
    {
        final byte[] material = new byte[suite.masterKeySaltLength()];
        for (int i = 0; i < material.length; i++)
        {
            material[i] = (byte)(seed * 31 + i * 7 + 1);
        }
        return material;
    }

    static SrtpPolicy policy(final SrtpCryptoSuite suite, final SrtpBackend backend)
    {
        return SrtpPolicy.builder(suite).masterKey(keyMaterial(suite, 1)).backend(backend).build();
    }

    /**
     * An RTP packet in a buffer with {@code room} spare octets after it: V=2, PT 0, the given CSRC count and an
     * optional 2-word header extension, payload bytes derived from seq.
     */
    static byte[] rtp(
        final int seq,
        final int ssrc,
        final int payloadLength,
        final int csrcCount,
        final boolean extension,
        final int room)
    {
        final int header = 12 + 4 * csrcCount + (extension ? 12 : 0);
        final byte[] b = new byte[header + payloadLength + room];
        b[0] = (byte)(0x80 | (extension ? 0x10 : 0) | csrcCount);
        b[1] = (byte)(seq & 1);
        b[2] = (byte)(seq >>> 8);
        b[3] = (byte)seq;
        SrtpTransform.writeInt(b, 4, seq * 160);
        SrtpTransform.writeInt(b, 8, ssrc);
        int at = 12;
        for (int i = 0; i < csrcCount; i++)
        {
            SrtpTransform.writeInt(b, at, 0x1000 + i);
            at += 4;
        }
        if (extension)
        {
            b[at] = (byte)0xBE;
            b[at + 1] = (byte)0xDE;
            b[at + 3] = 2;
            SrtpTransform.writeInt(b, at + 4, 0x12345678);
            SrtpTransform.writeInt(b, at + 8, 0x9abcdef0);
            at += 12;
        }
        for (int i = 0; i < payloadLength; i++)
        {
            b[at + i] = (byte)(seq * 13 + i);
        }
        return b;
    }

    static int rtpLength(final byte[] packet, final int payloadLength)
    {
        final int cc = packet[0] & 0x0F;
        final boolean x = 0 != (packet[0] & 0x10);
        return 12 + 4 * cc + (x ? 12 : 0) + payloadLength;
    }

    /** An RTCP sender report (28 octets) plus {@code extra} octets of report data, with {@code room} spare octets. */
    static byte[] rtcp(final int ssrc, final int extra, final int room)
    {
        final int length = 28 + extra;
        final byte[] b = new byte[length + room];
        b[0] = (byte)0x80;
        b[1] = (byte)200;
        b[2] = (byte)((length / 4 - 1) >>> 8);
        b[3] = (byte)(length / 4 - 1);
        SrtpTransform.writeInt(b, 4, ssrc);
        for (int i = 8; i < length; i++)
        {
            b[i] = (byte)(i * 3 + extra);
        }
        return b;
    }
}
