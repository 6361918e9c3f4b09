package io.sipline.media.srtp;

import static io.sipline.media.srtp.SrtpTestSupport.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RFC 4568 §6.1 / §9.1 {@code a=crypto} parsing, including malformed input.
 */
class SdesCryptoAttributeTest
{
    /** The example key of RFC 4568 §4 (30 octets). */
    private static final String KEY = "PS1uQCVeeCFCanVmcjkpPywjNWhcYD0mXXtxaVBR";

    @Test
    void shouldParseTheRfc4568Example()
    {
        final SdesCryptoAttribute a = SdesCryptoAttribute.parse(
            "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:" + KEY + "|2^20|1:4 FEC_ORDER=FEC_SRTP");

        assertEquals(1, a.tag());
        assertEquals(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80, a.suite());
        assertEquals(1, a.keyCount());
        final byte[] material = Base64.getDecoder().decode(KEY);
        assertEquals(hex(material).substring(0, 32), hex(a.masterKey(0)));
        assertEquals(hex(material).substring(32), hex(a.masterSalt(0)));
        assertEquals(1L << 20, a.lifetime(0));
        assertArrayEquals(new byte[] {0, 0, 0, 1}, a.mki(0));
        assertEquals(List.of("FEC_ORDER=FEC_SRTP"), a.sessionParams());
        assertEquals(0, a.keyDerivationRate());
    }

    @Test
    void shouldParseWithoutOptionalFieldsAndPrefixes()
    {
        final SdesCryptoAttribute a = SdesCryptoAttribute.parse("  2 AES_CM_128_HMAC_SHA1_32 inline:" + KEY + "  ");
        assertEquals(2, a.tag());
        assertEquals(SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_32, a.suite());
        assertEquals(0, a.lifetime(0));
        assertNull(a.mki(0));
        assertEquals(-1, a.windowSizeHint());

        final SdesCryptoAttribute b = SdesCryptoAttribute.parse("crypto:3 AES_CM_128_HMAC_SHA1_80 inline:" + KEY);
        assertEquals(3, b.tag());
    }

    @Test
    void shouldParseDecimalLifetimeMkiLengthsKdrAndWsh()
    {
        final SdesCryptoAttribute a = SdesCryptoAttribute.parse(
            "1 AES_CM_128_HMAC_SHA1_80 inline:" + KEY + "|1048576|258:2 KDR=4 WSH=256");
        assertEquals(1_048_576L, a.lifetime(0));
        assertArrayEquals(new byte[] {1, 2}, a.mki(0));
        assertEquals(16, a.keyDerivationRate());
        assertEquals(256, a.windowSizeHint());

        final SrtpPolicy policy = SrtpPolicy.fromSdes(a).build();
        assertEquals(16, policy.keyDerivationRate());
        assertEquals(256, policy.replayWindow());
        assertEquals(1_048_576L, policy.keyLifetime());
        assertArrayEquals(new byte[] {1, 2}, policy.mki());
    }

