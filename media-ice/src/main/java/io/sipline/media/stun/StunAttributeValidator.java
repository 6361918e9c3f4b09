package io.sipline.media.stun;

/**
 * Checks the values of the attributes a {@link StunMessageFlyweight} indexed against the lengths (and, for
 * addresses, families) that RFC 8489 §14, RFC 8445 §16.1 and RFC 8656 §18 give them, so that a server can answer
 * 400 before reading any of them (RFC 8489 §6.3.1). Types it does not know pass.
 *
 * <p>Stateless; reads the wrapped bytes through the flyweight's accessors and allocates nothing.
 */
final class StunAttributeValidator
{
    private StunAttributeValidator()
    {
    }

    /**
     * @param message a wrapped message (borrowed for the call).
     * @return the index of the first known attribute with a malformed value, or -1.
     */
    static int firstMalformed(final StunMessageFlyweight message)
    {
        for (int i = 0; i < message.attributeCount(); i++)
        {
            if (!wellFormed(message, i))
            {
                return i;
            }
        }
        return -1;
    }

    private static boolean wellFormed(final StunMessageFlyweight message, final int i)
    {
        final int length = message.attributeLength(i);
        switch (message.attributeType(i))
        {
            case StunAttributeType.MAPPED_ADDRESS:
            case StunAttributeType.XOR_MAPPED_ADDRESS:
            case StunAttributeType.XOR_PEER_ADDRESS:
            case StunAttributeType.XOR_RELAYED_ADDRESS:
            case StunAttributeType.ALTERNATE_SERVER:
            {
                final int family = length >= 2 ? message.byteAt(message.attributeValueOffset(i) + 1) : 0;
                return (StunAddress.FAMILY_IPV4 == family && 8 == length)
                    || (StunAddress.FAMILY_IPV6 == family && 20 == length);
            }
            case StunAttributeType.USERNAME:
                return length <= 513; // §14.3
            case StunAttributeType.REALM:
            case StunAttributeType.NONCE:
            case StunAttributeType.SOFTWARE:
                return length <= 763; // §14.9, §14.10, §14.14
            case StunAttributeType.MESSAGE_INTEGRITY:
                return StunIntegrity.SHA1_LENGTH == length;
            case StunAttributeType.MESSAGE_INTEGRITY_SHA256:
                return length >= 16 && length <= 32 && 0 == (length & 3); // §14.6
            case StunAttributeType.FINGERPRINT:
            case StunAttributeType.PRIORITY:
                return 4 == length;
            case StunAttributeType.USE_CANDIDATE:
                return 0 == length;
            case StunAttributeType.ICE_CONTROLLED:
            case StunAttributeType.ICE_CONTROLLING:
                return 8 == length;
            case StunAttributeType.USERHASH:
                return 32 == length;
            case StunAttributeType.ERROR_CODE:
                return length >= 4 && length <= 767 && -1 != message.errorCode(i);
            case StunAttributeType.UNKNOWN_ATTRIBUTES:
                return 0 == (length & 1);
            case StunAttributeType.PASSWORD_ALGORITHM:
                return length >= 4 && u16(message, message.attributeValueOffset(i) + 2) <= length - 4;
            case StunAttributeType.PASSWORD_ALGORITHMS:
                return -1 != message.passwordAlgorithmsCount(i);
            default:
                return true;
        }
    }

    private static int u16(final StunMessageFlyweight message, final int at)
    {
        return (message.byteAt(at) << 8) | message.byteAt(at + 1);
    }
}
