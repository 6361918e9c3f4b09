package io.sipline.media.srtp;

import static io.sipline.media.srtp.SrtpPackets.GCM_TAG;
import static io.sipline.media.srtp.SrtpPackets.RTCP_HEADER;
import static io.sipline.media.srtp.SrtpPackets.SRTCP_WORD;
import static io.sipline.media.srtp.SrtpPackets.readInt;

/**
 * SRTCP protect and unprotect of one {@link SrtpContext} (RFC 3711 §3.4; AES-GCM: RFC 7714 §9), in place: the
 * packet layouts are drawn in {@link SrtpContext}. With AES-CM the trailer is E || index, MKI, tag; with GCM the tag
 * follows the ciphertext, then E || index and MKI, and the AAD is the 8-octet header plus the E || index word.
 *
 * <p>Stateless: it works on the context's streams, keys, counters and scratch tag, and is called on the context's
 * thread. Borrows the array for the call; allocates nothing of its own.
 */
final class SrtcpProtection
{
    private SrtcpProtection()
    {
    }

    /**
     * @param end the end of the room after the packet (the tag and trailer are written there).
     * @return the new length, or a negative {@link SrtpResult} (counted by the context).
     */
    static int protect(final SrtpContext c, final byte[] b, final int offset, final int length, final int end)
    {
        if (SrtpContext.Direction.OUTBOUND != c.direction)
        {
            return c.fail(SrtpResult.WRONG_DIRECTION);
        }
        if (c.closed)
        {
            return c.fail(SrtpResult.NO_CONTEXT);
        }
        if (length < RTCP_HEADER)
        {
            return c.fail(SrtpResult.TOO_SHORT);
        }
        if (0x80 != (b[offset] & 0xC0))
        {
            return c.fail(SrtpResult.BAD_HEADER);
        }
        final int overhead = SRTCP_WORD + c.mkiLength + c.srtcpTag;
        if (end - offset - length < overhead)
        {
            return c.fail(SrtpResult.BUFFER_TOO_SMALL);
        }
        final int ssrc = readInt(b, offset + 4);
        final SrtpStream stream = c.outboundStream(ssrc);
        if (null == stream)
        {
            return c.fail(c.refused);
        }
        final long index = stream.nextSrtcpIndex;
        if (index > SrtpStream.MAX_SRTCP_INDEX || c.rtcpPackets >= c.keyLifetime)
        {
            return c.fail(SrtpResult.KEY_EXPIRED);
        }
        final SrtpTransform t = null == stream.transform ? c.shared : stream.transform;
        t.rtcpKeys(index);
        final int word = 0x8000_0000 | (int)index;
        final int out;
        if (c.aead)
        {
            final int sealed = t.rtcpSeal(ssrc, word, b, offset, length);
            if (sealed < 0)
            {
                return c.fail(SrtpResult.CRYPTO_ERROR);
            }
            final int at = offset + RTCP_HEADER + sealed;
            SrtpTransform.writeInt(b, at, word);
            c.writeMki(b, at + SRTCP_WORD);
            out = RTCP_HEADER + sealed + SRTCP_WORD + c.mkiLength;
        }
        else
        {
            t.rtcpCrypt(ssrc, index, b, offset + RTCP_HEADER, length - RTCP_HEADER);
            SrtpTransform.writeInt(b, offset + length, word);
            c.writeMki(b, offset + length + SRTCP_WORD);
            t.rtcpTag(b, offset, length + SRTCP_WORD, c.tag);
            System.arraycopy(c.tag, 0, b, offset + length + SRTCP_WORD + c.mkiLength, c.srtcpTag);
            out = length + overhead;
        }
        stream.nextSrtcpIndex = index + 1;
        c.rtcpPackets++;
        return out;
    }

    /**
     * @return the new length, or a negative {@link SrtpResult} (counted by the context); the packet is unchanged on
     *         failure.
     */
    static int unprotect(final SrtpContext c, final byte[] b, final int offset, final int length)
    {
        if (SrtpContext.Direction.INBOUND != c.direction)
        {
            return c.fail(SrtpResult.WRONG_DIRECTION);
        }
        if (c.closed)
        {
            return c.fail(SrtpResult.NO_CONTEXT);
        }
        // AES-CM: header | payload | E+index | MKI | c.tag.   GCM: header | ciphertext | c.tag | E+index | MKI.
        final int trailer = SRTCP_WORD + c.mkiLength + c.srtcpTag;
        if (length < RTCP_HEADER + trailer)
        {
            return c.fail(SrtpResult.TOO_SHORT);
        }
        if (0x80 != (b[offset] & 0xC0))
        {
            return c.fail(SrtpResult.BAD_HEADER);
        }
        final int ssrc = readInt(b, offset + 4);
        final SrtpStream stream = c.inboundStream(ssrc);
        if (null == stream)
        {
            return c.fail(c.refused);
        }
        final int wordOffset = c.aead ? offset + length - c.mkiLength - SRTCP_WORD : offset + length - trailer;
        final int word = readInt(b, wordOffset);
        final long index = word & 0x7FFF_FFFFL;
        if (c.rtcpPackets >= c.keyLifetime)
        {
            return c.fail(SrtpResult.KEY_EXPIRED);
        }
        final int replay = stream.rtcpWindow.check(index);
        if (0 != replay)
        {
            return c.fail(replay);
        }
        if (!c.mkiMatches(b, c.aead ? offset + length - c.mkiLength : wordOffset + SRTCP_WORD))
        {
            return c.fail(SrtpResult.BAD_MKI);
        }
        final SrtpTransform t = null == stream.transform ? c.shared : stream.transform;
        t.rtcpKeys(index);
        final int out;
        if (c.aead)
        {
            final int cipherLength = wordOffset - offset - RTCP_HEADER;
            final int opened = t.rtcpOpen(ssrc, word, b, offset, cipherLength);
            if (opened < 0)
            {
                return c.fail(SrtpResult.AUTH_FAIL);
            }
            out = word < 0 ? RTCP_HEADER + opened : RTCP_HEADER + cipherLength - GCM_TAG;
        }
        else
        {
            final int authenticated = wordOffset + SRTCP_WORD - offset;
            t.rtcpTag(b, offset, authenticated, c.tag);
            if (!c.tagMatches(b, offset + length - c.srtcpTag, c.srtcpTag))
            {
                return c.fail(SrtpResult.AUTH_FAIL);
            }
            if (word < 0)
            {
                t.rtcpCrypt(ssrc, index, b, offset + RTCP_HEADER, wordOffset - offset - RTCP_HEADER);
            }
            out = wordOffset - offset;
        }
        c.commitInbound(stream);
        stream.rtcpWindow.update(index);
        c.rtcpPackets++;
        return out;
    }
}
