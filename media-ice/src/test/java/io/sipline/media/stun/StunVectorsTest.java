package io.sipline.media.stun;

import static io.sipline.media.stun.StunTestVectors.LONG_TERM_NONCE;
import static io.sipline.media.stun.StunTestVectors.LONG_TERM_PASSWORD;
import static io.sipline.media.stun.StunTestVectors.LONG_TERM_PASSWORD_RAW;
import static io.sipline.media.stun.StunTestVectors.LONG_TERM_USERNAME;
import static io.sipline.media.stun.StunTestVectors.REALM;
import static io.sipline.media.stun.StunTestVectors.SAMPLE_IPV4_RESPONSE;
import static io.sipline.media.stun.StunTestVectors.SAMPLE_IPV6_RESPONSE;
import static io.sipline.media.stun.StunTestVectors.SAMPLE_LONG_TERM_REQUEST;
import static io.sipline.media.stun.StunTestVectors.SAMPLE_REQUEST;
import static io.sipline.media.stun.StunTestVectors.SAMPLE_SHA256_REQUEST;
import static io.sipline.media.stun.StunTestVectors.SHA256_NONCE;
import static io.sipline.media.stun.StunTestVectors.SHORT_TERM_PASSWORD;
import static io.sipline.media.stun.StunTestVectors.TID_HIGH;
import static io.sipline.media.stun.StunTestVectors.TID_LOW;
import static io.sipline.media.stun.StunTestVectors.toHex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/**
 * RFC 5769 test vectors (§2.1-§2.4) and RFC 8489 Appendix B.1 (erratum 6268): parse, integrity and fingerprint
 * checks, and byte-for-byte reproduction by the writer. Each check runs on both HMAC engines.
 */
class StunVectorsTest
{
    private static final StunCredential SHORT_TERM = StunCredential.shortTerm(SHORT_TERM_PASSWORD);

    private final StunMessageFlyweight message = new StunMessageFlyweight();
    private final StunMessageWriter writer = new StunMessageWriter();

    @ParameterizedTest
    @EnumSource(StunIntegrity.Engine.class)
    void shouldParseAndVerifySampleRequest(final StunIntegrity.Engine engine)
    {
        final StunIntegrity integrity = new StunIntegrity(engine);
        assertEquals(StunResult.OK, message.wrap(SAMPLE_REQUEST, 0, SAMPLE_REQUEST.length));
        assertEquals(StunMessageType.BINDING_REQUEST, message.messageType());
        assertEquals(StunMessageType.METHOD_BINDING, message.method());
        assertEquals(StunMessageType.CLASS_REQUEST, message.messageClass());
        assertEquals(0x58, message.messageLength());
        assertEquals(StunMessageFlyweight.MAGIC_COOKIE, message.magicCookie());
        assertTrue(message.transactionIdEquals(TID_HIGH, TID_LOW));
        assertEquals(6, message.attributeCount());
        assertEquals("STUN test client", message.valueAsString(message.findAttribute(StunAttributeType.SOFTWARE)));
        assertEquals(0x6e0001ffL, message.priority());
        assertEquals(0x932ff9b151263b36L, message.u64Value(message.findAttribute(StunAttributeType.ICE_CONTROLLED)));
        final int username = message.findAttribute(StunAttributeType.USERNAME);
        assertEquals("evtj:h6vY", message.valueAsString(username));
        assertEquals(9, message.attributeLength(username));
        assertEquals(12, message.attributePaddedLength(username));
        assertTrue(message.valueStartsWith(username, "evtj:".getBytes(StandardCharsets.US_ASCII)));
        assertEquals(-1, message.firstMalformedAttribute());
        assertEquals(StunResult.VERIFIED, message.verifyMessageIntegrity(integrity, SHORT_TERM));
        assertEquals(StunResult.VERIFIED, message.verifyFingerprint(integrity));
        assertEquals(StunResult.MISMATCH,
            message.verifyMessageIntegrity(integrity, StunCredential.shortTerm("VOkJxbRl1RmTxUk/WvJxBu")));
        assertEquals(StunResult.ABSENT, message.verifyMessageIntegritySha256(integrity, SHORT_TERM));
    }

