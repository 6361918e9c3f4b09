package io.sipline.media.stun;

import static io.sipline.media.stun.StunTestVectors.SAMPLE_REQUEST;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;

import org.junit.jupiter.api.Test;

class StunMessageFlyweightTest
{
    private final StunMessageFlyweight message = new StunMessageFlyweight();
    private final StunMessageWriter writer = new StunMessageWriter();
    private final StunIntegrity integrity = new StunIntegrity();
    private final StunCredential credential = StunCredential.shortTerm("secret-password");
    private final byte[] buf = new byte[600];

    @Test
    void shouldEncodeAndDecodeMessageTypes()
    {
        for (int method = 0; method < 0x1000; method++)
        {
            for (int cls = 0; cls < 4; cls++)
            {
                final int type = StunMessageType.type(method, cls);
                assertEquals(method, StunMessageType.method(type));
                assertEquals(cls, StunMessageType.messageClass(type));
                assertEquals(0, type & 0xC000);
            }
        }
        assertEquals(0x0001, StunMessageType.type(StunMessageType.METHOD_BINDING, StunMessageType.CLASS_REQUEST));
        assertEquals(0x0111,
            StunMessageType.type(StunMessageType.METHOD_BINDING, StunMessageType.CLASS_ERROR_RESPONSE));
        assertEquals(0x0113,
            StunMessageType.type(StunMessageType.METHOD_ALLOCATE, StunMessageType.CLASS_ERROR_RESPONSE));
        assertEquals(0x0017, StunMessageType.type(StunMessageType.METHOD_DATA, StunMessageType.CLASS_INDICATION));
    }

    @Test
    void shouldRejectBadFraming()
    {
        final byte[] m = SAMPLE_REQUEST.clone();
        assertEquals(StunResult.TOO_SHORT, message.wrap(m, 0, 19));
        assertEquals(StunResult.TOO_SHORT, message.wrap(m, 0, m.length - 1));
        assertEquals(StunResult.TOO_SHORT, message.wrap(m, 10, m.length));
        m[0] = (byte)(m[0] | 0x80);
        assertEquals(StunResult.NOT_STUN, message.wrap(m, 0, m.length));
        m[0] = 0;
        m[4] ^= 1;
        assertEquals(StunResult.BAD_MAGIC_COOKIE, message.wrap(m, 0, m.length));
        m[4] ^= 1;
        m[3] = 0x57;
        assertEquals(StunResult.BAD_LENGTH, message.wrap(m, 0, m.length));
        m[3] = 0x58;
        m[23] = (byte)0xF0; // SOFTWARE claims 240 bytes
        assertEquals(StunResult.ATTRIBUTE_OVERRUN, message.wrap(m, 0, m.length));
        assertEquals(0, message.attributeCount());
        assertEquals(-1, message.fingerprintIndex());
    }

    @Test
    void shouldIgnoreBytesBeyondTheLengthField()
    {
        final byte[] m = new byte[SAMPLE_REQUEST.length + 13];
        System.arraycopy(SAMPLE_REQUEST, 0, m, 0, SAMPLE_REQUEST.length);
        assertEquals(StunResult.OK, message.wrap(m, 0, m.length));
        assertEquals(SAMPLE_REQUEST.length, message.frameLength());
        assertEquals(StunResult.VERIFIED, message.verifyFingerprint(integrity));
    }

    @Test
    void shouldNameUnknownComprehensionRequiredAttributes()
    {
        final byte[] value = {1, 2, 3};
        final int length = writer.wrap(buf, 0, buf.length)
            .header(StunMessageType.BINDING_REQUEST, 1, 2L)
            .addBytes(0x7F01, value, 0, 3)
            .addBytes(0xC001, value, 0, 3) // comprehension-optional: ignored
            .addBytes(0x0019, value, 0, 3) // REQUESTED-TRANSPORT: unknown to a Binding flyweight
            .addBytes(0x7F01, value, 0, 3) // duplicate, named once
            .length();
        assertEquals(StunResult.UNKNOWN_COMPREHENSION_REQUIRED, message.wrap(buf, 0, length));
        assertEquals(2, message.unknownAttributeCount());
        assertEquals(0x7F01, message.unknownAttributeType(0));
        assertEquals(0x0019, message.unknownAttributeType(1));

        final StunMessageFlyweight turn = new StunMessageFlyweight(8, StunAttributeType.TURN_KNOWN_LOW);
        assertEquals(StunResult.UNKNOWN_COMPREHENSION_REQUIRED, turn.wrap(buf, 0, length));
        assertEquals(1, turn.unknownAttributeCount());
    }

    @Test
    void shouldSkipAttributesAfterIntegrityAndFingerprint()
    {
        int length = writer.wrap(buf, 0, buf.length)
            .header(StunMessageType.BINDING_REQUEST, 3, 4L)
            .addU32(StunAttributeType.PRIORITY, 7)
            .addMessageIntegrity(integrity, credential)
            .length();
        // Append an unknown comprehension-required attribute and a PRIORITY after MESSAGE-INTEGRITY by hand.
        final byte[] tail = {0x7F, 0x01, 0, 0, 0, 0x24, 0, 4, 0, 0, 0, 9};
        System.arraycopy(tail, 0, buf, length, tail.length);
        length += tail.length;
        buf[3] = (byte)(length - 20);
        assertEquals(StunResult.OK, message.wrap(buf, 0, length));
        assertEquals(2, message.attributeCount());
        assertEquals(7, message.priority());
        assertEquals(StunResult.VERIFIED, message.verifyMessageIntegrity(integrity, credential));
    }

