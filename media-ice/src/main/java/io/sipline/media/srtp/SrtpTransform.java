package io.sipline.media.srtp;

import java.util.Arrays;

/**
 * Session keys of one key derivation epoch and the crypto of one packet: IV formation, AES-CM keystream, HMAC-SHA1
 * tag, or AES-GCM seal/open. Packet parsing, stream state and result codes live in {@link SrtpContext}.
 *
 * <p>AES-CM IV (RFC 3711 §4.1.1, RFC 6188 §4), 16 octets, and GCM IVs (RFC 7714 §8.1 SRTP, §9.1 SRTCP), 12 octets:
 * <pre>
 *   AES-CM     IV = (k_s * 2^16) XOR (SSRC * 2^64) XOR (i * 2^16)
 *              octet  0..3 | 4..7 | 8..13                      | 14..15
 *                     0    | SSRC | i (48-bit SRTP index or     | 00 00  (block counter)
 *                          |      |   31-bit SRTCP index)       |
 *              ... each XORed with the 14-octet session salt in octets 0..13
 *
 *   GCM SRTP   |00|00|  SSRC (4)  |   ROC (4)   | SEQ (2) |   XOR 12-octet session salt
 *   GCM SRTCP  |00|00|  SSRC (4)  |00|00|0+SRTCP index (31)|   XOR 12-octet session salt
 * </pre>
 *
 * <p>With key derivation rate 0 one transform serves every stream of a context; with a non-zero rate each stream owns
 * one, because its epoch follows its own index. Not thread-safe; owned by one media thread.
 */
final class SrtpTransform
{
    private final SrtpCryptoSuite suite;
    private final SrtpKeyDerivation kdf;
    private final SrtpBackend.Ctr rtpCtr;
    private final SrtpBackend.Ctr rtcpCtr;
    private final SrtpBackend.Mac rtpMac;
    private final SrtpBackend.Mac rtcpMac;
    private final SrtpBackend.Aead rtpAead;
    private final SrtpBackend.Aead rtcpAead;
    private final byte[] rtpSalt = new byte[14];
    private final byte[] rtcpSalt = new byte[14];
    private final byte[] key = new byte[32];
    private final byte[] authKey = new byte[20];
    private final byte[] iv = new byte[16];
    private final byte[] gcmIv = new byte[12];
    private final byte[] word = new byte[4];
    private long rtpEpoch = -1;
    private long rtcpEpoch = -1;

    SrtpTransform(final SrtpCryptoSuite suite, final SrtpKeyDerivation kdf, final SrtpBackend backend)
    {
        this.suite = suite;
        this.kdf = kdf;
        if (suite.isAead())
        {
            rtpAead = backend.newAesGcm();
            rtcpAead = backend.newAesGcm();
            rtpCtr = null;
            rtcpCtr = null;
            rtpMac = null;
            rtcpMac = null;
        }
        else
        {
            rtpCtr = backend.newAesCtr();
            rtcpCtr = backend.newAesCtr();
            rtpMac = backend.newHmacSha1();
            rtcpMac = backend.newHmacSha1();
            rtpAead = null;
            rtcpAead = null;
        }
    }

    /**
     * Makes the SRTP session keys those of {@code index}'s epoch, deriving them if it changed (RFC 3711 §4.3.1).
     *
     * @param index 48-bit SRTP index.
     */
    void rtpKeys(final long index)
    {
        final long r = kdf.epoch(index);
        if (r != rtpEpoch)
        {
            derive(r, SrtpKeyDerivation.LABEL_RTP_ENCRYPTION, rtpCtr, rtpMac, rtpAead, rtpSalt);
            rtpEpoch = r;
        }
    }

    /**
     * Makes the SRTCP session keys those of {@code index}'s epoch.
     *
     * @param index 31-bit SRTCP index.
     */
    void rtcpKeys(final long index)
    {
        final long r = kdf.epoch(index);
        if (r != rtcpEpoch)
        {
            derive(r, SrtpKeyDerivation.LABEL_RTCP_ENCRYPTION, rtcpCtr, rtcpMac, rtcpAead, rtcpSalt);
            rtcpEpoch = r;
        }
    }

    /**
     * Keys both directions directly with session keys, bypassing the KDF: for the RFC 3711 B.2 and RFC 7714 §16/§17
     * vectors, which are stated in session keys. Test use.
     */
    void sessionKeys(final byte[] sessionKey, final byte[] sessionSalt, final byte[] sessionAuthKey)
    {
        Arrays.fill(rtpSalt, (byte)0);
        System.arraycopy(sessionSalt, 0, rtpSalt, 0, sessionSalt.length);
        System.arraycopy(rtpSalt, 0, rtcpSalt, 0, 14);
        if (suite.isAead())
        {
            rtpAead.init(sessionKey, sessionKey.length);
            rtcpAead.init(sessionKey, sessionKey.length);
        }
        else
        {
            rtpCtr.init(sessionKey, sessionKey.length);
            rtcpCtr.init(sessionKey, sessionKey.length);
            rtpMac.init(sessionAuthKey, sessionAuthKey.length);
            rtcpMac.init(sessionAuthKey, sessionAuthKey.length);
        }
        rtpEpoch = 0;
        rtcpEpoch = 0;
    }

