package io.sipline.media.stun;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A read-only view of one STUN message (RFC 8489) lying in a caller's buffer: {@link #wrap} checks the framing (rules
 * on {@link #wrap(byte[], int, int)}) and indexes the attribute offsets into an {@code int[]}; every accessor then
 * reads the bytes where they lie. No object is created per message or per attribute, and one instance is re-pointed
 * at message after message. Malformed input gives a negative {@link StunResult} code; no input makes it throw.
 *
 * <pre>
 *   offset 0        2           4                 8                          20
 *   +--+-----------+-----------+-----------------+--------------------------+-----------------------------------+
 *   |00| msg type  | length    | magic cookie    | transaction ID (96 bits) | attributes (length bytes)         |
 *   |  | (14 bits) | (16 bits) | 0x2112A442      |                          |                                   |
 *   +--+-----------+-----------+-----------------+--------------------------+-----------------------------------+
 *   attribute (RFC 8489 §14): | type (16 bits) | length of value (16 bits) | value, padded to a multiple of 4 |
 * </pre>
 *
 * <p>Positions returned by {@code *Offset} methods are absolute indices into the wrapped array or buffer. Buffers are
 * borrowed for as long as the flyweight points at them; nothing is copied.
 *
 * <p>Not thread-safe; owned by one media thread. Allocates only at construction.
 */
public final class StunMessageFlyweight
{
    /** Bytes in the header. */
    public static final int HEADER_LENGTH = 20;
    /** Offset of the 16-bit message type. */
    public static final int TYPE_FIELD_OFFSET = 0;
    /** Offset of the 16-bit message length. */
    public static final int LENGTH_FIELD_OFFSET = 2;
    /** Offset of the magic cookie. */
    public static final int MAGIC_COOKIE_FIELD_OFFSET = 4;
    /** Offset of the 96-bit transaction id. */
    public static final int TRANSACTION_ID_FIELD_OFFSET = 8;
    /** Bytes in the transaction id. */
    public static final int TRANSACTION_ID_LENGTH = 12;
    /** The fixed magic cookie (RFC 8489 §5). */
    public static final int MAGIC_COOKIE = 0x2112A442;
    /** Bytes in an attribute header (type and length). */
    public static final int ATTRIBUTE_HEADER_LENGTH = 4;
    /** Default capacity of the attribute index. */
    public static final int DEFAULT_MAX_ATTRIBUTES = 32;
    /** How many distinct unknown comprehension-required types are remembered (more still give the result code). */
    public static final int MAX_UNKNOWN_ATTRIBUTES = 16;

    private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG_BE =
        MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private static final int STATE_OPEN = 0;
    private static final int STATE_AFTER_INTEGRITY = 1;
    private static final int STATE_AFTER_INTEGRITY_SHA256 = 2;
    private static final int STATE_AFTER_FINGERPRINT = 3;

    private final long knownComprehensionRequired;
    private final int[] attributeOffsets;
    private final int[] unknownTypes = new int[MAX_UNKNOWN_ATTRIBUTES];
    private byte[] array;
    private ByteBuffer buffer;
    private int offset;
    private int frameLength;
    private int attributeCount;
    private int unknownCount;
    private int integrityIndex = -1;
    private int integritySha256Index = -1;
    private int fingerprintIndex = -1;
    private int result = StunResult.TOO_SHORT;

    /**
     * A flyweight for STUN Binding and ICE ({@link StunAttributeType#BINDING_KNOWN_LOW}) indexing up to
     * {@link #DEFAULT_MAX_ATTRIBUTES} attributes.
     */
    public StunMessageFlyweight()
    {
        this(DEFAULT_MAX_ATTRIBUTES, StunAttributeType.BINDING_KNOWN_LOW);
    }

    /**
     * @param maxAttributes              capacity of the attribute index; a message with more is refused.
     * @param knownComprehensionRequired bit {@code t} set when comprehension-required type {@code t} (below 64) is
     *                                   understood, e.g. {@link StunAttributeType#TURN_KNOWN_LOW}.
     */
    public StunMessageFlyweight(final int maxAttributes, final long knownComprehensionRequired)
    {
        if (maxAttributes < 1)
        {
            throw new IllegalArgumentException("maxAttributes < 1");
        }
        this.attributeOffsets = new int[maxAttributes];
        this.knownComprehensionRequired = knownComprehensionRequired;
    }

    /**
     * A cheap first-bytes test for demultiplexing (RFC 7983 §7; RFC 8489 §7.3): at least a header, the top two bits
     * zero and the magic cookie in place. It does not index attributes.
     *
     * @param buf    bytes (borrowed).
     * @param offset first byte.
     * @param length bytes available.
     * @return true when this may be a STUN message.
     */
    public static boolean isStun(final byte[] buf, final int offset, final int length)
    {
        return length >= HEADER_LENGTH && offset >= 0 && offset + length <= buf.length
            && 0 == (buf[offset] & 0xC0) && MAGIC_COOKIE == (int)INT_BE.get(buf, offset + MAGIC_COOKIE_FIELD_OFFSET);
    }

    /**
     * Points this view at a message in an array and indexes it.
     *
     * <p>Rules applied: the two top bits are zero, the magic cookie is present, the length is a multiple of 4 and
     * fits in the supplied bytes (bytes beyond it are not part of the message: {@link #frameLength()} tells a stream
     * framer where the next one starts), and no attribute runs past the end. Attributes after MESSAGE-INTEGRITY other
     * than MESSAGE-INTEGRITY-SHA256 and FINGERPRINT, after MESSAGE-INTEGRITY-SHA256 other than FINGERPRINT, and
     * everything after FINGERPRINT are skipped and not indexed (RFC 8489 §14.5-§14.7). Comprehension-required types
     * outside the set given at construction are named by {@link #unknownAttributeType(int)} and make this return
     * {@link StunResult#UNKNOWN_COMPREHENSION_REQUIRED}. Malformed input gives a negative {@link StunResult} code.
     *
     * @param buf    bytes (borrowed until the next wrap).
     * @param offset first byte of the message.
     * @param length bytes available (a datagram's length; more than the message is allowed).
     * @return a {@link StunResult} framing code; also kept in {@link #result()}.
     */
    public int wrap(final byte[] buf, final int offset, final int length)
    {
        array = buf;
        buffer = null;
        if (offset < 0 || length < 0 || offset > buf.length - length)
        {
            return fail(StunResult.TOO_SHORT, 0);
        }
        return index(offset, length);
    }

    /**
     * Points this view at a message in a heap or direct buffer (absolute indices; position and limit are not read
     * or changed) and indexes it, with the rules of {@link #wrap(byte[], int, int)}. A heap buffer is read through
     * its backing array, so {@link #array()} and the {@code *Offset} results are then relative to that array
     * ({@code arrayOffset()} added).
     *
     * @param buf    buffer (borrowed until the next wrap).
     * @param offset absolute index of the first byte.
     * @param length bytes available.
     * @return a {@link StunResult} framing code.
     */
    public int wrap(final ByteBuffer buf, final int offset, final int length)
    {
        if (buf.hasArray())
        {
            return wrap(buf.array(), buf.arrayOffset() + offset, length);
        }
        array = null;
        buffer = buf;
        if (offset < 0 || length < 0 || offset > buf.capacity() - length)
        {
            return fail(StunResult.TOO_SHORT, 0);
        }
        return index(offset, length);
    }

    /**
     * @return the code the last {@link #wrap} returned.
     */
    public int result()
    {
        return result;
    }

    /**
     * @return absolute index of the first byte of the message.
     */
    public int offset()
    {
        return offset;
    }

    /**
     * @return header plus attributes: 20 + the length field (0 when framing failed).
     */
    public int frameLength()
    {
        return frameLength;
    }

    /**
     * @return the wrapped array, or null when a direct buffer is wrapped.
     */
    public byte[] array()
    {
        return array;
    }

    /**
     * @return the wrapped direct buffer, or null when an array is wrapped.
     */
    public ByteBuffer buffer()
    {
        return buffer;
    }

    // ---------------------------------------------------------------------------------------------------- header

    /**
     * @return the 14-bit message type.
     */
    public int messageType()
    {
        return u16(offset + TYPE_FIELD_OFFSET) & 0x3FFF;
    }

    /**
     * @return the class, one of {@code StunMessageType.CLASS_*}.
     */
    public int messageClass()
    {
        return StunMessageType.messageClass(messageType());
    }

    /**
     * @return the 12-bit method.
     */
    public int method()
    {
        return StunMessageType.method(messageType());
    }

    /**
     * @return the length field: bytes of attributes after the header.
     */
    public int messageLength()
    {
        return u16(offset + LENGTH_FIELD_OFFSET);
    }

    /**
     * @return the magic cookie field.
     */
    public int magicCookie()
    {
        return i32(offset + MAGIC_COOKIE_FIELD_OFFSET);
    }

    /**
     * @return absolute index of the 12-byte transaction id.
     */
    public int transactionIdOffset()
    {
        return offset + TRANSACTION_ID_FIELD_OFFSET;
    }

    /**
     * @return the first 4 bytes of the transaction id, big-endian.
     */
    public int transactionIdHigh()
    {
        return i32(offset + TRANSACTION_ID_FIELD_OFFSET);
    }

    /**
     * @return the last 8 bytes of the transaction id, big-endian.
     */
    public long transactionIdLow()
    {
        return i64(offset + TRANSACTION_ID_FIELD_OFFSET + 4);
    }

    /**
     * @param high first 4 bytes.
     * @param low  last 8 bytes.
     * @return true when this message carries that transaction id.
     */
    public boolean transactionIdEquals(final int high, final long low)
    {
        return transactionIdHigh() == high && transactionIdLow() == low;
    }

    // ----------------------------------------------------------------------------------------------- attributes

    /**
     * @return attributes indexed (those after MESSAGE-INTEGRITY/FINGERPRINT that the RFC says to ignore excluded).
     */
    public int attributeCount()
    {
        return attributeCount;
    }

    /**
     * @param index 0 to {@link #attributeCount()} - 1.
     * @return absolute index of that attribute's header.
     */
    public int attributeOffset(final int index)
    {
        return attributeOffsets[index];
    }

    /**
     * @param index attribute index.
     * @return its type.
     */
    public int attributeType(final int index)
    {
        return u16(attributeOffsets[index]);
    }

    /**
     * @param index attribute index.
     * @return its value length, without padding.
     */
    public int attributeLength(final int index)
    {
        return u16(attributeOffsets[index] + 2);
    }

    /**
     * @param index attribute index.
     * @return its value length rounded up to 4 (the padding is not part of the value, RFC 8489 §14).
     */
    public int attributePaddedLength(final int index)
    {
        return (attributeLength(index) + 3) & ~3;
    }

    /**
     * @param index attribute index.
     * @return absolute index of its value.
     */
    public int attributeValueOffset(final int index)
    {
        return attributeOffsets[index] + ATTRIBUTE_HEADER_LENGTH;
    }

    /**
     * @param type attribute type.
     * @return the index of its first occurrence, or -1.
     */
    public int findAttribute(final int type)
    {
        for (int i = 0; i < attributeCount; i++)
        {
            if (u16(attributeOffsets[i]) == type)
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * @return distinct unknown comprehension-required types found (at most {@link #MAX_UNKNOWN_ATTRIBUTES}).
     */
    public int unknownAttributeCount()
    {
        return unknownCount;
    }

    /**
     * @param k 0 to {@link #unknownAttributeCount()} - 1.
     * @return that unknown type, for the UNKNOWN-ATTRIBUTES of a 420 response.
     */
    public int unknownAttributeType(final int k)
    {
        return unknownTypes[k];
    }

    /**
     * @return index of MESSAGE-INTEGRITY, or -1.
     */
    public int integrityIndex()
    {
        return integrityIndex;
    }

    /**
     * @return index of MESSAGE-INTEGRITY-SHA256, or -1.
     */
    public int integritySha256Index()
    {
        return integritySha256Index;
    }

    /**
     * @return index of FINGERPRINT, or -1.
     */
    public int fingerprintIndex()
    {
        return fingerprintIndex;
    }

    /**
     * @param absoluteIndex index into the wrapped bytes.
     * @return that byte, 0-255.
     */
    public int byteAt(final int absoluteIndex)
    {
        return u8(absoluteIndex);
    }

    // ------------------------------------------------------------------------------------------ typed readers

    /**
     * Checks the value length (and, for addresses, the family) of every indexed attribute this codec knows, so a
     * server can answer 400 before reading any of them (RFC 8489 §6.3.1).
     *
     * @return {@link StunResult#OK}, or {@link StunResult#BAD_ATTRIBUTE} naming nothing (see
     *     {@link #firstMalformedAttribute()}).
     */
    public int validateKnownAttributes()
    {
        return -1 == firstMalformedAttribute() ? StunResult.OK : StunResult.BAD_ATTRIBUTE;
    }

    /**
     * @return the index of the first known attribute with a malformed value, or -1.
     */
    public int firstMalformedAttribute()
    {
        return StunAttributeValidator.firstMalformed(this);
    }

    /**
     * Reads MAPPED-ADDRESS, ALTERNATE-SERVER or an XOR-*-ADDRESS (XOR-MAPPED-ADDRESS, XOR-PEER-ADDRESS,
     * XOR-RELAYED-ADDRESS) into a holder, undoing the XOR with the magic cookie and transaction id (RFC 8489 §14.1,
     * §14.2).
     *
     * <pre>
     *    0                   1                   2                   3
     *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
     *   |0 0 0 0 0 0 0 0|    Family     |      (X-)Port                 |
     *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
     *   |            (X-)Address (32 bits or 128 bits)                  |
     *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
     *   X-Port = Port XOR top 16 bits of the cookie; X-Address = Address XOR (cookie || transaction id)
     * </pre>
     *
     * @param index attribute index.
     * @param dst   holder to fill (untouched on failure).
     * @return {@link StunResult#OK} or {@link StunResult#BAD_ATTRIBUTE}.
     */
    public int readAddress(final int index, final StunAddress dst)
    {
        return StunAttributeReader.readAddress(this, index, dst);
    }

    /**
     * @param index attribute index of a 4-byte value (PRIORITY, LIFETIME, FINGERPRINT).
     * @return the unsigned value, or -1 when the length is not 4.
     */
    public long u32Value(final int index)
    {
        if (4 != attributeLength(index))
        {
            return -1;
        }
        return i32(attributeValueOffset(index)) & 0xFFFF_FFFFL;
    }

    /**
     * @param index attribute index of an 8-byte value (ICE-CONTROLLED, ICE-CONTROLLING tie-breakers). Check
     *              {@link #attributeLength(int)} first, or use {@link #validateKnownAttributes()}.
     * @return the value, or 0 when the length is not 8.
     */
    public long u64Value(final int index)
    {
        if (8 != attributeLength(index))
        {
            return 0;
        }
        return i64(attributeValueOffset(index));
    }

    /**
     * @return PRIORITY (RFC 8445 §16.1), or -1 when absent or malformed.
     */
    public long priority()
    {
        final int index = findAttribute(StunAttributeType.PRIORITY);
        return -1 == index ? -1 : u32Value(index);
    }

    /**
     * @return true when USE-CANDIDATE is present (RFC 8445 §16.1).
     */
    public boolean useCandidate()
    {
        return -1 != findAttribute(StunAttributeType.USE_CANDIDATE);
    }

    /**
     * @param index attribute index of ERROR-CODE.
     * @return class * 100 + number (300-699), or -1 when malformed (RFC 8489 §14.8).
     */
    public int errorCode(final int index)
    {
        return StunAttributeReader.errorCode(this, index);
    }

    /**
     * @param index attribute index of ERROR-CODE.
     * @return absolute index of the UTF-8 reason phrase.
     */
    public int errorReasonOffset(final int index)
    {
        return attributeValueOffset(index) + 4;
    }

    /**
     * @param index attribute index of ERROR-CODE.
     * @return bytes of reason phrase (0 when malformed).
     */
    public int errorReasonLength(final int index)
    {
        return Math.max(0, attributeLength(index) - 4);
    }

    /**
     * @param index attribute index of UNKNOWN-ATTRIBUTES.
     * @return how many types it lists.
     */
    public int unknownAttributesListCount(final int index)
    {
        return attributeLength(index) >> 1;
    }

    /**
     * @param index attribute index of UNKNOWN-ATTRIBUTES.
     * @param k     0 to {@link #unknownAttributesListCount(int)} - 1.
     * @return the k-th listed type.
     */
    public int unknownAttributesListType(final int index, final int k)
    {
        return u16(attributeValueOffset(index) + 2 * k);
    }

    /**
     * @param index attribute index of PASSWORD-ALGORITHM.
     * @return the algorithm number (RFC 8489 §14.12), or -1 when malformed.
     */
    public int passwordAlgorithm(final int index)
    {
        return attributeLength(index) >= 4 ? u16(attributeValueOffset(index)) : -1;
    }

    /**
     * @param index attribute index of PASSWORD-ALGORITHMS (RFC 8489 §14.11).
     * @return how many algorithms it lists, or -1 when an entry's parameters overrun the value.
     */
    public int passwordAlgorithmsCount(final int index)
    {
        return StunAttributeReader.passwordAlgorithmsCount(this, index);
    }

    /**
     * @param index attribute index of PASSWORD-ALGORITHMS.
     * @param k     0 to {@link #passwordAlgorithmsCount(int)} - 1.
     * @return the k-th algorithm number, or -1.
     */
    public int passwordAlgorithmsAt(final int index, final int k)
    {
        return StunAttributeReader.passwordAlgorithmsAt(this, index, k);
    }

    /**
     * Compares a value (USERNAME, REALM, NONCE, USERHASH, SOFTWARE...) with expected bytes.
     *
     * @param index    attribute index.
     * @param expected bytes (borrowed).
     * @param from     first expected byte.
     * @param length   expected length.
     * @return true when the value is exactly those bytes.
     */
    public boolean valueEquals(final int index, final byte[] expected, final int from, final int length)
    {
        return attributeLength(index) == length && regionEquals(attributeValueOffset(index), expected, from, length);
    }

    /**
     * @param index  attribute index.
     * @param prefix bytes (borrowed), e.g. an ICE {@code "ufrag:"}.
     * @return true when the value starts with the prefix.
     */
    public boolean valueStartsWith(final int index, final byte[] prefix)
    {
        return attributeLength(index) >= prefix.length
            && regionEquals(attributeValueOffset(index), prefix, 0, prefix.length);
    }

    /**
     * @param index attribute index.
     * @param dst   destination (must hold {@link #attributeLength(int)} bytes from {@code at}).
     * @param at    first destination byte.
     * @return bytes copied.
     */
    public int copyValue(final int index, final byte[] dst, final int at)
    {
        final int length = attributeLength(index);
        final int value = attributeValueOffset(index);
        if (null != array)
        {
            System.arraycopy(array, value, dst, at, length);
        }
        else
        {
            buffer.get(value, dst, at, length);
        }
        return length;
    }

    /**
     * Decodes a value as UTF-8 (allocates; for diagnostics, tests and slow paths).
     *
     * @param index attribute index.
     * @return the value as a string.
     */
    public String valueAsString(final int index)
    {
        final byte[] bytes = new byte[attributeLength(index)];
        copyValue(index, bytes, 0);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------------------------------------ integrity

    /**
     * Checks MESSAGE-INTEGRITY (RFC 8489 §14.5): HMAC-SHA1 keyed by the credential over the header, with its length
     * field set to end just after MESSAGE-INTEGRITY, and every attribute before it. Constant-time comparison.
     *
     * @param integrity  the thread's engine.
     * @param credential the key.
     * @return {@link StunResult#VERIFIED}, {@code ABSENT}, {@code MISMATCH} or {@code BAD_ATTRIBUTE}.
     */
    public int verifyMessageIntegrity(final StunIntegrity integrity, final StunCredential credential)
    {
        return StunMessageVerifier.messageIntegrity(this, integrity, credential);
    }

    /**
     * Checks MESSAGE-INTEGRITY-SHA256 (RFC 8489 §14.6): HMAC-SHA256, possibly truncated to 16-32 bytes (a multiple
     * of 4), compared over the received length.
     *
     * @param integrity  the thread's engine.
     * @param credential the key.
     * @return {@link StunResult#VERIFIED}, {@code ABSENT}, {@code MISMATCH} or {@code BAD_ATTRIBUTE}.
     */
    public int verifyMessageIntegritySha256(final StunIntegrity integrity, final StunCredential credential)
    {
        return StunMessageVerifier.messageIntegritySha256(this, integrity, credential);
    }

    /**
     * Checks whichever integrity attribute is present, preferring MESSAGE-INTEGRITY-SHA256 (RFC 8489 §9.1.3).
     *
     * @param integrity  the thread's engine.
     * @param credential the key.
     * @return {@link StunResult#VERIFIED}, {@code ABSENT}, {@code MISMATCH} or {@code BAD_ATTRIBUTE}.
     */
    public int verifyIntegrity(final StunIntegrity integrity, final StunCredential credential)
    {
        return -1 != integritySha256Index ?
            verifyMessageIntegritySha256(integrity, credential) : verifyMessageIntegrity(integrity, credential);
    }

    /**
     * Checks FINGERPRINT (RFC 8489 §14.7): CRC-32 of the message up to the attribute, with the length field set to
     * end just after it, XOR 0x5354554e.
     *
     * @param integrity the thread's engine (holds the reusable {@code CRC32}).
     * @return {@link StunResult#VERIFIED}, {@code ABSENT}, {@code MISMATCH} or {@code BAD_ATTRIBUTE}.
     */
    public int verifyFingerprint(final StunIntegrity integrity)
    {
        return StunMessageVerifier.fingerprint(this, integrity);
    }

    @Override
    public String toString()
    {
        if (result < 0)
        {
            return "StunMessage[" + StunResult.name(result) + "]";
        }
        final StringBuilder sb = new StringBuilder(128);
        sb.append("StunMessage[type=0x").append(Integer.toHexString(messageType()))
            .append(" method=").append(method()).append(" class=").append(messageClass())
            .append(" length=").append(messageLength()).append(" tid=")
            .append(String.format("%08x%016x", transactionIdHigh(), transactionIdLow()));
        for (int i = 0; i < attributeCount; i++)
        {
            sb.append(' ').append(StunAttributeType.name(attributeType(i))).append('(').append(attributeLength(i))
                .append(')');
        }
        return sb.append(']').toString();
    }

    // ----------------------------------------------------------------------------------------------- internals

    private int index(final int offset, final int length)
    {
        this.offset = offset;
        if (length < HEADER_LENGTH)
        {
            return fail(StunResult.TOO_SHORT, 0);
        }
        if (0 != (u8(offset) & 0xC0))
        {
            return fail(StunResult.NOT_STUN, 0); // §5: the top two bits are zero
        }
        if (MAGIC_COOKIE != i32(offset + MAGIC_COOKIE_FIELD_OFFSET))
        {
            return fail(StunResult.BAD_MAGIC_COOKIE, 0);
        }
        final int messageLength = u16(offset + LENGTH_FIELD_OFFSET);
        if (0 != (messageLength & 3))
        {
            return fail(StunResult.BAD_LENGTH, 0);
        }
        if (HEADER_LENGTH + messageLength > length)
        {
            return fail(StunResult.TOO_SHORT, 0);
        }
        final int end = offset + HEADER_LENGTH + messageLength;
        int count = 0;
        int unknown = 0;
        int state = STATE_OPEN;
        integrityIndex = -1;
        integritySha256Index = -1;
        fingerprintIndex = -1;
        // Every step advances by at least 4 bytes and end - pos stays a multiple of 4: the loop ends.
        for (int pos = offset + HEADER_LENGTH; pos < end; )
        {
            final int type = u16(pos);
            final int next = pos + ATTRIBUTE_HEADER_LENGTH + ((u16(pos + 2) + 3) & ~3);
            if (next > end)
            {
                return fail(StunResult.ATTRIBUTE_OVERRUN, 0);
            }
            final boolean accept = STATE_OPEN == state
                || (STATE_AFTER_INTEGRITY == state
                    && (StunAttributeType.MESSAGE_INTEGRITY_SHA256 == type || StunAttributeType.FINGERPRINT == type))
                || (STATE_AFTER_INTEGRITY_SHA256 == state && StunAttributeType.FINGERPRINT == type);
            if (accept)
            {
                if (count == attributeOffsets.length)
                {
                    return fail(StunResult.TOO_MANY_ATTRIBUTES, 0);
                }
                if (StunAttributeType.MESSAGE_INTEGRITY == type)
                {
                    integrityIndex = count;
                    state = STATE_AFTER_INTEGRITY;
                }
                else if (StunAttributeType.MESSAGE_INTEGRITY_SHA256 == type)
                {
                    integritySha256Index = count;
                    state = STATE_AFTER_INTEGRITY_SHA256;
                }
                else if (StunAttributeType.FINGERPRINT == type)
                {
                    fingerprintIndex = count;
                    state = STATE_AFTER_FINGERPRINT;
                }
                else if (type < 0x8000 && !isKnown(type))
                {
                    unknown = rememberUnknown(unknown, type);
                }
                attributeOffsets[count++] = pos;
            }
            pos = next;
        }
        attributeCount = count;
        unknownCount = unknown;
        frameLength = HEADER_LENGTH + messageLength;
        result = 0 == unknown ? StunResult.OK : StunResult.UNKNOWN_COMPREHENSION_REQUIRED;
        return result;
    }

    private boolean isKnown(final int type)
    {
        return type < 64 && 0 != (knownComprehensionRequired & (1L << type));
    }

    private int rememberUnknown(final int count, final int type)
    {
        for (int k = 0; k < count; k++)
        {
            if (unknownTypes[k] == type)
            {
                return count;
            }
        }
        if (count < MAX_UNKNOWN_ATTRIBUTES)
        {
            unknownTypes[count] = type;
            return count + 1;
        }
        return count;
    }

    private int fail(final int code, final int frame)
    {
        attributeCount = 0;
        unknownCount = 0;
        integrityIndex = -1;
        integritySha256Index = -1;
        fingerprintIndex = -1;
        frameLength = frame;
        result = code;
        return code;
    }

    private boolean regionEquals(final int at, final byte[] expected, final int from, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            if (u8(at + i) != (expected[from + i] & 0xFF))
            {
                return false;
            }
        }
        return true;
    }

    private int u8(final int index)
    {
        return null != array ? array[index] & 0xFF : buffer.get(index) & 0xFF;
    }

    private int u16(final int index)
    {
        return (u8(index) << 8) | u8(index + 1);
    }

    private int i32(final int index)
    {
        if (null != array)
        {
            return (int)INT_BE.get(array, index);
        }
        return (u16(index) << 16) | u16(index + 2);
    }

    private long i64(final int index)
    {
        if (null != array)
        {
            return (long)LONG_BE.get(array, index);
        }
        return ((long)i32(index) << 32) | (i32(index + 4) & 0xFFFF_FFFFL);
    }
}