    @ParameterizedTest
    @EnumSource(StunIntegrity.Engine.class)
    void shouldParseAndVerifySampleIpv4Response(final StunIntegrity.Engine engine)
    {
        final StunIntegrity integrity = new StunIntegrity(engine);
        assertEquals(StunResult.OK, message.wrap(SAMPLE_IPV4_RESPONSE, 0, SAMPLE_IPV4_RESPONSE.length));
        assertEquals(StunMessageType.BINDING_SUCCESS_RESPONSE, message.messageType());
        assertEquals("test vector", message.valueAsString(message.findAttribute(StunAttributeType.SOFTWARE)));
        final StunAddress address = new StunAddress();
        assertEquals(StunResult.OK,
            message.readAddress(message.findAttribute(StunAttributeType.XOR_MAPPED_ADDRESS), address));
        assertEquals(StunAddress.FAMILY_IPV4, address.family());
        assertEquals(32853, address.port());
        assertEquals(0xC0000201, address.ipv4());
        assertEquals(new InetSocketAddress("192.0.2.1", 32853), address.toInetSocketAddress());
        assertEquals(StunResult.VERIFIED, message.verifyMessageIntegrity(integrity, SHORT_TERM));
        assertEquals(StunResult.VERIFIED, message.verifyFingerprint(integrity));
    }

    @ParameterizedTest
    @EnumSource(StunIntegrity.Engine.class)
    void shouldParseAndVerifySampleIpv6Response(final StunIntegrity.Engine engine)
    {
        final StunIntegrity integrity = new StunIntegrity(engine);
        assertEquals(StunResult.OK, message.wrap(SAMPLE_IPV6_RESPONSE, 0, SAMPLE_IPV6_RESPONSE.length));
        final StunAddress address = new StunAddress();
        assertEquals(StunResult.OK,
            message.readAddress(message.findAttribute(StunAttributeType.XOR_MAPPED_ADDRESS), address));
        assertEquals(StunAddress.FAMILY_IPV6, address.family());
        assertEquals(new InetSocketAddress("2001:db8:1234:5678:11:2233:4455:6677", 32853),
            address.toInetSocketAddress());
        assertEquals(StunResult.VERIFIED, message.verifyMessageIntegrity(integrity, SHORT_TERM));
        assertEquals(StunResult.VERIFIED, message.verifyFingerprint(integrity));
    }

    @ParameterizedTest
    @EnumSource(StunIntegrity.Engine.class)
    void shouldParseAndVerifyLongTermRequest(final StunIntegrity.Engine engine)
    {
        final StunIntegrity integrity = new StunIntegrity(engine);
        assertEquals(StunResult.OK, message.wrap(SAMPLE_LONG_TERM_REQUEST, 0, SAMPLE_LONG_TERM_REQUEST.length));
        assertEquals(LONG_TERM_USERNAME, message.valueAsString(message.findAttribute(StunAttributeType.USERNAME)));
        assertEquals(LONG_TERM_NONCE, message.valueAsString(message.findAttribute(StunAttributeType.NONCE)));
        assertEquals(REALM, message.valueAsString(message.findAttribute(StunAttributeType.REALM)));
        assertEquals(StunResult.ABSENT, message.verifyFingerprint(integrity));

        final StunCredential prepared =
            StunCredential.longTerm(LONG_TERM_USERNAME, REALM, LONG_TERM_PASSWORD, StunCredential.ALGORITHM_MD5);
        assertEquals(StunResult.VERIFIED, message.verifyMessageIntegrity(integrity, prepared));
        final StunCredential fromRaw = StunCredential.longTerm(LONG_TERM_USERNAME, REALM, LONG_TERM_PASSWORD_RAW,
            StunCredential.ALGORITHM_MD5, StunCredential.Preparation.SASLPREP);
        assertEquals(prepared, fromRaw);
        assertEquals(StunResult.MISMATCH, message.verifyMessageIntegrity(integrity,
            StunCredential.longTerm(LONG_TERM_USERNAME, REALM, "thematrix", StunCredential.ALGORITHM_MD5)));
    }