    @Test
    void shouldRoundTripEveryAttributeKind()
    {
        final StunAddress mapped = new StunAddress().set(new InetSocketAddress("2001:db8::7", 3478));
        final StunAddress plain = new StunAddress().setIpv4(0x0A000001, 9);
        final int length = writer.wrap(buf, 0, buf.length)
            .header(StunMessageType.BINDING_ERROR_RESPONSE, 0x01020304, 0x05060708090A0B0CL)
            .addErrorCode(420, "Unknown Attribute")
            .addAddress(StunAttributeType.XOR_MAPPED_ADDRESS, mapped)
            .addAddress(StunAttributeType.MAPPED_ADDRESS, plain)
            .addEmpty(StunAttributeType.USE_CANDIDATE)
            .addU64(StunAttributeType.ICE_CONTROLLING, -2L)
            .addPasswordAlgorithm(StunCredential.ALGORITHM_SHA256)
            .addMessageIntegrity(integrity, credential)
            .addMessageIntegritySha256(integrity, credential, 16)
            .addFingerprint(integrity)
            .length();
        assertTrue(length > 0);
        assertEquals(StunResult.OK, message.wrap(buf, 0, length));
        assertEquals(-1, message.firstMalformedAttribute());
        final int error = message.findAttribute(StunAttributeType.ERROR_CODE);
        assertEquals(420, message.errorCode(error));
        assertEquals("Unknown Attribute".length(), message.errorReasonLength(error));
        assertEquals('U', message.byteAt(message.errorReasonOffset(error)));
        final StunAddress read = new StunAddress();
        assertEquals(StunResult.OK, message.readAddress(message.findAttribute(StunAttributeType.XOR_MAPPED_ADDRESS),
            read));
        assertTrue(read.sameAs(mapped));
        message.readAddress(message.findAttribute(StunAttributeType.MAPPED_ADDRESS), read);
        assertTrue(read.sameAs(plain));
        assertTrue(message.useCandidate());
        assertEquals(-2L, message.u64Value(message.findAttribute(StunAttributeType.ICE_CONTROLLING)));
        assertEquals(StunResult.VERIFIED, message.verifyMessageIntegrity(integrity, credential));
        assertEquals(StunResult.VERIFIED, message.verifyMessageIntegritySha256(integrity, credential));
        assertEquals(StunResult.VERIFIED, message.verifyFingerprint(integrity));
        assertEquals(StunResult.MISMATCH,
            message.verifyMessageIntegritySha256(integrity, StunCredential.shortTerm("other")));

        // Same message checked by the javax.crypto.Mac engine.
        final StunIntegrity jca = new StunIntegrity(StunIntegrity.Engine.JCA_MAC);
        assertEquals(StunResult.VERIFIED, message.verifyMessageIntegrity(jca, credential));
        assertEquals(StunResult.VERIFIED, message.verifyMessageIntegritySha256(jca, credential));
    }

    @Test
    void shouldListUnknownAttributesAndPasswordAlgorithms()
    {
        final byte[] algorithms = {0, 1, 0, 0, 0, 2, 0, 2, 9, 9, 0, 0};
        writer.wrap(buf, 0, buf.length).header(StunMessageType.BINDING_REQUEST, 1, 1L)
            .addBytes(0x7001, algorithms, 0, 0);
        message.wrap(buf, 0, writer.length());
        final int length = writer.wrap(buf, 0, buf.length)
            .header(StunMessageType.BINDING_ERROR_RESPONSE, 1, 1L)
            .addUnknownAttributes(message)
            .addBytes(StunAttributeType.PASSWORD_ALGORITHMS, algorithms, 0, algorithms.length)
            .length();
        assertEquals(StunResult.OK, message.wrap(buf, 0, length));
        final int unknown = message.findAttribute(StunAttributeType.UNKNOWN_ATTRIBUTES);
        assertEquals(1, message.unknownAttributesListCount(unknown));
        assertEquals(0x7001, message.unknownAttributesListType(unknown, 0));
        final int list = message.findAttribute(StunAttributeType.PASSWORD_ALGORITHMS);
        assertEquals(2, message.passwordAlgorithmsCount(list));
        assertEquals(StunCredential.ALGORITHM_MD5, message.passwordAlgorithmsAt(list, 0));
        assertEquals(StunCredential.ALGORITHM_SHA256, message.passwordAlgorithmsAt(list, 1));
    }

    @Test
    void shouldFlagMalformedKnownAttributes()
    {
        final byte[] three = {1, 2, 3};
        final int length = writer.wrap(buf, 0, buf.length)
            .header(StunMessageType.BINDING_REQUEST, 1, 1L)
            .addBytes(StunAttributeType.PRIORITY, three, 0, 3)
            .length();
        assertEquals(StunResult.OK, message.wrap(buf, 0, length));
        assertEquals(0, message.firstMalformedAttribute());
        assertEquals(StunResult.BAD_ATTRIBUTE, message.validateKnownAttributes());
        assertEquals(-1, message.priority());
        assertEquals(StunResult.BAD_ATTRIBUTE, message.readAddress(0, new StunAddress()));
    }

    @Test
    void shouldReportOverflowInsteadOfThrowing()
    {
        final byte[] small = new byte[30];
        writer.wrap(small, 0, small.length)
            .header(StunMessageType.BINDING_REQUEST, 1, 1L)
            .addU64(StunAttributeType.ICE_CONTROLLED, 1L)
            .addFingerprint(integrity);
        assertTrue(writer.isOverflow());
        assertEquals(-1, writer.length());
        assertFalse(StunMessageFlyweight.isStun(small, 0, 10));
        assertTrue(StunMessageFlyweight.isStun(SAMPLE_REQUEST, 0, SAMPLE_REQUEST.length));
    }
}
