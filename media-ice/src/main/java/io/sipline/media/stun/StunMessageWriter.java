package io.sipline.media.stun;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Encodes a STUN message in place into a caller's array (layout in {@link StunMessageFlyweight}): the header first,
 * then attributes, each padded to 4 bytes, with the header's length field kept current after every attribute so that
 * MESSAGE-INTEGRITY, MESSAGE-INTEGRITY-SHA256 and FINGERPRINT, added last in that order, are computed over exactly
 * the bytes RFC 8489 §14.5-§14.7 name.
 *
 * <pre>{@code
 * final int length = writer.wrap(buf, 0, buf.length)
 *     .header(StunMessageType.BINDING_REQUEST, tidHigh, tidLow)
 *     .addU32(StunAttributeType.PRIORITY, priority)
 *     .addU64(StunAttributeType.ICE_CONTROLLING, tieBreaker)
 *     .addBytes(StunAttributeType.USERNAME, username, 0, username.length)
 *     .addMessageIntegrity(integrity, remotePassword)
 *     .addFingerprint(integrity)
 *     .length();                    // -1 when the buffer was too small
 * }</pre>
 *
 * <p>Overflow does not throw: the writer stops writing, and {@link #length()} returns -1. Padding bytes are zero
 * unless {@link #paddingByte(int)} says otherwise (receivers ignore them, RFC 8489 §14; RFC 5769 pads with spaces).
 *
 * <p>Not thread-safe; owned by one media thread. Borrows the array until the next wrap. Allocates nothing.
 */
public final class StunMessageWriter
{
    private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG_BE =
        MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final int HEADER = StunMessageFlyweight.HEADER_LENGTH;

    private byte[] buf;
    private int offset;
    private int limit;
    private int position;
    private boolean overflow;
    private byte padding;

    /**
     * Points the writer at a region and forgets any previous message. Padding returns to zero.
     *
     * @param buf      destination (borrowed).
     * @param offset   first byte of the message.
     * @param capacity bytes available.
     * @return this.
     */
    public StunMessageWriter wrap(final byte[] buf, final int offset, final int capacity)
    {
        this.buf = buf;
        this.offset = offset;
        this.limit = offset + Math.min(capacity, buf.length - offset);
        this.position = offset;
        this.overflow = capacity < HEADER || offset < 0 || offset + HEADER > buf.length;
        this.padding = 0;
        return this;
    }

    /**
     * @param value byte written into padding from now on (RFC 5769 uses 0x20).
     * @return this.
     */
    public StunMessageWriter paddingByte(final int value)
    {
        padding = (byte)value;
        return this;
    }

    /**
     * Writes the header with length 0.
     *
     * @param messageType 14-bit type (see {@link StunMessageType}).
     * @param tidHigh     first 4 bytes of the transaction id.
     * @param tidLow      last 8 bytes.
     * @return this.
     */
    public StunMessageWriter header(final int messageType, final int tidHigh, final long tidLow)
    {
        if (overflow)
        {
            return this;
        }
        buf[offset] = (byte)((messageType >>> 8) & 0x3F);
        buf[offset + 1] = (byte)messageType;
        buf[offset + 2] = 0;
        buf[offset + 3] = 0;
        INT_BE.set(buf, offset + StunMessageFlyweight.MAGIC_COOKIE_FIELD_OFFSET, StunMessageFlyweight.MAGIC_COOKIE);
        INT_BE.set(buf, offset + StunMessageFlyweight.TRANSACTION_ID_FIELD_OFFSET, tidHigh);
        LONG_BE.set(buf, offset + StunMessageFlyweight.TRANSACTION_ID_FIELD_OFFSET + 4, tidLow);
        position = offset + HEADER;
        return this;
    }

    /**
     * Writes the header copying the transaction id from a received message (for a response).
     *
     * @param messageType 14-bit type.
     * @param request     the message answered.
     * @return this.
     */
    public StunMessageWriter header(final int messageType, final StunMessageFlyweight request)
    {
        return header(messageType, request.transactionIdHigh(), request.transactionIdLow());
    }

    /**
     * @param type  attribute type.
     * @param value bytes (borrowed, copied).
     * @param from  first byte.
     * @param len   value length.
     * @return this.
     */
    public StunMessageWriter addBytes(final int type, final byte[] value, final int from, final int len)
    {
        final int at = begin(type, len);
        if (at >= 0)
        {
            System.arraycopy(value, from, buf, at, len);
            end(at, len);
        }
        return this;
    }

    /**
     * Adds an attribute whose value is an ASCII string (SOFTWARE, REALM...). Characters above 0x7F are not
     * encoded as UTF-8 here: use {@link #addBytes} for those.
     *
     * @param type  attribute type.
     * @param ascii the value.
     * @return this.
     */
    public StunMessageWriter addAscii(final int type, final CharSequence ascii)
    {
        final int len = ascii.length();
        final int at = begin(type, len);
        if (at >= 0)
        {
            for (int i = 0; i < len; i++)
            {
                buf[at + i] = (byte)ascii.charAt(i);
            }
            end(at, len);
        }
        return this;
    }

    /**
     * @param type attribute type with no value (USE-CANDIDATE, DONT-FRAGMENT).
     * @return this.
     */
    public StunMessageWriter addEmpty(final int type)
    {
        final int at = begin(type, 0);
        if (at >= 0)
        {
            end(at, 0);
        }
        return this;
    }

    /**
     * @param type  attribute with a 4-byte value (PRIORITY, LIFETIME).
     * @param value the value.
     * @return this.
     */
    public StunMessageWriter addU32(final int type, final int value)
    {
        final int at = begin(type, 4);
        if (at >= 0)
        {
            INT_BE.set(buf, at, value);
            end(at, 4);
        }
        return this;
    }

    /**
     * @param type  attribute with an 8-byte value (ICE-CONTROLLED, ICE-CONTROLLING).
     * @param value the value.
     * @return this.
     */
    public StunMessageWriter addU64(final int type, final long value)
    {
        final int at = begin(type, 8);
        if (at >= 0)
        {
            LONG_BE.set(buf, at, value);
            end(at, 8);
        }
        return this;
    }

    /**
     * Adds an address attribute, XORed when the type is an XOR-*-ADDRESS (RFC 8489 §14.1, §14.2). The transaction id
     * must already be written ({@link #header}).
     *
     * @param type    MAPPED-ADDRESS, XOR-MAPPED-ADDRESS, XOR-PEER-ADDRESS, XOR-RELAYED-ADDRESS, ALTERNATE-SERVER.
     * @param address family, port and bytes.
     * @return this.
     */
    public StunMessageWriter addAddress(final int type, final StunAddress address)
    {
        final int addressLength = address.addressLength();
        if (0 == addressLength)
        {
            overflow = true; // nothing sensible to write; make the result unusable rather than wrong
            return this;
        }
        final int at = begin(type, 4 + addressLength);
        if (at >= 0)
        {
            final boolean xor = StunAttributeType.isXorAddress(type);
            buf[at] = 0;
            buf[at + 1] = (byte)address.family();
            final int port = address.port() ^ (xor ? StunMessageFlyweight.MAGIC_COOKIE >>> 16 : 0);
            buf[at + 2] = (byte)(port >>> 8);
            buf[at + 3] = (byte)port;
            final int key = offset + StunMessageFlyweight.MAGIC_COOKIE_FIELD_OFFSET; // cookie || transaction id
            for (int k = 0; k < addressLength; k++)
            {
                buf[at + 4 + k] = (byte)(address.addressByte(k) ^ (xor ? buf[key + k] & 0xFF : 0));
            }
            end(at, 4 + addressLength);
        }
        return this;
    }

    /**
     * Adds ERROR-CODE (RFC 8489 §14.8) with an ASCII reason phrase.
     *
     * @param code   300-699.
     * @param reason reason phrase (ASCII).
     * @return this.
     */
    public StunMessageWriter addErrorCode(final int code, final CharSequence reason)
    {
        final int len = 4 + reason.length();
        final int at = begin(StunAttributeType.ERROR_CODE, len);
        if (at >= 0)
        {
            buf[at] = 0;
            buf[at + 1] = 0;
            buf[at + 2] = (byte)((code / 100) & 0x07);
            buf[at + 3] = (byte)(code % 100);
            for (int i = 0; i < reason.length(); i++)
            {
                buf[at + 4 + i] = (byte)reason.charAt(i);
            }
            end(at, len);
        }
        return this;
    }

    /**
     * Adds UNKNOWN-ATTRIBUTES (RFC 8489 §14.13) listing the unknown types a flyweight found.
     *
     * @param request the message whose unknown comprehension-required types to list.
     * @return this.
     */
    public StunMessageWriter addUnknownAttributes(final StunMessageFlyweight request)
    {
        final int count = request.unknownAttributeCount();
        final int at = begin(StunAttributeType.UNKNOWN_ATTRIBUTES, 2 * count);
        if (at >= 0)
        {
            for (int k = 0; k < count; k++)
            {
                final int type = request.unknownAttributeType(k);
                buf[at + 2 * k] = (byte)(type >>> 8);
                buf[at + 2 * k + 1] = (byte)type;
            }
            end(at, 2 * count);
        }
        return this;
    }

    /**
     * Adds PASSWORD-ALGORITHM (RFC 8489 §14.12) without parameters.
     *
     * @param algorithm {@link StunCredential#ALGORITHM_MD5} or {@link StunCredential#ALGORITHM_SHA256}.
     * @return this.
     */
    public StunMessageWriter addPasswordAlgorithm(final int algorithm)
    {
        final int at = begin(StunAttributeType.PASSWORD_ALGORITHM, 4);
        if (at >= 0)
        {
            INT_BE.set(buf, at, (algorithm & 0xFFFF) << 16);
            end(at, 4);
        }
        return this;
    }

    /**
     * Adds MESSAGE-INTEGRITY (RFC 8489 §14.5): HMAC-SHA1 over everything so far, with the length field counting the
     * attribute itself.
     *
     * @param integrity  the thread's engine.
     * @param credential the key.
     * @return this.
     */
    public StunMessageWriter addMessageIntegrity(final StunIntegrity integrity, final StunCredential credential)
    {
        return addHmac(StunAttributeType.MESSAGE_INTEGRITY, StunIntegrity.SHA1, StunIntegrity.SHA1_LENGTH,
            integrity, credential);
    }

    /**
     * Adds MESSAGE-INTEGRITY-SHA256 (RFC 8489 §14.6), full length (32 bytes).
     *
     * @param integrity  the thread's engine.
     * @param credential the key.
     * @return this.
     */
    public StunMessageWriter addMessageIntegritySha256(final StunIntegrity integrity, final StunCredential credential)
    {
        return addMessageIntegritySha256(integrity, credential, StunIntegrity.SHA256_LENGTH);
    }

    /**
     * Adds MESSAGE-INTEGRITY-SHA256 truncated to {@code length} bytes (16-32, a multiple of 4; RFC 8489 §14.6).
     *
     * @param integrity  the thread's engine.
     * @param credential the key.
     * @param length     value length.
     * @return this.
     */
    public StunMessageWriter addMessageIntegritySha256(
        final StunIntegrity integrity, final StunCredential credential, final int length)
    {
        if (length < 16 || length > StunIntegrity.SHA256_LENGTH || 0 != (length & 3))
        {
            throw new IllegalArgumentException("MESSAGE-INTEGRITY-SHA256 length must be 16..32, a multiple of 4");
        }
        return addHmac(StunAttributeType.MESSAGE_INTEGRITY_SHA256, StunIntegrity.SHA256, length, integrity, credential);
    }

    /**
     * Adds FINGERPRINT (RFC 8489 §14.7); must be last.
     *
     * @param integrity the thread's engine (for its CRC-32).
     * @return this.
     */
    public StunMessageWriter addFingerprint(final StunIntegrity integrity)
    {
        final int at = begin(StunAttributeType.FINGERPRINT, 4);
        if (at >= 0)
        {
            final int covered = at - 4 - offset;
            end(at, 4); // the length field now counts FINGERPRINT
            final int value = integrity.fingerprint(buf, null, offset, covered, covered + 8 - HEADER);
            INT_BE.set(buf, at, value);
        }
        return this;
    }

    /**
     * @return bytes written from the wrap offset, or -1 when the buffer was too small or the header never written.
     */
    public int length()
    {
        return overflow || position < offset + HEADER ? -1 : position - offset;
    }

    /**
     * @return true when something did not fit.
     */
    public boolean isOverflow()
    {
        return overflow;
    }

    private StunMessageWriter addHmac(
        final int type,
        final int algorithm,
        final int length,
        final StunIntegrity integrity,
        final StunCredential credential)
    {
        final int at = begin(type, length);
        if (at >= 0)
        {
            final int covered = at - 4 - offset;
            end(at, length); // the length field now ends after this attribute, as §14.5/§14.6 require
            integrity.hmac(algorithm, credential, buf, null, offset, covered, covered + 4 + length - HEADER);
            System.arraycopy(integrity.outputArray(), 0, buf, at, length);
        }
        return this;
    }

    /** Writes the attribute header and returns the value position, or -1 on overflow. */
    private int begin(final int type, final int len)
    {
        if (overflow || position < offset + HEADER)
        {
            overflow = true;
            return -1;
        }
        final int padded = (len + 3) & ~3;
        if (len > 0xFFFF || position + 4 + padded > limit || position + 4 + padded - offset - HEADER > 0xFFFF)
        {
            overflow = true;
            return -1;
        }
        buf[position] = (byte)(type >>> 8);
        buf[position + 1] = (byte)type;
        buf[position + 2] = (byte)(len >>> 8);
        buf[position + 3] = (byte)len;
        return position + 4;
    }

    /** Pads the value, advances and updates the header's length field. */
    private void end(final int at, final int len)
    {
        final int padded = (len + 3) & ~3;
        for (int i = len; i < padded; i++)
        {
            buf[at + i] = padding;
        }
        position = at + padded;
        final int messageLength = position - offset - HEADER;
        buf[offset + 2] = (byte)(messageLength >>> 8);
        buf[offset + 3] = (byte)messageLength;
    }
}
