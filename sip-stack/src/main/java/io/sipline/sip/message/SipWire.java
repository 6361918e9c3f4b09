package io.sipline.sip.message;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/**
 * Low-level writes of SIP text into a Netty buffer, shared by {@link SipMessageEditor} and {@link SipMessageBuilder}.
 * No intermediate {@code String}, {@code StringBuilder} or {@code byte[]}: characters go straight into the buffer
 * (UTF-8, RFC 3261 §7.3.1). Stateless; thread-safe.
 */
final class SipWire
{
    static final byte[] CRLF = {'\r', '\n'};
    static final byte[] COLON_SP = {':', ' '};
    static final byte[] COMMA_SP = {',', ' '};
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SIP_2_0 = "SIP/2.0".getBytes(StandardCharsets.US_ASCII);

    private SipWire()
    {
    }

    static void text(final ByteBuf out, final CharSequence s)
    {
        ByteBufUtil.writeUtf8(out, s);
    }

    static void header(final ByteBuf out, final CharSequence name, final CharSequence value)
    {
        ByteBufUtil.writeUtf8(out, name);
        out.writeBytes(COLON_SP);
        ByteBufUtil.writeUtf8(out, value);
        out.writeBytes(CRLF);
    }

    static void header(final ByteBuf out, final HeaderName name, final CharSequence value)
    {
        out.writeBytes(name.canonicalBytes());
        out.writeBytes(COLON_SP);
        ByteBufUtil.writeUtf8(out, value);
        out.writeBytes(CRLF);
    }

    /** Copies a header line from a parsed message as it was. */
    static void rawLine(final ByteBuf out, final SipMessage m, final int entry)
    {
        final int start = m.headerNameStart(entry);
        out.writeBytes(m.buffer(), start, m.headerLineEnd(entry) - start);
    }

    static void decimal(final ByteBuf out, final long value)
    {
        if (value < 0)
        {
            out.writeByte('-');
            decimal(out, -value);
            return;
        }
        if (value >= 10)
        {
            decimal(out, value / 10);
        }
        out.writeByte((int)('0' + value % 10));
    }

    /** Writes a long as 16 lower-case hex digits (ids, branches and tags without a String). */
    static void hex16(final ByteBuf out, final long value)
    {
        for (int shift = 60; shift >= 0; shift -= 4)
        {
            out.writeByte(HEX[(int)(value >>> shift) & 0xF]);
        }
    }

    static void contentLength(final ByteBuf out, final int length)
    {
        out.writeBytes(HeaderName.CONTENT_LENGTH.canonicalBytes());
        out.writeBytes(COLON_SP);
        decimal(out, length);
        out.writeBytes(CRLF);
    }

    static void statusLine(final ByteBuf out, final int status, final CharSequence reason)
    {
        out.writeBytes(SIP_2_0);
        out.writeByte(' ');
        decimal(out, status);
        out.writeByte(' ');
        if (null != reason)
        {
            ByteBufUtil.writeUtf8(out, reason);
        }
        out.writeBytes(CRLF);
    }

    /** A request line whose Request-URI is copied from {@code uriBytes[start, end)}. */
    static void requestLine(
        final ByteBuf out, final CharSequence method, final byte[] uriBytes, final int start, final int end)
    {
        ByteBufUtil.writeAscii(out, method);
        out.writeByte(' ');
        out.writeBytes(uriBytes, start, end - start);
        out.writeByte(' ');
        out.writeBytes(SIP_2_0);
        out.writeBytes(CRLF);
    }

    static void requestLine(final ByteBuf out, final CharSequence method, final CharSequence uri)
    {
        ByteBufUtil.writeAscii(out, method);
        out.writeByte(' ');
        ByteBufUtil.writeUtf8(out, uri);
        out.writeByte(' ');
        out.writeBytes(SIP_2_0);
        out.writeBytes(CRLF);
    }
}
