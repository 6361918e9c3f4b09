package io.sipline.media.srtp;

/**
 * SRTP crypto suites by their SDP security-descriptions names (RFC 4568 §6.2, RFC 6188 §6, RFC 7714 §14.1), with the
 * lengths each one fixes. Lengths are in octets.
 *
 * <pre>
 * suite                     cipher      key  salt  auth key  SRTP tag  SRTCP tag  KDF PRF
 * AES_CM_128_HMAC_SHA1_80   AES-128-CM   16    14       20        10         10   AES-128-CM (RFC 3711 §4.3.3)
 * AES_CM_128_HMAC_SHA1_32   AES-128-CM   16    14       20         4         10   AES-128-CM (RFC 3711 §7.5)
 * AES_192_CM_HMAC_SHA1_80   AES-192-CM   24    14       20        10         10   AES-192-CM (RFC 6188 §5)
 * AES_192_CM_HMAC_SHA1_32   AES-192-CM   24    14       20         4         10   AES-192-CM
 * AES_256_CM_HMAC_SHA1_80   AES-256-CM   32    14       20        10         10   AES-256-CM (RFC 6188 §5)
 * AES_256_CM_HMAC_SHA1_32   AES-256-CM   32    14       20         4         10   AES-256-CM
 * AEAD_AES_128_GCM          AES-128-GCM  16    12        -        16         16   AES-128-CM (RFC 7714 §11)
 * AEAD_AES_256_GCM          AES-256-GCM  32    12        -        16         16   AES-256-CM (RFC 7714 §11)
 * </pre>
 *
 * <p>The {@code _32} suites keep an 80-bit tag for SRTCP (RFC 3711 §7.5; RFC 5764 §4.1.2 lists the same), as libsrtp
 * does.
 *
 * <p>Immutable; thread-safe.
 */
public enum SrtpCryptoSuite
{
    /** RFC 4568 §6.2.1. */
    AES_CM_128_HMAC_SHA1_80(16, 14, 20, 10, 10),
    /** RFC 4568 §6.2.2. */
    AES_CM_128_HMAC_SHA1_32(16, 14, 20, 4, 10),
    /** RFC 6188 §6. */
    AES_192_CM_HMAC_SHA1_80(24, 14, 20, 10, 10),
    /** RFC 6188 §6. */
    AES_192_CM_HMAC_SHA1_32(24, 14, 20, 4, 10),
    /** RFC 6188 §6. */
    AES_256_CM_HMAC_SHA1_80(32, 14, 20, 10, 10),
    /** RFC 6188 §6. */
    AES_256_CM_HMAC_SHA1_32(32, 14, 20, 4, 10),
    /** RFC 7714 §14.1. */
    AEAD_AES_128_GCM(16, 12, 0, 16, 16),
    /** RFC 7714 §14.1. */
    AEAD_AES_256_GCM(32, 12, 0, 16, 16);

    private static final SrtpCryptoSuite[] VALUES = values();

    private final int keyLength;
    private final int saltLength;
    private final int authKeyLength;
    private final int srtpTagLength;
    private final int srtcpTagLength;

    SrtpCryptoSuite(
        final int keyLength,
        final int saltLength,
        final int authKeyLength,
        final int srtpTagLength,
        final int srtcpTagLength)
    {
        this.keyLength = keyLength;
        this.saltLength = saltLength;
        this.authKeyLength = authKeyLength;
        this.srtpTagLength = srtpTagLength;
        this.srtcpTagLength = srtcpTagLength;
    }

    /**
     * The suite of an SDP name, compared exactly as RFC 4568 §9.2 registers it.
     *
     * @param name for example {@code AES_CM_128_HMAC_SHA1_80}.
     * @return the suite, or null when unknown or unsupported (F8, NULL ciphers).
     */
    public static SrtpCryptoSuite fromSdpName(final CharSequence name)
    {
        for (final SrtpCryptoSuite suite : VALUES)
        {
            if (suite.name().contentEquals(name))
            {
                return suite;
            }
        }
        return null;
    }

    /**
     * The name used in {@code a=crypto} lines.
     *
     * @return the SDP name (the same as {@link #name()}).
     */
    public String sdpName()
    {
        return name();
    }

    /**
     * Whether this is an RFC 7714 AEAD suite (GCM) rather than AES-CM with HMAC-SHA1.
     *
     * @return true for the GCM suites.
     */
    public boolean isAead()
    {
        return 0 == authKeyLength;
    }

    /**
     * Master and session encryption key length.
     *
     * @return octets: 16, 24 or 32.
     */
    public int keyLength()
    {
        return keyLength;
    }

    /**
     * Master and session salt length.
     *
     * @return octets: 14 (AES-CM) or 12 (GCM).
     */
    public int saltLength()
    {
        return saltLength;
    }

    /**
     * Session authentication key length.
     *
     * @return 20 for HMAC-SHA1, 0 for AEAD.
     */
    public int authKeyLength()
    {
        return authKeyLength;
    }

    /**
     * Authentication tag length of SRTP packets.
     *
     * @return octets.
     */
    public int srtpTagLength()
    {
        return srtpTagLength;
    }

    /**
     * Authentication tag length of SRTCP packets.
     *
     * @return octets.
     */
    public int srtcpTagLength()
    {
        return srtcpTagLength;
    }

    /**
     * Length of the SDES {@code inline:} key material, key then salt.
     *
     * @return octets.
     */
    public int masterKeySaltLength()
    {
        return keyLength + saltLength;
    }
}
