package io.sipline.media.srtp;

import static io.sipline.media.srtp.SrtpTestSupport.hex;
import static io.sipline.media.srtp.SrtpTestSupport.unhex;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Published test vectors: RFC 3711 Appendix B.2 (AES-CM keystream) and B.3 (key derivation), a non-zero key
 * derivation rate (NIST SP 800-135 SRTP KDF vectors, as shipped in OpenSSL's evpkdf_srtp.txt; RFC 3711 has none),
 * RFC 6188 §7.2/§7.4 (AES-256/192 key derivation) and libsrtp's own known-answer packets. Every vector runs on both
 * backends.
 */
class SrtpVectorsTest
{
    private static SrtpBackend backend(final String name)
    {
        return SrtpBackend.byName(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jca", "bc"})
    void shouldProduceRfc3711B2Keystream(final String name)
    {
        final SrtpBackend.Ctr ctr = backend(name).newAesCtr();
        final byte[] key = unhex("2B7E151628AED2A6ABF7158809CF4F3C");
        ctr.init(key, key.length);
        // Keystream segment of 65282 blocks (1044512 octets) from counter F0F1...FCFD0000.
        final byte[] keystream = new byte[65282 * 16];
        ctr.xorKeystream(unhex("F0F1F2F3F4F5F6F7F8F9FAFBFCFD0000"), keystream, 0, keystream.length);

        assertEquals("e03ead0935c95e80e166b16dd92b4eb4", hex(keystream, 0, 16));
        assertEquals("d23513162b02d0f72a43a2fe4a5f97ab", hex(keystream, 16, 16));
        assertEquals("41e95b3bb0a2e8dd477901e4fca894c0", hex(keystream, 32, 16));
        assertEquals("ec8cdf7398607cb0f2d21675ea9ea1e4", hex(keystream, 0xFEFF * 16, 16));
        assertEquals("362b7c3c6773516318a077d7fc5073ae", hex(keystream, 0xFF00 * 16, 16));
        assertEquals("6a2cc3787889374fbeb4c81b17ba6c44", hex(keystream, 0xFF01 * 16, 16));
    }

    @ParameterizedTest
    @ValueSource(strings = {"jca", "bc"})
    void shouldFormRfc3711B2IvFromSessionSaltSsrcAndIndex(final String name)
    {
        // B.2 gives the salt already shifted: with SSRC 0 and index 0 the IV is k_s * 2^16.
        final SrtpCryptoSuite suite = SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80;
        final SrtpTransform transform = new SrtpTransform(
            suite, new SrtpKeyDerivation(backend(name), new byte[16], new byte[14], 0), backend(name));
        transform.sessionKeys(
            unhex("2B7E151628AED2A6ABF7158809CF4F3C"), unhex("F0F1F2F3F4F5F6F7F8F9FAFBFCFD"), new byte[20]);
        final byte[] payload = new byte[48];
        transform.rtpCrypt(0, 0, payload, 0, payload.length);

        assertEquals(
            "e03ead0935c95e80e166b16dd92b4eb4d23513162b02d0f72a43a2fe4a5f97ab41e95b3bb0a2e8dd477901e4fca894c0",
            hex(payload));
    }

    @ParameterizedTest
    @ValueSource(strings = {"jca", "bc"})
    void shouldDeriveRfc3711B3SessionKeys(final String name)
    {
        final SrtpKeyDerivation kdf = new SrtpKeyDerivation(
            backend(name), unhex("E1F97A0D3E018BE0D64FA32C06DE4139"), unhex("0EC675AD498AFEEBB6960B3AABE6"), 0);

        assertEquals("c61e7a93744f39ee10734afe3ff7a087", derive(kdf, SrtpKeyDerivation.LABEL_RTP_ENCRYPTION, 0, 16));
        assertEquals("30cbbc08863d8c85d49db34a9ae1", derive(kdf, SrtpKeyDerivation.LABEL_RTP_SALT, 0, 14));
        // B.3 shows the whole 94-octet auth key; SRTP uses its first 20 octets.
        assertEquals(
            "cebe321f6ff7716b6fd4ab49af256a156d38baa48f0a0acf3c34e2359e6cdbce" +
            "e049646c43d9327ad175578ef72270986371c10c9a369ac2f94a8c5fbcdddc25" +
            "6d6e919a48b610ef17c2041e474035766b68642c59bbfc2f34db60dbdfb2",
            derive(kdf, SrtpKeyDerivation.LABEL_RTP_AUTH, 0, 94));
        // Key derivation rate 0: the index does not matter (r = 0).
        assertEquals(0, kdf.epoch(0xFFFF_FFFF_FFFFL));
    }

    @ParameterizedTest
    @ValueSource(strings = {"jca", "bc"})
    void shouldDeriveWithNonZeroKeyDerivationRate(final String name)
    {
        // NIST SP 800-135 SRTP KDF vector with kdr = 1 (so r = index): SRTP index 08284B49F520, SRTCP index 69B62109.
        final SrtpKeyDerivation kdf = new SrtpKeyDerivation(
            backend(name), unhex("8C307F105F79D5D2C26B1A933AE22CD5"), unhex("563B4C15458D977B68080242CEE1"), 1);
        final long rtpIndex = 0x08284B49F520L;
        final long rtcpIndex = 0x69B62109L;

        assertEquals("a920df50eaa111d03fbe9b203121c07d",
            derive(kdf, SrtpKeyDerivation.LABEL_RTP_ENCRYPTION, kdf.epoch(rtpIndex), 16));
        assertEquals("a337dc070c0dafa942f1e3a27acd3c9917ce4b4d",
            derive(kdf, SrtpKeyDerivation.LABEL_RTP_AUTH, kdf.epoch(rtpIndex), 20));
        assertEquals("9e2bc99c86037f2ad98d72927428",
            derive(kdf, SrtpKeyDerivation.LABEL_RTP_SALT, kdf.epoch(rtpIndex), 14));
        assertEquals("94d76ca7adb05b8631cf62538d97be74",
            derive(kdf, SrtpKeyDerivation.LABEL_RTCP_ENCRYPTION, kdf.epoch(rtcpIndex), 16));
        assertEquals("fa02251d693645bc1001f83c5a13cb3e3d77f7ea",
            derive(kdf, SrtpKeyDerivation.LABEL_RTCP_AUTH, kdf.epoch(rtcpIndex), 20));
        assertEquals("70c0481a04e3610ec8af8623fa9b",
            derive(kdf, SrtpKeyDerivation.LABEL_RTCP_SALT, kdf.epoch(rtcpIndex), 14));
    }

    @ParameterizedTest
    @ValueSource(strings = {"jca", "bc"})
    void shouldComputeEpochAsIndexDivRate(final String name)
    {
        final SrtpKeyDerivation kdf = new SrtpKeyDerivation(backend(name), new byte[16], new byte[14], 1 << 16);

        assertEquals(0, kdf.epoch(0xFFFF));
        assertEquals(1, kdf.epoch(0x1_0000));
        assertEquals(0xFFFF_FFFFL, kdf.epoch(0xFFFF_FFFF_FFFFL));
    }

    @ParameterizedTest
    @ValueSource(strings = {"jca", "bc"})
    void shouldDeriveRfc6188Aes256Keys(final String name)
    {
        // RFC 6188 §7.2: AES_256_CM_PRF.
        final SrtpKeyDerivation kdf = new SrtpKeyDerivation(backend(name),
            unhex("f0f04914b513f2763a1b1fa130f10e2998f6f6e43e4309d1e622a0e332b9f1b6"),
            unhex("3b04803de51ee7c96423ab5b78d2"), 0);

        assertEquals("5ba1064e30ec51613cad926c5a28ef731ec7fb397f70a960653caf06554cd8c4",
            derive(kdf, SrtpKeyDerivation.LABEL_RTP_ENCRYPTION, 0, 32));
        assertEquals("fa31791685ca444a9e07c6c64e93", derive(kdf, SrtpKeyDerivation.LABEL_RTP_SALT, 0, 14));
        assertEquals("fd9c32d39ed5fbb5a9dc96b30818454d1313dc05", derive(kdf, SrtpKeyDerivation.LABEL_RTP_AUTH, 0, 20));
    }

    @ParameterizedTest
    @ValueSource(strings = {"jca", "bc"})
    void shouldDeriveRfc6188Aes192Keys(final String name)
    {
        // RFC 6188 §7.4: AES_192_CM_PRF.
        final SrtpKeyDerivation kdf = new SrtpKeyDerivation(backend(name),
            unhex("73edc66c4fa15776fb57f9505c17136550ffda71f3e8e5f1"), unhex("c8522f3acd4ce86d5add78edbb11"), 0);

        assertEquals("31874736a8f1143870c26e4857d8a5b2c4a354407faadabb",
            derive(kdf, SrtpKeyDerivation.LABEL_RTP_ENCRYPTION, 0, 24));
        assertEquals("2372b82d639b6d8503a47adc0a6c", derive(kdf, SrtpKeyDerivation.LABEL_RTP_SALT, 0, 14));
        assertEquals("355b10973cd95b9eacf4061c7e1a7151e7cfbfcb", derive(kdf, SrtpKeyDerivation.LABEL_RTP_AUTH, 0, 20));
    }

    @ParameterizedTest
    @ValueSource(strings = {"jca", "bc"})
    void shouldMatchLibsrtpKnownAnswerPacketForAes128(final String name)
    {
        // libsrtp's srtp_driver known answer: RFC 3711 B.3 master key, SSRC cafebabe, seq 0x1234, 16 x 0xab.
        assertProtects(name, SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80,
            "E1F97A0D3E018BE0D64FA32C06DE41390EC675AD498AFEEBB6960B3AABE6",
            "800f1234decafbadcafebabe" + "ab".repeat(16),
            "800f1234decafbadcafebabe4e55dc4ce79978d88ca4d215949d2402b78d6acc99ea179b8dbb");
    }

    @ParameterizedTest
    @ValueSource(strings = {"jca", "bc"})
    void shouldMatchLibsrtpKnownAnswerPacketForAes256(final String name)
    {
        // libsrtp's AES-256 known answer with the RFC 6188 §7.2 master key.
        assertProtects(name, SrtpCryptoSuite.AES_256_CM_HMAC_SHA1_80,
            "f0f04914b513f2763a1b1fa130f10e2998f6f6e43e4309d1e622a0e332b9f1b63b04803de51ee7c96423ab5b78d2",
            "800f1234decafbadcafebabe" + "ab".repeat(16),
            "800f1234decafbadcafebabef1d9de17ff251ff1aa007774b0b4b40da08d9d9a5b3a55d8873b");
    }

    private static void assertProtects(
        final String name,
        final SrtpCryptoSuite suite,
        final String masterKeyAndSalt,
        final String rtp,
        final String srtp)
    {
        final SrtpPolicy policy = SrtpPolicy.builder(suite).masterKey(unhex(masterKeyAndSalt))
            .backend(backend(name)).build();
        final byte[] plain = unhex(rtp);
        final byte[] buffer = Arrays.copyOf(plain, plain.length + 32);
        final int protectedLength = SrtpContext.outbound(policy).protectRtp(buffer, 0, plain.length);
        assertEquals(srtp, hex(buffer, 0, protectedLength));

        final int plainLength = SrtpContext.inbound(policy).unprotectRtp(buffer, 0, protectedLength);
        assertEquals(rtp, hex(buffer, 0, plainLength));
    }

    private static String derive(final SrtpKeyDerivation kdf, final int label, final long r, final int length)
    {
        final byte[] out = new byte[length];
        kdf.derive(label, r, out, length);
        return hex(out);
    }
}
