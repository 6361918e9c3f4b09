package io.sipline.media.srtp;

import java.util.Arrays;

/**
 * The SRTP key derivation function of RFC 3711 §4.3 with the AES-CM PRF of §4.3.3, for 128-bit master keys and the
 * AES-192/256 PRFs of RFC 6188 §5 (the same construction keyed with the longer master key). GCM suites use it
 * unchanged with a 12-octet master salt, zero-padded on the right to 14 octets as libsrtp does (RFC 7714 §11).
 *
 * <pre>
 *   key_id = label || r                   label: 8 bits, r = index DIV key_derivation_rate: 48 bits
 *   x      = key_id XOR master_salt       both right-aligned in 112 bits
 *   out    = AES-CM(master_key, IV = x * 2^16), truncated to the session key length
 *
 *   octet:   0  1  2  3  4  5  6 | 7     | 8  9  10 11 12 13 | 14 15
 *   IV   :   master salt ....... | ^label| ^ r (big-endian)  | 00 00   (block counter)
 *
 *   SRTCP with a non-zero rate: r = SRTCP index DIV kdr is 32 bits (RFC 3711 §4.3.2 "0 || SRTCP index"),
 *   so key_id is 40 bits and the label lands in octet 9, r in octets 10..13 (NIST SP 800-135 §5.3);
 *   with rate 0, octet 7 as for SRTP (why: {@link #derive})
 * </pre>
 *
 * <p>Not thread-safe: the PRF engine and scratch belong to one context. Derivation happens at setup, and on the
 * packet path only when a non-zero key derivation rate crosses an epoch (RFC 3711 §4.3.1).
 */
final class SrtpKeyDerivation
{
    /** RFC 3711 §4.3.1 labels. */
    static final int LABEL_RTP_ENCRYPTION = 0x00;
    static final int LABEL_RTP_AUTH = 0x01;
    static final int LABEL_RTP_SALT = 0x02;
    static final int LABEL_RTCP_ENCRYPTION = 0x03;
    static final int LABEL_RTCP_AUTH = 0x04;
    static final int LABEL_RTCP_SALT = 0x05;

    private final SrtpBackend.Ctr prf;
    private final byte[] masterSalt = new byte[14];
    private final byte[] iv = new byte[16];
    private final int keyDerivationRate;
    private final int rateShift;

    /**
     * @param backend           crypto backend.
     * @param masterKey         16, 24 or 32 octets, copied into the PRF's key schedule.
     * @param masterSalt        14 (AES-CM) or 12 (GCM) octets, copied.
     * @param keyDerivationRate 0, or a power of two up to 2^24 (RFC 3711 §4.3.1).
     */
    SrtpKeyDerivation(
        final SrtpBackend backend,
        final byte[] masterKey,
        final byte[] masterSalt,
        final int keyDerivationRate)
    {
        if (keyDerivationRate < 0 || keyDerivationRate > (1 << 24) || Integer.bitCount(keyDerivationRate) > 1)
        {
            throw new IllegalArgumentException("key derivation rate must be 0 or 2^n, n <= 24: " + keyDerivationRate);
        }
        if (masterSalt.length > 14)
        {
            throw new IllegalArgumentException("master salt longer than 112 bits: " + masterSalt.length);
        }
        this.prf = backend.newAesCtr();
        this.prf.init(masterKey, masterKey.length);
        System.arraycopy(masterSalt, 0, this.masterSalt, 0, masterSalt.length);
        this.keyDerivationRate = keyDerivationRate;
        this.rateShift = 0 == keyDerivationRate ? 0 : Integer.numberOfTrailingZeros(keyDerivationRate);
    }

    /**
     * The configured rate.
     *
     * @return 0 (derive once) or a power of two.
     */
    int keyDerivationRate()
    {
        return keyDerivationRate;
    }

    /**
     * {@code r = index DIV key_derivation_rate}, with {@code a DIV 0 = 0} (RFC 3711 §4.3.1).
     *
     * @param index a 48-bit SRTP or 31-bit SRTCP index.
     * @return the epoch r.
     */
    long epoch(final long index)
    {
        return 0 == keyDerivationRate ? 0 : index >>> rateShift;
    }

    /**
     * Derives {@code length} octets for {@code label} in epoch {@code r}.
     *
     * <p>The SRTCP label position is a judgment call. Read literally, the 32-bit SRTCP r puts the label in octet 9
     * whatever the rate, and the NIST SP 800-135 SRTP KDF vectors (kdr != 0) confirm that layout. But with rate 0,
     * which is all that libsrtp 2 and the deployed world use, every implementation puts the SRTCP label in octet 7,
     * as for SRTP (the libsrtp interoperability test proves ours does). So: octet 7 when the rate is 0, the NIST
     * layout otherwise.
     *
     * @param label  one of the {@code LABEL_*} constants.
     * @param r      the epoch, {@link #epoch(long)}.
     * @param out    destination, written from offset 0.
     * @param length octets to derive.
     */
    void derive(final int label, final long r, final byte[] out, final int length)
    {
        System.arraycopy(masterSalt, 0, iv, 0, 14);
        iv[14] = 0;
        iv[15] = 0;
        final int rOctets = 0 != keyDerivationRate && label >= LABEL_RTCP_ENCRYPTION ? 4 : 6;
        iv[13 - rOctets] ^= (byte)label;
        for (int i = 0; i < rOctets; i++)
        {
            iv[13 - i] ^= (byte)(r >>> (8 * i));
        }
        Arrays.fill(out, 0, length, (byte)0);
        prf.xorKeystream(iv, out, 0, length);
    }
}
