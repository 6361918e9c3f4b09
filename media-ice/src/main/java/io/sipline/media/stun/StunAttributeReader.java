package io.sipline.media.stun;

/**
 * Decodes the structured attribute values of a message a {@link StunMessageFlyweight} wrapped: transport addresses
 * (plain and XOR-ed with the magic cookie and transaction id, RFC 8489 §14.1, §14.2), ERROR-CODE (§14.8) and
 * PASSWORD-ALGORITHMS (§14.11). The value layouts are drawn on the flyweight's methods.
 *
 * <p>Stateless; reads the wrapped bytes through the flyweight and allocates nothing.
 */
final class StunAttributeReader
{
    private StunAttributeReader()
    {
    }

    /** See {@link StunMessageFlyweight#readAddress}. */
    static int readAddress(final StunMessageFlyweight m, final int index, final StunAddress dst)
    {
        final int type = m.attributeType(index);
        final int length = m.attributeLength(index);
        final int value = m.attributeValueOffset(index);
        if (length < 4)
        {
            return StunResult.BAD_ATTRIBUTE;
        }
        final boolean xor = StunAttributeType.isXorAddress(type);
        final int family = m.byteAt(value + 1);
        final int addressLength;
        if (StunAddress.FAMILY_IPV4 == family && 8 == length)
        {
            addressLength = 4;
        }
        else if (StunAddress.FAMILY_IPV6 == family && 20 == length)
        {
            addressLength = 16;
        }
        else
        {
            return StunResult.BAD_ATTRIBUTE;
        }
        final int port = u16(m, value + 2) ^ (xor ? StunMessageFlyweight.MAGIC_COOKIE >>> 16 : 0);
        // The XOR key, cookie || transaction id, is exactly header bytes 4..19.
        final int key = m.offset() + StunMessageFlyweight.MAGIC_COOKIE_FIELD_OFFSET;
        for (int k = 0; k < addressLength; k++)
        {
            final int b = m.byteAt(value + 4 + k);
            dst.put(k, xor ? b ^ m.byteAt(key + k) : b);
        }
        dst.setFamilyAndPort(family, port);
        return StunResult.OK;
    }

    /** See {@link StunMessageFlyweight#errorCode}. */
    static int errorCode(final StunMessageFlyweight m, final int index)
    {
        if (m.attributeLength(index) < 4)
        {
            return -1;
        }
        final int value = m.attributeValueOffset(index);
        final int errorClass = m.byteAt(value + 2) & 0x07;
        final int number = m.byteAt(value + 3);
        if (errorClass < 3 || errorClass > 6 || number > 99)
        {
            return -1;
        }
        return errorClass * 100 + number;
    }

    /** See {@link StunMessageFlyweight#passwordAlgorithmsCount}. */
    static int passwordAlgorithmsCount(final StunMessageFlyweight m, final int index)
    {
        final int end = m.attributeValueOffset(index) + m.attributeLength(index);
        int count = 0;
        for (int pos = m.attributeValueOffset(index); pos < end; count++)
        {
            if (pos + 4 > end)
            {
                return -1;
            }
            pos += 4 + ((u16(m, pos + 2) + 3) & ~3);
            if (pos > end)
            {
                return -1;
            }
        }
        return count;
    }

    /** See {@link StunMessageFlyweight#passwordAlgorithmsAt}. */
    static int passwordAlgorithmsAt(final StunMessageFlyweight m, final int index, final int k)
    {
        final int end = m.attributeValueOffset(index) + m.attributeLength(index);
        int pos = m.attributeValueOffset(index);
        for (int i = 0; pos + 4 <= end; i++)
        {
            if (i == k)
            {
                return u16(m, pos);
            }
            pos += 4 + ((u16(m, pos + 2) + 3) & ~3);
        }
        return -1;
    }

    private static int u16(final StunMessageFlyweight m, final int at)
    {
        return (m.byteAt(at) << 8) | m.byteAt(at + 1);
    }
}
