package io.sipline.media.dtls;

import io.sipline.media.srtp.SrtpCryptoSuite;

/**
 * SRTP protection profiles of the DTLS {@code use_srtp} extension that our SRTP code can run, with the crypto suite
 * each one keys (RFC 5764 §4.1.2, RFC 7714 §14.2). The keying material a profile takes from the DTLS exporter is
 * {@code 2 * (key length + salt length)} octets (RFC 5764 §4.2): 60 for the AES-CM profiles, 56 for AES-128-GCM.
 * <pre>
 *   profile                        id      SRTP suite                master key  salt
 *   SRTP_AES128_CM_HMAC_SHA1_80    0x0001  AES_CM_128_HMAC_SHA1_80           16    14
 *   SRTP_AES128_CM_HMAC_SHA1_32    0x0002  AES_CM_128_HMAC_SHA1_32           16    14
 *   SRTP_AEAD_AES_128_GCM          0x0007  AEAD_AES_128_GCM                  16    12
 *   SRTP_AEAD_AES_256_GCM          0x0008  AEAD_AES_256_GCM                  32    12
 * </pre>
 *
 * <p>Immutable; thread-safe.
 */
public enum DtlsSrtpProfile
{
    /** RFC 5764 §4.1.2. */
    SRTP_AES128_CM_HMAC_SHA1_80(0x0001, SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80),
    /** RFC 5764 §4.1.2; SRTCP keeps an 80-bit tag. */
    SRTP_AES128_CM_HMAC_SHA1_32(0x0002, SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_32),
    /** RFC 7714 §14.2. */
    SRTP_AEAD_AES_128_GCM(0x0007, SrtpCryptoSuite.AEAD_AES_128_GCM),
    /** RFC 7714 §14.2. */
    SRTP_AEAD_AES_256_GCM(0x0008, SrtpCryptoSuite.AEAD_AES_256_GCM);

    private final int id;
    private final SrtpCryptoSuite suite;

    DtlsSrtpProfile(final int id, final SrtpCryptoSuite suite)
    {
        this.id = id;
        this.suite = suite;
    }

    /**
     * The profile of a {@code use_srtp} protection profile id.
     *
     * @param id the two-octet value on the wire.
     * @return the profile, or null when we do not run it.
     */
    public static DtlsSrtpProfile fromId(final int id)
    {
        for (final DtlsSrtpProfile profile : values())
        {
            if (profile.id == id)
            {
                return profile;
            }
        }
        return null;
    }

    /** @return the two-octet id of the {@code use_srtp} extension. */
    public int id()
    {
        return id;
    }

    /** @return the SRTP crypto suite this profile keys. */
    public SrtpCryptoSuite suite()
    {
        return suite;
    }

    /** @return octets to export with {@code EXTRACTOR-dtls_srtp}: both keys and both salts (RFC 5764 §4.2). */
    public int keyingMaterialLength()
    {
        return 2 * (suite.keyLength() + suite.saltLength());
    }
}