    private void derive(
        final long r,
        final int encryptionLabel,
        final SrtpBackend.Ctr ctr,
        final SrtpBackend.Mac mac,
        final SrtpBackend.Aead aead,
        final byte[] salt)
    {
        // Labels come in threes (RFC 3711 §4.3.1): encryption, authentication, salt.
        kdf.derive(encryptionLabel, r, key, suite.keyLength());
        Arrays.fill(salt, (byte)0);
        kdf.derive(encryptionLabel + 2, r, salt, suite.saltLength());
        if (suite.isAead())
        {
            aead.init(key, suite.keyLength());
        }
        else
        {
            ctr.init(key, suite.keyLength());
            kdf.derive(encryptionLabel + 1, r, authKey, suite.authKeyLength());
            mac.init(authKey, suite.authKeyLength());
        }
        Arrays.fill(key, (byte)0);
        Arrays.fill(authKey, (byte)0);
    }

    /** Forgets the salts and marks the keys as needing derivation. */
    void destroy()
    {
        Arrays.fill(rtpSalt, (byte)0);
        Arrays.fill(rtcpSalt, (byte)0);
        rtpEpoch = -1;
        rtcpEpoch = -1;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // AES-CM with HMAC-SHA1 (RFC 3711 §4.1.1, §4.2.1)
    // ---------------------------------------------------------------------------------------------------------------

    /** XORs the SRTP keystream for {@code (ssrc, index)} into {@code buffer[offset..offset+length)}. */
    void rtpCrypt(final int ssrc, final long index, final byte[] buffer, final int offset, final int length)
    {
        cmIv(rtpSalt, ssrc, index);
        rtpCtr.xorKeystream(iv, buffer, offset, length);
    }

    /** XORs the SRTCP keystream for {@code (ssrc, index)} into {@code buffer[offset..offset+length)}. */
    void rtcpCrypt(final int ssrc, final long index, final byte[] buffer, final int offset, final int length)
    {
        cmIv(rtcpSalt, ssrc, index);
        rtcpCtr.xorKeystream(iv, buffer, offset, length);
    }

    /** RFC 3711 §4.2: HMAC-SHA1 over the authenticated portion || ROC, into {@code out[0..20)}. */
    void rtpTag(final byte[] buffer, final int offset, final int length, final int roc, final byte[] out)
    {
        writeInt(word, 0, roc);
        rtpMac.update(buffer, offset, length);
        rtpMac.update(word, 0, 4);
        rtpMac.doFinal(out, 0);
    }

    /** RFC 3711 §3.4: HMAC-SHA1 over header || encrypted portion || E || SRTCP index, into {@code out[0..20)}. */
    void rtcpTag(final byte[] buffer, final int offset, final int length, final byte[] out)
    {
        rtcpMac.update(buffer, offset, length);
        rtcpMac.doFinal(out, 0);
    }

    private void cmIv(final byte[] salt, final int ssrc, final long index)
    {
        System.arraycopy(salt, 0, iv, 0, 14);
        iv[14] = 0;
        iv[15] = 0;
        iv[4] ^= (byte)(ssrc >>> 24);
        iv[5] ^= (byte)(ssrc >>> 16);
        iv[6] ^= (byte)(ssrc >>> 8);
        iv[7] ^= (byte)ssrc;
        iv[8] ^= (byte)(index >>> 40);
        iv[9] ^= (byte)(index >>> 32);
        iv[10] ^= (byte)(index >>> 24);
        iv[11] ^= (byte)(index >>> 16);
        iv[12] ^= (byte)(index >>> 8);
        iv[13] ^= (byte)index;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // AEAD AES-GCM (RFC 7714 §7 - §9)
    // ---------------------------------------------------------------------------------------------------------------

    /**
     * RFC 7714 §7.1: encrypts the payload after a {@code headerLength}-octet RTP header (the AAD, §8.2) and appends
     * the tag.
     *
     * @return {@code payloadLength + 16}, or -1.
     */
    int rtpSeal(
        final int ssrc,
        final long index,
        final byte[] buffer,
        final int offset,
        final int headerLength,
        final int payloadLength)
    {
        gcmIv(rtpSalt, ssrc, index >>> 16, (int)index & 0xFFFF);
        if (!rtpAead.start(true, gcmIv))
        {
            return -1;
        }
        rtpAead.aad(buffer, offset, headerLength);
        return rtpAead.encrypt(buffer, offset + headerLength, payloadLength);
    }

    /**
     * RFC 7714 §7.2: verifies and decrypts {@code cipherLength} octets (ciphertext then tag) after the header.
     *
     * @return the payload length, or -1 when the tag does not verify.
     */
    int rtpOpen(
        final int ssrc,
        final long index,
        final byte[] buffer,
        final int offset,
        final int headerLength,
        final int cipherLength)
    {
        gcmIv(rtpSalt, ssrc, index >>> 16, (int)index & 0xFFFF);
        if (!rtpAead.start(false, gcmIv))
        {
            return -1;
        }
        rtpAead.aad(buffer, offset, headerLength);
        return rtpAead.decrypt(buffer, offset + headerLength, cipherLength);
    }

    /**
     * RFC 7714 §9.1: encrypts everything after the 8-octet RTCP header; the AAD is that header and the
     * E || SRTCP index word {@code eIndex}.
     *
     * @return {@code length - 8 + 16}, or -1.
     */
    int rtcpSeal(final int ssrc, final int eIndex, final byte[] buffer, final int offset, final int length)
    {
        gcmIv(rtcpSalt, ssrc, 0, 0);
        srtcpIndexIntoIv(eIndex);
        if (!rtcpAead.start(true, gcmIv))
        {
            return -1;
        }
        rtcpAead.aad(buffer, offset, 8);
        writeInt(word, 0, eIndex);
        rtcpAead.aad(word, 0, 4);
        return rtcpAead.encrypt(buffer, offset + 8, length - 8);
    }

    /**
     * RFC 7714 §9.1 (E = 1): verifies and decrypts {@code cipherLength} octets (ciphertext then tag) after the 8-octet
     * header. RFC 7714 §9.2 (E = 0): the whole {@code cipherLength - 16} octets from {@code offset} are AAD and only
     * the tag is checked.
     *
     * @return the plaintext length after the header (E = 1) or 0 (E = 0), or -1 when the tag does not verify.
     */
    int rtcpOpen(final int ssrc, final int eIndex, final byte[] buffer, final int offset, final int cipherLength)
    {
        gcmIv(rtcpSalt, ssrc, 0, 0);
        srtcpIndexIntoIv(eIndex);
        if (!rtcpAead.start(false, gcmIv))
        {
            return -1;
        }
        writeInt(word, 0, eIndex);
        if (eIndex < 0)
        {
            rtcpAead.aad(buffer, offset, 8);
            rtcpAead.aad(word, 0, 4);
            return rtcpAead.decrypt(buffer, offset + 8, cipherLength);
        }
        rtcpAead.aad(buffer, offset, 8 + cipherLength - 16);
        rtcpAead.aad(word, 0, 4);
        return rtcpAead.decrypt(buffer, offset + 8 + cipherLength - 16, 16);
    }

    private void gcmIv(final byte[] salt, final int ssrc, final long roc, final int seq)
    {
        gcmIv[0] = salt[0];
        gcmIv[1] = salt[1];
        gcmIv[2] = (byte)(salt[2] ^ (ssrc >>> 24));
        gcmIv[3] = (byte)(salt[3] ^ (ssrc >>> 16));
        gcmIv[4] = (byte)(salt[4] ^ (ssrc >>> 8));
        gcmIv[5] = (byte)(salt[5] ^ ssrc);
        gcmIv[6] = (byte)(salt[6] ^ (roc >>> 24));
        gcmIv[7] = (byte)(salt[7] ^ (roc >>> 16));
        gcmIv[8] = (byte)(salt[8] ^ (roc >>> 8));
        gcmIv[9] = (byte)(salt[9] ^ roc);
        gcmIv[10] = (byte)(salt[10] ^ (seq >>> 8));
        gcmIv[11] = (byte)(salt[11] ^ seq);
    }

    /** RFC 7714 §9.1: octets 8..11 of the SRTCP IV carry 0 || the 31-bit index (not the E bit). */
    private void srtcpIndexIntoIv(final int eIndex)
    {
        final int index = eIndex & 0x7FFFFFFF;
        gcmIv[8] ^= (byte)(index >>> 24);
        gcmIv[9] ^= (byte)(index >>> 16);
        gcmIv[10] ^= (byte)(index >>> 8);
        gcmIv[11] ^= (byte)index;
    }

    static void writeInt(final byte[] buffer, final int offset, final int value)
    {
        buffer[offset] = (byte)(value >>> 24);
        buffer[offset + 1] = (byte)(value >>> 16);
        buffer[offset + 2] = (byte)(value >>> 8);
        buffer[offset + 3] = (byte)value;
    }
}