    @Test
    void shouldSaslPrepTheRfc5769Password()
    {
        assertEquals(LONG_TERM_PASSWORD, StunCredential.saslPrep(LONG_TERM_PASSWORD_RAW));
        assertEquals("a b", StunCredential.opaqueString("a\u00A0b"));
        assertEquals(SHORT_TERM_PASSWORD, StunCredential.opaqueString(SHORT_TERM_PASSWORD));
    }

    @ParameterizedTest
    @EnumSource(StunIntegrity.Engine.class)
    void shouldParseAndVerifyRfc8489Sha256Request(final StunIntegrity.Engine engine)
    {
        final StunIntegrity integrity = new StunIntegrity(engine);
        assertEquals(StunResult.OK, message.wrap(SAMPLE_SHA256_REQUEST, 0, SAMPLE_SHA256_REQUEST.length));
        final byte[] userhash = StunCredential.userhash(LONG_TERM_USERNAME, REALM);
        assertTrue(message.valueEquals(message.findAttribute(StunAttributeType.USERHASH), userhash, 0, 32),
            "USERHASH = SHA-256(username \":\" realm)");
        assertEquals(SHA256_NONCE, message.valueAsString(message.findAttribute(StunAttributeType.NONCE)));
        assertEquals(StunCredential.ALGORITHM_SHA256,
            message.passwordAlgorithm(message.findAttribute(StunAttributeType.PASSWORD_ALGORITHM)));
        assertEquals(-1, message.firstMalformedAttribute());
        final StunCredential credential =
            StunCredential.longTerm(LONG_TERM_USERNAME, REALM, LONG_TERM_PASSWORD, StunCredential.ALGORITHM_SHA256);
        assertEquals(StunResult.VERIFIED, message.verifyMessageIntegritySha256(integrity, credential));
        assertEquals(StunResult.VERIFIED, message.verifyIntegrity(integrity, credential));
    }

    @Test
    void shouldReproduceSampleRequest()
    {
        final StunIntegrity integrity = new StunIntegrity();
        final byte[] out = new byte[200];
        final int length = writer.wrap(out, 0, out.length)
            .paddingByte(0x20)
            .header(StunMessageType.BINDING_REQUEST, TID_HIGH, TID_LOW)
            .addAscii(StunAttributeType.SOFTWARE, "STUN test client")
            .addU32(StunAttributeType.PRIORITY, 0x6e0001ff)
            .addU64(StunAttributeType.ICE_CONTROLLED, 0x932ff9b151263b36L)
            .addAscii(StunAttributeType.USERNAME, "evtj:h6vY")
            .addMessageIntegrity(integrity, SHORT_TERM)
            .addFingerprint(integrity)
            .length();
        assertEquals(toHex(SAMPLE_REQUEST, 0, SAMPLE_REQUEST.length), toHex(out, 0, length));
    }

    @Test
    void shouldReproduceSampleResponses()
    {
        final StunIntegrity integrity = new StunIntegrity();
        final byte[] out = new byte[200];
        final StunAddress v4 = new StunAddress().set(new InetSocketAddress("192.0.2.1", 32853));
        int length = writer.wrap(out, 0, out.length)
            .paddingByte(0x20)
            .header(StunMessageType.BINDING_SUCCESS_RESPONSE, TID_HIGH, TID_LOW)
            .addAscii(StunAttributeType.SOFTWARE, "test vector")
            .addAddress(StunAttributeType.XOR_MAPPED_ADDRESS, v4)
            .addMessageIntegrity(integrity, SHORT_TERM)
            .addFingerprint(integrity)
            .length();
        assertEquals(toHex(SAMPLE_IPV4_RESPONSE, 0, SAMPLE_IPV4_RESPONSE.length), toHex(out, 0, length));

        final StunAddress v6 =
            new StunAddress().set(new InetSocketAddress("2001:db8:1234:5678:11:2233:4455:6677", 32853));
        length = writer.wrap(out, 0, out.length)
            .paddingByte(0x20)
            .header(StunMessageType.BINDING_SUCCESS_RESPONSE, TID_HIGH, TID_LOW)
            .addAscii(StunAttributeType.SOFTWARE, "test vector")
            .addAddress(StunAttributeType.XOR_MAPPED_ADDRESS, v6)
            .addMessageIntegrity(integrity, SHORT_TERM)
            .addFingerprint(integrity)
            .length();
        assertEquals(toHex(SAMPLE_IPV6_RESPONSE, 0, SAMPLE_IPV6_RESPONSE.length), toHex(out, 0, length));
    }

