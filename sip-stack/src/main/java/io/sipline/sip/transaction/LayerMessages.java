package io.sipline.sip.transaction;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageBuilder;
import io.sipline.sip.message.SipMessageParser;

/**
 * The messages the {@link TransactionLayer} writes itself: the INVITE server transaction's {@code 100 Trying}
 * (RFC 3261 §17.2.1) and the INVITE client transaction's ACK for a 300-699 response (§17.1.1.3); and the To tag an
 * RFC 2543 ACK is matched with (§17.2.3), read back from a response sent.
 *
 * <p>Not thread-safe; one per layer, owned by its shard. Borrows the messages it reads; returns owned buffers.
 */
final class LayerMessages
{
    private final ByteBufAllocator allocator;
    private final SipMessageBuilder builder = new SipMessageBuilder();
    /** The layer's scratch message, for reading back its own buffers; never a caller's. */
    private final SipMessage scratch;

    LayerMessages(final ByteBufAllocator allocator, final SipMessage scratch)
    {
        this.allocator = allocator;
        this.scratch = scratch;
    }

    private static final String TRYING = "Trying";

    private static final byte[] ACK_PREFIX = "ACK ".getBytes(StandardCharsets.US_ASCII);

    private static final byte[] SIP_VERSION_CRLF = " SIP/2.0\r\n".getBytes(StandardCharsets.US_ASCII);

    private static final byte[] VIA_PREFIX = "Via: ".getBytes(StandardCharsets.US_ASCII);

    private static final byte[] CSEQ_PREFIX = "CSeq: ".getBytes(StandardCharsets.US_ASCII);

    private static final byte[] ACK_SUFFIX = " ACK\r\n".getBytes(StandardCharsets.US_ASCII);

    private static final byte[] ACK_TAIL =
        "Max-Forwards: 70\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private static final byte[] CRLF = {'\r', '\n'};

    /**
     * Builds {@code 100 Trying} for an INVITE (§8.2.6.1, §17.2.1), its top Via stamped for the source (§18.2.1,
     * RFC 3581 §4); returns an owned buffer.
     */
    ByteBuf buildTrying(final SipMessage invite, final InetSocketAddress source)
    {
        final ByteBuf out = allocator.buffer(invite.length() / 2 + 64);
        builder.startResponse(out, invite, 100, TRYING, null, source).end(null, 0, 0);
        return out;
    }

    /**
     * Builds the ACK for a 300-699 response (§17.1.1.3): Request-URI, Call-ID, From, CSeq number and Route of the
     * original request, only its top Via, the To of the response, CSeq method ACK.
     *
     * @param request  borrowed: the original INVITE this transaction retains.
     * @param response borrowed.
     * @return an owned buffer, or null when the request does not parse (see below).
     */
    ByteBuf buildAck(final ByteBuf request, final SipMessage response)
    {
        final SipMessage req = scratch;
        // Sending read only the request line, top Via and CSeq (RequestKeyReader): a header the writer got wrong
        // leaves no ACK to build; the transaction then waits out timer D without one.
        if (SipMessageParser.parseDatagram(request, req) != ParseResult.OK)
        {
            return null;
        }
        final byte[] b = req.buffer();
        final ByteBuf out = allocator.buffer(request.readableBytes());
        out.writeBytes(ACK_PREFIX);
        out.writeBytes(b, req.requestUriStart(), req.requestUriEnd() - req.requestUriStart());
        out.writeBytes(SIP_VERSION_CRLF);
        final int top = req.topVia();
        out.writeBytes(VIA_PREFIX);
        out.writeBytes(b, req.headerValueStart(top), req.headerValueEnd(top) - req.headerValueStart(top));
        out.writeBytes(CRLF);
        copyLines(out, req, HeaderName.ROUTE);
        copyLines(out, req, HeaderName.FROM);
        copyLines(out, response, HeaderName.TO);
        copyLines(out, req, HeaderName.CALL_ID);
        out.writeBytes(CSEQ_PREFIX);
        writeDecimal(out, req.cseqNumber());
        out.writeBytes(ACK_SUFFIX);
        out.writeBytes(ACK_TAIL);
        return out;
    }

    /** RFC 2543 ACK matching needs the To tag of the final response sent (§17.2.3). */
    void recordResponseToTag(final ServerTransaction tx, final ByteBuf response)
    {
        final SipMessage m = scratch;
        if (SipMessageParser.parseDatagram(response, m) == ParseResult.OK)
        {
            tx.segSet(Transaction.SEG_RESPONSE_TO_TAG, m.buffer(), m.toTagStart(), m.toTagEnd());
        }
    }

    private static void copyLines(final ByteBuf out, final SipMessage m, final HeaderName name)
    {
        for (int i = m.firstHeader(name); i >= 0; i = m.nextHeader(name, i))
        {
            if ((m.headerFlags(i) & SipMessage.FIRST_OF_LINE) != 0)
            {
                final int start = m.headerNameStart(i);
                out.writeBytes(m.buffer(), start, m.headerLineEnd(i) - start);
            }
        }
    }

    private static void writeDecimal(final ByteBuf out, final long value)
    {
        if (value >= 10)
        {
            writeDecimal(out, value / 10);
        }
        out.writeByte((int)('0' + value % 10));
    }

    /** Once a second, between two messages: the builder lets go of its spans into the last request. */
    void trim()
    {
        builder.forget();
    }
}
