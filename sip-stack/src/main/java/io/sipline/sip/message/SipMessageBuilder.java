package io.sipline.sip.message;

import io.netty.buffer.ByteBuf;

/**
 * Writes a new request or response straight into a Netty buffer, header by header, in the order called:
 *
 * <pre>{@code
 * builder.startRequest(out, "OPTIONS", "sip:bob@example.com")
 *        .header(HeaderName.VIA, via).header(HeaderName.MAX_FORWARDS, 70) ... .end(null, 0, 0);
 *
 * builder.startResponse(out, request, 200, "OK", localTag)   // copies Via, From, To (+tag), Call-ID, CSeq
 *        .header("Contact", contact).end(sdp, 0, sdp.length);
 * }</pre>
 *
 * Content-Length is written by {@link #end} from the body it is given. Not thread-safe: one builder per shard; it
 * keeps no reference to anything once {@link #end} returns and allocates nothing.
 */
public final class SipMessageBuilder
{
    private ByteBuf out;
    private int startIndex;

    /**
     * Begins a request.
     *
     * @param out borrowed; bytes are appended at its writer index.
     */
    public SipMessageBuilder startRequest(final ByteBuf out, final CharSequence method, final CharSequence requestUri)
    {
        begin(out);
        SipWire.requestLine(out, method, requestUri);
        return this;
    }

    /** Begins a response with only its status line; add every header yourself. */
    public SipMessageBuilder startResponse(final ByteBuf out, final int status, final CharSequence reason)
    {
        begin(out);
        SipWire.statusLine(out, status, reason);
        return this;
    }

    /**
     * Begins a response to a request as a UAS builds one (RFC 3261 §8.2.6.2): the status line, then the request's
     * Via values in order, From, To (with {@code toTag} added when the request's To has none and the status is not
     * 100), Call-ID and CSeq copied as they were, and for a 100 the Timestamp (§8.2.6.1).
     *
     * @param request borrowed, parsed and OK.
     * @param toTag   the local tag, or null to leave To as it is.
     */
    public SipMessageBuilder startResponse(
        final ByteBuf out, final SipMessage request, final int status, final CharSequence reason,
        final CharSequence toTag)
    {
        return startResponse(out, request, status, reason, toTag, null);
    }

    /** Forgets its Via stamper's span into the last request it copied from: a kept builder holds no such array. */
    public void forget()
    {
        if (null != stamper)
        {
            stamper.forget();
        }
    }

    /**
     * As {@link #startResponse(ByteBuf, SipMessage, int, CharSequence, CharSequence)}, with the top Via stamped as
     * the server transport stamps it on receipt ({@link ViaStamper}: {@code received} per RFC 3261 §18.2.1,
     * {@code rport} per RFC 3581 §4).
     *
     * @param source where the request came from (for a request read on a connection, its flow); null copies the Via
     *               lines unchanged.
     */
    public SipMessageBuilder startResponse(
        final ByteBuf out, final SipMessage request, final int status, final CharSequence reason,
        final CharSequence toTag, final java.net.InetSocketAddress source)
    {
        begin(out);
        SipWire.statusLine(out, status, reason);
        if (null == source)
        {
            copyHeaderLines(request, HeaderName.VIA);
        }
        else
        {
            if (null == stamper)
            {
                stamper = new ViaStamper();
            }
            stamper.writeVias(out, request, source);
        }
        copyHeaderLines(request, HeaderName.FROM);
        final int to = request.firstHeader(HeaderName.TO);
        if (null != toTag && status != 100 && request.toTagStart() < 0)
        {
            final byte[] b = request.buffer();
            out.writeBytes(HeaderName.TO.canonicalBytes());
            out.writeBytes(SipWire.COLON_SP);
            final int vs = request.headerValueStart(to);
            out.writeBytes(b, vs, request.headerValueEnd(to) - vs);
            out.writeBytes(TAG_PARAM);
            SipWire.text(out, toTag);
            out.writeBytes(SipWire.CRLF);
        }
        else
        {
            copyHeaderLines(request, HeaderName.TO);
        }
        copyHeaderLines(request, HeaderName.CALL_ID);
        copyHeaderLines(request, HeaderName.CSEQ);
        if (status == 100)
        {
            copyHeaderLines(request, HeaderName.TIMESTAMP);
        }
        return this;
    }

