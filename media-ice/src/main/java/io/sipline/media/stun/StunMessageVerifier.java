package io.sipline.media.stun;

/**
 * Verifies the integrity and fingerprint attributes of a message a {@link StunMessageFlyweight} wrapped (RFC 8489
 * §14.5-§14.7): each covers the message up to itself, with the header's length field taken as ending just after it.
 * MACs are compared in constant time.
 *
 * <pre>
 *   |<------------------ covered ------------------>|
 *   +--------+-----------+-----+-----------+--------+------------------+
 *   | header | attribute | ... | attribute | type   | length | MAC/CRC |
 *   +--------+-----------+-----+-----------+--------+------------------+
 *   header length field as hashed = covered - 20 + 4 + value length
 * </pre>
 *
 * <p>Stateless; the HMAC and CRC-32 engines are the thread's {@link StunIntegrity}. Allocates nothing.
 */
final class StunMessageVerifier
{
    private StunMessageVerifier()
    {
    }

    /** See {@link StunMessageFlyweight#verifyMessageIntegrity}. */
    static int messageIntegrity(final StunMessageFlyweight message, final StunIntegrity integrity,
        final StunCredential credential)
    {
        final int index = message.integrityIndex();
        if (-1 == index)
        {
            return StunResult.ABSENT;
        }
        if (StunIntegrity.SHA1_LENGTH != message.attributeLength(index))
        {
            return StunResult.BAD_ATTRIBUTE;
        }
        final int covered = message.attributeOffset(index) - message.offset();
        final int adjusted = covered + StunMessageFlyweight.ATTRIBUTE_HEADER_LENGTH + StunIntegrity.SHA1_LENGTH
            - StunMessageFlyweight.HEADER_LENGTH;
        integrity.hmac(StunIntegrity.SHA1, credential, message.array(), message.buffer(), message.offset(), covered,
            adjusted);
        return macEquals(message, integrity.outputArray(), message.attributeValueOffset(index),
            StunIntegrity.SHA1_LENGTH);
    }

    /** See {@link StunMessageFlyweight#verifyMessageIntegritySha256}. */
    static int messageIntegritySha256(final StunMessageFlyweight message, final StunIntegrity integrity,
        final StunCredential credential)
    {
        final int index = message.integritySha256Index();
        if (-1 == index)
        {
            return StunResult.ABSENT;
        }
        final int length = message.attributeLength(index);
        if (length < 16 || length > StunIntegrity.SHA256_LENGTH || 0 != (length & 3))
        {
            return StunResult.BAD_ATTRIBUTE;
        }
        final int covered = message.attributeOffset(index) - message.offset();
        final int adjusted = covered + StunMessageFlyweight.ATTRIBUTE_HEADER_LENGTH + length
            - StunMessageFlyweight.HEADER_LENGTH;
        integrity.hmac(StunIntegrity.SHA256, credential, message.array(), message.buffer(), message.offset(),
            covered, adjusted);
        return macEquals(message, integrity.outputArray(), message.attributeValueOffset(index), length);
    }

    /** See {@link StunMessageFlyweight#verifyFingerprint}. */
    static int fingerprint(final StunMessageFlyweight message, final StunIntegrity integrity)
    {
        final int index = message.fingerprintIndex();
        if (-1 == index)
        {
            return StunResult.ABSENT;
        }
        if (4 != message.attributeLength(index))
        {
            return StunResult.BAD_ATTRIBUTE;
        }
        final int covered = message.attributeOffset(index) - message.offset();
        final int adjusted = covered + StunMessageFlyweight.ATTRIBUTE_HEADER_LENGTH + 4
            - StunMessageFlyweight.HEADER_LENGTH;
        final int expected = integrity.fingerprint(message.array(), message.buffer(), message.offset(), covered,
            adjusted);
        return expected == (int) message.u32Value(index) ? StunResult.VERIFIED : StunResult.MISMATCH;
    }

    private static int macEquals(final StunMessageFlyweight message, final byte[] mac, final int at,
        final int length)
    {
        int diff = 0;
        for (int i = 0; i < length; i++)
        {
            diff |= (mac[i] & 0xFF) ^ message.byteAt(at + i);
        }
        return 0 == diff ? StunResult.VERIFIED : StunResult.MISMATCH;
    }
}