    @Test
    void shouldParseMkiWithoutLifetimeAndSeveralKeys()
    {
        final SdesCryptoAttribute a = SdesCryptoAttribute.parse(
            "1 AES_CM_128_HMAC_SHA1_80 inline:" + KEY + "|1:1;inline:" + KEY + "|2^31|2:1");
        assertEquals(2, a.keyCount());
        assertArrayEquals(new byte[] {1}, a.mki(0));
        assertEquals(0, a.lifetime(0));
        assertArrayEquals(new byte[] {2}, a.mki(1));
        assertEquals(1L << 31, a.lifetime(1));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "AES_256_CM_HMAC_SHA1_80", "AES_192_CM_HMAC_SHA1_32", "AEAD_AES_128_GCM", "AEAD_AES_256_GCM"})
    void shouldRoundTripGeneratedKeysOfEverySuite(final String name)
    {
        final SrtpCryptoSuite suite = SrtpCryptoSuite.fromSdpName(name);
        final SdesCryptoAttribute generated = SdesCryptoAttribute.generate(7, suite, new SecureRandom());
        final SdesCryptoAttribute parsed = SdesCryptoAttribute.parse("a=crypto:" + generated.format());
        assertEquals(suite, parsed.suite());
        assertEquals(hex(generated.masterKey(0)), hex(parsed.masterKey(0)));
        assertEquals(hex(generated.masterSalt(0)), hex(parsed.masterSalt(0)));
        assertEquals(suite.keyLength(), parsed.masterKey(0).length);
        assertEquals(suite.saltLength(), parsed.masterSalt(0).length);
    }

    @Test
    void shouldFormatLifetimeAndMki()
    {
        final String line = "1 AES_CM_128_HMAC_SHA1_80 inline:" + KEY + "|2^31|1:4 KDR=0";
        assertEquals(line, SdesCryptoAttribute.parse(line).format());
    }

    @Test
    void shouldAcceptBase64WithoutPadding()
    {
        final byte[] key = new byte[46];
        key[0] = 1;
        final String padded = Base64.getEncoder().encodeToString(key);
        assertTrue(padded.endsWith("="));
        final SdesCryptoAttribute a = SdesCryptoAttribute.parse(
            "1 AES_256_CM_HMAC_SHA1_80 inline:" + padded.replace("=", ""));
        assertEquals(32, a.masterKey(0).length);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "1 AES_CM_128_HMAC_SHA1_80",
        "x AES_CM_128_HMAC_SHA1_80 inline:" + KEY,
        "1234567890 AES_CM_128_HMAC_SHA1_80 inline:" + KEY,
        "1 F8_128_HMAC_SHA1_80 inline:" + KEY,
        "1 aes_cm_128_hmac_sha1_80 inline:" + KEY,
        "1 AES_CM_128_HMAC_SHA1_80 uri:http://example.com/key",
        "1 AES_CM_128_HMAC_SHA1_80 inline:****",
        "1 AES_CM_128_HMAC_SHA1_80 inline:QUJD",
        "1 AES_256_CM_HMAC_SHA1_80 inline:" + KEY,
        "1 AES_CM_128_HMAC_SHA1_80 inline:" + KEY + "|2^49",
        "1 AES_CM_128_HMAC_SHA1_80 inline:" + KEY + "|0",
        "1 AES_CM_128_HMAC_SHA1_80 inline:" + KEY + "|2^x",
        "1 AES_CM_128_HMAC_SHA1_80 inline:" + KEY + "|1:0",
        "1 AES_CM_128_HMAC_SHA1_80 inline:" + KEY + "|1:129",
        "1 AES_CM_128_HMAC_SHA1_80 inline:" + KEY + "|256:1",
        "1 AES_CM_128_HMAC_SHA1_80 inline:" + KEY + "|-1:1",
        "1 AES_CM_128_HMAC_SHA1_80 inline:" + KEY + "|1:4|2^20",
        "1 AES_CM_128_HMAC_SHA1_80 inline:" + KEY + "|2^20|2^20",
        "1 AES_CM_128_HMAC_SHA1_80 inline:" + KEY + "|2^20|1:4|x",
        "1 AES_CM_128_HMAC_SHA1_80 inline:" + KEY + ";inline:" + KEY,
        "1 AES_CM_128_HMAC_SHA1_80 inline:" + KEY + "|1:1;inline:" + KEY + "|2:2",
        "1 AES_CM_128_HMAC_SHA1_80 inline:" + KEY + " KDR=25",
        "1 AES_CM_128_HMAC_SHA1_80 inline:" + KEY + " KDR=x",
        "1 AES_CM_128_HMAC_SHA1_80 inline:" + KEY + " WSH=32",
    })
    void shouldRejectMalformedAttributes(final String attribute)
    {
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> SdesCryptoAttribute.parse(attribute));
        assertTrue(null != ex.getMessage() && !ex.getMessage().isEmpty());
    }

    @Test
    void shouldRejectNull()
    {
        assertThrows(IllegalArgumentException.class, () -> SdesCryptoAttribute.parse(null));
    }
}
