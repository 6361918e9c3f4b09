package io.sipline.media.srtp;

import static io.sipline.media.srtp.SrtpTestSupport.hex;
import static io.sipline.media.srtp.SrtpTestSupport.unhex;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RFC 7714 §16 (SRTP) and §17 (SRTCP) AES-GCM vectors. They are stated in session keys, so the context's transform is
 * keyed directly ({@link SrtpTransform#sessionKeys}) instead of through the KDF. Every backend, the JDK GCM
 * and {@link JavaGcm} ({@code jca-java-gcm}) included.
 */
class SrtpGcmVectorsTest
{
    private static final String KEY_128 = "000102030405060708090a0b0c0d0e0f";
    private static final String KEY_256 = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    /** "Quid pro quo". */
    private static final String SALT = "517569642070726f2071756f";

    /** §16: header 8040f17b 8041f8d3 5501a0b2 (seq f17b, SSRC 5501a0b2), "Gallia est omnis divisa in partes tres". */
    private static final String RTP =
        "8040f17b8041f8d35501a0b247616c6c696120657374206f6d6e69732064697669736120696e207061727465732074726573";
    /** §16.1.1. */
    private static final String SRTP_128 =
        "8040f17b8041f8d35501a0b2f24de3a3fb34de6cacba861c9d7e4bcabe633bd50d294e6f42a5f47a51c7d19b36de3adf8833" +
        "899d7f27beb16a9152cf765ee4390cce";
    /** §16.2.1. */
    private static final String SRTP_256 =
        "8040f17b8041f8d35501a0b232b1de78a822fe12ef9f78fa332e33aab18012389a58e2f3b50b2a0276ffae0f1ba63799b87b" +
        "7aa3db36dfffd6b0f9bb7878d7a76c13";

    /** §17: an SR of SSRC 4d617273 ("Mars"). */
    private static final String RTCP =
        "81c8000d4d6172734e5450314e545032525450200000042a0000e9304c756e61deadbeefdeadbeefdeadbeefdeadbeefdeadbeef";
    /** §17.1: E = 1, SRTCP index 0x5d4. */
    private static final String SRTCP_128 =
        "81c8000d4d61727363e94885dcdab67ca727d7662f6b7e997ff5c0f76c06f32dc676a5f1730d6fda4ce09b4686303ded0bb9275b" +
        "c84aa45896cf4d2fc5abf87245d9eade800005d4";
    /** §17.2. */
    private static final String SRTCP_256 =
        "81c8000d4d617273d50ae4d1f5ce5d304ba297e47d470c282c3ece5dbffe0a50a2eaa5c1110555be8415f658c61de0476f1b6fad" +
        "1d1eb30c4446839f57ff6f6cb26ac3be800005d4";
    /** §17.3: E = 0, authentication only: the whole packet is AAD. */
    private static final String SRTCP_128_AUTH_ONLY =
        "81c8000d4d6172734e5450314e545032525450200000042a0000e9304c756e61deadbeefdeadbeefdeadbeefdeadbeefdeadbeef" +
        "841dd9683dd78ec92ae58790125f62b3000005d4";

    @ParameterizedTest
    @ValueSource(strings = {"jca", "jca-java-gcm", "bc"})
    void shouldProtectAndUnprotectRfc7714Section16Aes128(final String name)
    {
        assertSrtp(name, SrtpCryptoSuite.AEAD_AES_128_GCM, KEY_128, SRTP_128);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jca", "jca-java-gcm", "bc"})
    void shouldProtectAndUnprotectRfc7714Section16Aes256(final String name)
    {
        assertSrtp(name, SrtpCryptoSuite.AEAD_AES_256_GCM, KEY_256, SRTP_256);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jca", "jca-java-gcm", "bc"})
    void shouldProtectAndUnprotectRfc7714Section17Aes128(final String name)
    {
        assertSrtcp(name, SrtpCryptoSuite.AEAD_AES_128_GCM, KEY_128, SRTCP_128);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jca", "jca-java-gcm", "bc"})
    void shouldProtectAndUnprotectRfc7714Section17Aes256(final String name)
    {
        assertSrtcp(name, SrtpCryptoSuite.AEAD_AES_256_GCM, KEY_256, SRTCP_256);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jca", "jca-java-gcm", "bc"})
    void shouldVerifyRfc7714Section17AuthenticationOnlyPacket(final String name)
    {
        final SrtpContext rx = context(name, SrtpCryptoSuite.AEAD_AES_128_GCM, KEY_128, SrtpContext.Direction.INBOUND);
        final byte[] packet = unhex(SRTCP_128_AUTH_ONLY);
        final int length = rx.unprotectRtcp(packet, 0, packet.length);
        assertEquals(RTCP, hex(packet, 0, length));

        final byte[] tampered = unhex(SRTCP_128_AUTH_ONLY);
        tampered[20] ^= 1;
        final SrtpContext rx2 = context(name, SrtpCryptoSuite.AEAD_AES_128_GCM, KEY_128, SrtpContext.Direction.INBOUND);
        assertEquals(SrtpResult.AUTH_FAIL, rx2.unprotectRtcp(tampered, 0, tampered.length));
    }

    private static void assertSrtp(final String name, final SrtpCryptoSuite suite, final String key, final String srtp)
    {
        final SrtpContext tx = context(name, suite, key, SrtpContext.Direction.OUTBOUND);
        final byte[] plain = unhex(RTP);
        final byte[] buffer = Arrays.copyOf(plain, plain.length + 16);
        final int protectedLength = tx.protectRtp(buffer, 0, plain.length);
        assertEquals(srtp, hex(buffer, 0, protectedLength));

        final SrtpContext rx = context(name, suite, key, SrtpContext.Direction.INBOUND);
        final int plainLength = rx.unprotectRtp(buffer, 0, protectedLength);
        assertEquals(RTP, hex(buffer, 0, plainLength));
    }

    private static void assertSrtcp(
        final String name, final SrtpCryptoSuite suite, final String key, final String srtcp)
    {
        final SrtpContext tx = context(name, suite, key, SrtpContext.Direction.OUTBOUND);
        tx.nextSrtcpIndex(0x4d617273, 0x5d4);
        final byte[] plain = unhex(RTCP);
        final byte[] buffer = Arrays.copyOf(plain, plain.length + 20);
        final int protectedLength = tx.protectRtcp(buffer, 0, plain.length);
        assertEquals(srtcp, hex(buffer, 0, protectedLength));

        final SrtpContext rx = context(name, suite, key, SrtpContext.Direction.INBOUND);
        final int plainLength = rx.unprotectRtcp(buffer, 0, protectedLength);
        assertEquals(RTCP, hex(buffer, 0, plainLength));
    }

    private static SrtpContext context(
        final String name,
        final SrtpCryptoSuite suite,
        final String key,
        final SrtpContext.Direction direction)
    {
        final SrtpPolicy policy = SrtpPolicy.builder(suite)
            .masterKey(new byte[suite.keyLength()], new byte[suite.saltLength()])
            .backend(SrtpBackend.byName(name))
            .build();
        final SrtpContext context = new SrtpContext(policy, direction);
        context.sharedTransform().sessionKeys(unhex(key), unhex(SALT), null);
        return context;
    }
}