    /**
     * Begins a request inside the dialog that a 2xx to an INVITE established, as its UAC writes it (RFC 3261
     * §12.2.1.1): the remote target (the 2xx's Contact URI, §12.1.2) as Request-URI, the given Via, a Route of the
     * 2xx's Record-Route values in reverse order (the route set, §12.1.2; loose routers assumed), Max-Forwards 70,
     * From, To (with the remote tag) and Call-ID copied from the 2xx as they were, and {@code CSeq: cseq method}. For
     * the ACK of a 2xx, {@code cseq} is the INVITE's number (§13.2.2.4). Add any other header, then {@link #end}.
     *
     * <p>A 2xx without a usable Contact (which §12.1.1 forbids) gets its To URI as Request-URI.
     *
     * @param out borrowed; bytes are appended at its writer index.
     * @param ok  borrowed, a parsed 2xx; nothing of it is kept.
     * @param via the Via value (a new branch: §8.1.1.7, and §17.1.1.3 for the ACK of a 2xx).
     */
    public SipMessageBuilder startRequestInDialog(
        final ByteBuf out, final SipMessage ok, final CharSequence method, final long cseq, final CharSequence via)
    {
        begin(out);
        if (null == address)
        {
            address = new NameAddrFlyweight();
        }
        if (!wrapAddress(ok, HeaderName.CONTACT) || address.isWildcard())
        {
            wrapAddress(ok, HeaderName.TO);
        }
        SipWire.requestLine(out, method, ok.buffer(), address.uriStart(), address.uriEnd());
        SipWire.header(out, HeaderName.VIA, via);
        boolean first = true;
        for (int i = ok.headerCount() - 1; i >= 0; i--)
        {
            if (ok.headerName(i) == HeaderName.RECORD_ROUTE)
            {
                out.writeBytes(first ? ROUTE_PREFIX : SipWire.COMMA_SP);
                out.writeBytes(ok.buffer(), ok.headerValueStart(i), ok.headerValueEnd(i) - ok.headerValueStart(i));
                first = false;
            }
        }
        if (!first)
        {
            out.writeBytes(SipWire.CRLF);
        }
        header(HeaderName.MAX_FORWARDS, MAX_FORWARDS);
        copyHeaderLines(ok, HeaderName.FROM).copyHeaderLines(ok, HeaderName.TO).copyHeaderLines(ok, HeaderName.CALL_ID);
        out.writeBytes(HeaderName.CSEQ.canonicalBytes());
        out.writeBytes(SipWire.COLON_SP);
        SipWire.decimal(out, cseq);
        out.writeByte(' ');
        SipWire.text(out, method);
        out.writeBytes(SipWire.CRLF);
        return this;
    }

    /** Max-Forwards of the requests this builder starts inside a dialog (RFC 3261 §8.1.1.6). */
    private static final int MAX_FORWARDS = 70;
    private static final byte[] ROUTE_PREFIX = {'R', 'o', 'u', 't', 'e', ':', ' '};
    /** Made on first use of {@link #startRequestInDialog}. */
    private NameAddrFlyweight address;

    private boolean wrapAddress(final SipMessage m, final HeaderName name)
    {
        final int i = m.firstHeader(name);
        return i >= 0 && address.wrap(m.buffer(), m.headerValueStart(i), m.headerValueEnd(i));
    }

    private static final byte[] TAG_PARAM = {';', 't', 'a', 'g', '='};
    /** Made on first use of the stamping {@code startResponse}. */
    private ViaStamper stamper;

    /**
     * Copies every line of a header from a parsed message as raw bytes. A line holding several values of a list
     * header is copied once, whole.
     */
    public SipMessageBuilder copyHeaderLines(final SipMessage from, final HeaderName name)
    {
        for (int i = from.firstHeader(name); i >= 0; i = from.nextHeader(name, i))
        {
            if ((from.headerFlags(i) & SipMessage.FIRST_OF_LINE) != 0)
            {
                SipWire.rawLine(out, from, i);
            }
        }
        return this;
    }

    public SipMessageBuilder header(final HeaderName name, final CharSequence value)
    {
        SipWire.header(out, name, value);
        return this;
    }

    public SipMessageBuilder header(final CharSequence name, final CharSequence value)
    {
        SipWire.header(out, name, value);
        return this;
    }

    /** A header with a decimal value (Max-Forwards, Expires, RSeq, ...), written without a String. */
    public SipMessageBuilder header(final HeaderName name, final long value)
    {
        out.writeBytes(name.canonicalBytes());
        out.writeBytes(SipWire.COLON_SP);
        SipWire.decimal(out, value);
        out.writeBytes(SipWire.CRLF);
        return this;
    }

    /**
     * A Via value for a branch made of the magic cookie and a 64-bit id in hex (RFC 3261 §8.1.1.7), e.g.
     * {@code Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK00000000000004d2;rport}.
     */
    public SipMessageBuilder via(
        final CharSequence transport, final CharSequence host, final int port, final long branchId,
        final boolean rport)
    {
        out.writeBytes(HeaderName.VIA.canonicalBytes());
        out.writeBytes(VIA_PREFIX);
        SipWire.text(out, transport);
        out.writeByte(' ');
        SipWire.text(out, host);
        if (port > 0)
        {
            out.writeByte(':');
            SipWire.decimal(out, port);
        }
        out.writeBytes(BRANCH_PREFIX);
        SipWire.hex16(out, branchId);
        if (rport)
        {
            out.writeBytes(RPORT);
        }
        out.writeBytes(SipWire.CRLF);
        return this;
    }

    private static final byte[] VIA_PREFIX = {':', ' ', 'S', 'I', 'P', '/', '2', '.', '0', '/'};
    private static final byte[] BRANCH_PREFIX =
        {';', 'b', 'r', 'a', 'n', 'c', 'h', '=', 'z', '9', 'h', 'G', '4', 'b', 'K'};
    private static final byte[] RPORT = {';', 'r', 'p', 'o', 'r', 't'};

    /**
     * Ends the message: Content-Length, the empty line and the body.
     *
     * @param body borrowed; null for no body.
     * @return bytes written since the start call.
     */
    public int end(final byte[] body, final int offset, final int length)
    {
        final int len = null == body ? 0 : length;
        SipWire.contentLength(out, len);
        out.writeBytes(SipWire.CRLF);
        if (len > 0)
        {
            out.writeBytes(body, offset, len);
        }
        final int written = out.writerIndex() - startIndex;
        out = null;
        return written;
    }

    private void begin(final ByteBuf buffer)
    {
        out = buffer;
        startIndex = buffer.writerIndex();
    }
}
