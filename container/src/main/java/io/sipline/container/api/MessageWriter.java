package io.sipline.container.api;

import io.netty.buffer.ByteBuf;

/**
 * Serializes the container's messages straight into a pooled buffer: the start line, the container's Via for
 * requests, the header section (raw spans of the base bytes where nothing changed), the Content-Length computed from
 * the body, and the body.
 * <p>
 * Threading: stateless.
 */
public final class MessageWriter
{
    private static final byte[] SIP_VERSION = {'S', 'I', 'P', '/', '2', '.', '0'};
    private static final byte[] VIA = {'V', 'i', 'a', ':', ' '};
    private static final byte[] CONTENT_LENGTH = {'C', 'o', 'n', 't', 'e', 'n', 't', '-', 'L', 'e', 'n', 'g', 't',
        'h', ':', ' '};

    private MessageWriter()
    {
    }

    /** Bytes a buffer should start with for this message (it grows if needed). */
    public static int estimate(final SipServletMessageImpl m)
    {
        final int base = m.headers().baseLength();
        return 256 + (base < 0 ? 256 : base) + m.bodyLength();
    }

    /**
     * Writes a request with {@code via} as its top Via ({@code SIP/2.0/UDP host:port;branch=...;rport}).
     *
     * @param out borrowed; bytes appended.
     */
    public static void writeRequest(final ByteBuf out, final SipServletRequestImpl request, final CharSequence via)
    {
        request.syncParties();
        text(out, request.getMethod());
        out.writeByte(' ');
        final byte[] uri = request.requestUriWire();
        final int span = request.requestUriSpan();
        if (null != uri)
        {
            out.writeBytes(uri);
        }
        else if (span >= 0)
        {
            out.writeBytes(request.headers().bytes(), span >>> 16, (span & 0xFFFF) - (span >>> 16));
        }
        else
        {
            text(out, request.requestUriText());
        }
        out.writeByte(' ');
        out.writeBytes(SIP_VERSION);
        crlf(out);
        if (null != via)
        {
            out.writeBytes(VIA);
            text(out, via);
            crlf(out);
        }
        request.headers().writeTo(out);
        end(out, request);
    }

    /** Writes a response. */
    public static void writeResponse(final ByteBuf out, final SipServletResponseImpl response)
    {
        response.syncParties();
        out.writeBytes(SIP_VERSION);
        out.writeByte(' ');
        decimal(out, response.getStatus());
        out.writeByte(' ');
        text(out, response.getReasonPhrase());
        crlf(out);
        response.headers().writeTo(out, response.skippedHeader());
        end(out, response);
    }

    private static void end(final ByteBuf out, final SipServletMessageImpl m)
    {
        out.writeBytes(CONTENT_LENGTH);
        decimal(out, m.bodyLength());
        crlf(out);
        crlf(out);
        if (m.bodyLength() > 0)
        {
            out.writeBytes(m.bodyBytes());
        }
    }

    private static void text(final ByteBuf out, final CharSequence s)
    {
        Utf8Text.write(out, s);
    }

    private static void decimal(final ByteBuf out, final int value)
    {
        if (value >= 10)
        {
            decimal(out, value / 10);
        }
        out.writeByte('0' + value % 10);
    }

    private static void crlf(final ByteBuf out)
    {
        out.writeShort(MessageHeaders.CRLF);
    }
}