    @Test
    void shouldReproduceLongTermRequest()
    {
        final StunIntegrity integrity = new StunIntegrity();
        final byte[] username = LONG_TERM_USERNAME.getBytes(StandardCharsets.UTF_8);
        final byte[] out = new byte[200];
        final int length = writer.wrap(out, 0, out.length)
            .header(StunMessageType.BINDING_REQUEST, 0x78ad3433, 0xc6ad72c029da412eL)
            .addBytes(StunAttributeType.USERNAME, username, 0, username.length)
            .addAscii(StunAttributeType.NONCE, LONG_TERM_NONCE)
            .addAscii(StunAttributeType.REALM, REALM)
            .addMessageIntegrity(integrity,
                StunCredential.longTerm(LONG_TERM_USERNAME, REALM, LONG_TERM_PASSWORD, StunCredential.ALGORITHM_MD5))
            .length();
        assertEquals(toHex(SAMPLE_LONG_TERM_REQUEST, 0, SAMPLE_LONG_TERM_REQUEST.length), toHex(out, 0, length));
    }

    @Test
    void shouldReproduceRfc8489Sha256Request()
    {
        final StunIntegrity integrity = new StunIntegrity();
        final byte[] userhash = StunCredential.userhash(LONG_TERM_USERNAME, REALM);
        final byte[] out = new byte[200];
        final int length = writer.wrap(out, 0, out.length)
            .header(StunMessageType.BINDING_REQUEST, 0x78ad3433, 0xc6ad72c029da412eL)
            .addBytes(StunAttributeType.USERHASH, userhash, 0, userhash.length)
            .addAscii(StunAttributeType.NONCE, SHA256_NONCE)
            .addAscii(StunAttributeType.REALM, REALM)
            .addPasswordAlgorithm(StunCredential.ALGORITHM_SHA256)
            .addMessageIntegritySha256(integrity, StunCredential.longTerm(
                LONG_TERM_USERNAME, REALM, LONG_TERM_PASSWORD, StunCredential.ALGORITHM_SHA256))
            .length();
        assertEquals(toHex(SAMPLE_SHA256_REQUEST, 0, SAMPLE_SHA256_REQUEST.length), toHex(out, 0, length));
    }

    @Test
    void shouldVerifyVectorsInDirectBuffers()
    {
        final StunIntegrity integrity = new StunIntegrity();
        final ByteBuffer direct = ByteBuffer.allocateDirect(512);
        direct.put(7, SAMPLE_IPV6_RESPONSE);
        assertEquals(StunResult.OK, message.wrap(direct, 7, SAMPLE_IPV6_RESPONSE.length));
        assertEquals(7, message.offset());
        final StunAddress address = new StunAddress();
        message.readAddress(message.findAttribute(StunAttributeType.XOR_MAPPED_ADDRESS), address);
        assertEquals(new InetSocketAddress("2001:db8:1234:5678:11:2233:4455:6677", 32853),
            address.toInetSocketAddress());
        assertEquals(StunResult.VERIFIED, message.verifyMessageIntegrity(integrity, SHORT_TERM));
        assertEquals(StunResult.VERIFIED, message.verifyFingerprint(integrity));
        assertTrue(message.transactionIdEquals(TID_HIGH, TID_LOW));

        direct.put(100, SAMPLE_SHA256_REQUEST);
        assertEquals(StunResult.OK, message.wrap(direct, 100, SAMPLE_SHA256_REQUEST.length));
        assertEquals(StunResult.VERIFIED, message.verifyMessageIntegritySha256(integrity, StunCredential.longTerm(
            LONG_TERM_USERNAME, REALM, LONG_TERM_PASSWORD, StunCredential.ALGORITHM_SHA256)));
        final byte[] copy = new byte[32];
        assertEquals(32, message.copyValue(message.findAttribute(StunAttributeType.USERHASH), copy, 0));
        assertArrayEquals(StunCredential.userhash(LONG_TERM_USERNAME, REALM), copy);
    }
}
