package io.sipline.sip.transport;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageBuilder;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.message.ViaFlyweight;
import io.sipline.sip.message.ViaStamper;
import io.sipline.sip.shard.ShardIds;

/**
 * What the server answers before the container exists: a stateless UAS (RFC 3261 §8.2) that knows no application:
 * 200 to OPTIONS, 404 to an initial request, 481 to CANCEL or in-dialog requests, 483, the status of a malformed
 * request's {@code ParseResult}; ACKs and responses are absorbed (the whole table is on {@link #onMessage}).
 *
 * <p>Every answer is built in a pooled direct buffer, whose ownership passes to the shard's send (which sends or
 * releases it), to where RFC 3261 §18.2.2 and RFC 3581 §4 say ({@link ResponseAddress}). Its top Via is the
 * request's, stamped as the server transport stamps it on receipt: {@code received} with the source address when
 * sent-by differs from it (RFC 3261 §18.2.1), and when the request asked for {@code rport}, both {@code received}
 * and {@code rport=<source port>} (RFC 3581 §4). Every answer but a 100 carries a To tag when the request's To had
 * none (§8.2.6.2). The request is borrowed for the call.
 *
 * <p>To tags come from the shard's {@link ShardIds} (marker, shard index, 52 random bits; seeded from
 * {@link SecureRandom} per shard and process), so they name their shard as every id the stack makes does, and are
 * written straight into the buffer without a {@code String}.
 *
 * <p>Not thread-safe; owned by shard k's event loop: one responder per shard ({@link #factory()}).
 */
public final class StatelessResponder implements SipMessageHandler
{
    /** The methods a request may carry to reach an application once one is deployed (RFC 3261 §20.5). */
    public static final String ALLOW = "INVITE, ACK, CANCEL, BYE, OPTIONS, REGISTER, PRACK, SUBSCRIBE, NOTIFY, "
        + "PUBLISH, INFO, REFER, MESSAGE, UPDATE";
    public static final String ACCEPT = "application/sdp";
    /** JSR 289 §15: when no application matches an initial request, the container answers 404. */
    public static final String NO_APPLICATION = "No Application Deployed";

    private static final byte[] TO_LINE = "To: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TAG_PARAM = ";tag=".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CRLF = {'\r', '\n'};

    private final SipMessageBuilder builder = new SipMessageBuilder();
    private final ViaFlyweight via = new ViaFlyweight();
    /** Stamps received/rport into the top Via of each answer (RFC 3261 §18.2.1, RFC 3581 §4). */
    private final ViaStamper stamper = new ViaStamper();
    private final ShardIds ids;
    private final byte[] tag = new byte[ShardIds.ID_LENGTH];

    /** @param shard the owning shard's index, 0 to {@value ShardIds#MAX_SHARDS} - 1 (encoded in the To tags). */
    public StatelessResponder(final int shard)
    {
        this(new ShardIds(shard, new SecureRandom().nextLong()));
    }

    /**
     * A responder that takes its To tags from an id generator the caller owns (the {@code SipStack}'s shard shares
     * its own, so the tags of its stateless answers come from the same sequence as its other ids).
     *
     * @param ids used on the owning shard's thread only, as every caller of it must be.
     */
    public StatelessResponder(final ShardIds ids)
    {
        this.ids = ids;
    }

    /** One responder per shard. */
    public static SipMessageHandler.Factory factory()
    {
        return StatelessResponder::new;
    }

    /**
     * Answers as this table says:
     *
     * <pre>
     *  what came in                                       answer
     *  -------------------------------------------------  ------------------------------------------------------------
     *  ACK                                                none: absorbed (an ACK is never answered, RFC 3261 §17.1.1.3)
     *  any request but OPTIONS with Max-Forwards: 0       483 Too Many Hops (RFC 3261 §16.3 item 3)
     *  OPTIONS                                            200 OK with Allow, Accept: application/sdp, Supported (§11.2)
     *  CANCEL                                             481 Call/Transaction Does Not Exist (no transaction, §9.2)
     *  a request with a To tag (in a dialog we lack)      481 Call/Transaction Does Not Exist (§12.2.2)
     *  any other request                                  404 No Application Deployed (JSR 289: no application matched)
     *  a malformed request with Via/From/To/Call-ID/CSeq  its ParseResult's status and reason (400 Bad CSeq, 505, ...)
     *  a malformed request without them, a malformed ACK  dropped (nothing to address an answer with)
     *  a response                                         dropped (no client transaction sent anything yet)
     * </pre>
     */
    @Override
    public boolean onMessage(final UdpShardSockets shard, final SipMessage message, final InetSocketAddress source)
    {
        if (ParseResult.OK != message.result())
        {
            return answerMalformed(shard, message, source);
        }
        if (!message.isRequest())
        {
            return false;
        }
        final SipMethod method = message.method();
        if (SipMethod.ACK == method)
        {
            return true;
        }
        if (0 == message.maxForwards() && SipMethod.OPTIONS != method)
        {
            return respond(shard, message, source, 483, "Too Many Hops", false);
        }
        if (SipMethod.OPTIONS == method)
        {
            return respond(shard, message, source, 200, "OK", true);
        }
        if (SipMethod.CANCEL == method || message.toTagStart() >= 0)
        {
            return respond(shard, message, source, 481, "Call/Transaction Does Not Exist", false);
        }
        return respond(shard, message, source, 404, NO_APPLICATION, false);
    }

    /**
     * Answers a message that did not parse, statelessly (RFC 3261 §8.2, §21.4.1): a request that got far enough to be
     * addressed ({@link #answerable}) gets its {@link ParseResult}'s status and reason phrase ({@code 400 Bad CSeq},
     * {@code 505 Version Not Supported}, ...), sent from the socket it arrived on with the top Via stamped as for any
     * answer; an ACK, a response, or a request without its Via/From/To/Call-ID/CSeq gets nothing. Valid only during
     * {@link SipMessageHandler#onMessage} (it sends with {@link UdpShardSockets#send}). Counting per
     * {@code ParseResult} is the shard's ({@link ShardCounters#parseErrors}).
     *
     * @param message borrowed; its {@link SipMessage#result()} is not {@link ParseResult#OK}.
     * @param source  borrowed: who sent the datagram.
     * @return true when an answer was handed to the socket, false when the message was dropped (or the send failed).
     */
    public boolean answerMalformed(final UdpShardSockets shard, final SipMessage message,
        final InetSocketAddress source)
    {
        // RFC 3261 §8.2 / §21.4.1: a request we can address gets the reason; an ACK is never answered.
        if (!message.isRequest() || SipMethod.ACK == message.method() || !answerable(message))
        {
            return false;
        }
        final ParseResult result = message.result();
        return respond(shard, message, source, result.statusCode(), result.reasonPhrase(), false);
    }

    /**
     * The same answer as {@link #answerMalformed(UdpShardSockets, SipMessage, InetSocketAddress)} for a message read on
     * a connection, built but not sent: it goes back on the connection (RFC 3261 §18.2.2), which the caller holds.
     *
     * @param message borrowed; its {@link SipMessage#result()} is not {@link ParseResult#OK}.
     * @param source  borrowed: the connection's peer (stamped into the top Via as over UDP).
     * @return the answer, owned by the caller; null when the message gets none.
     */
    public ByteBuf malformedAnswer(final ByteBufAllocator allocator, final SipMessage message,
        final InetSocketAddress source)
    {
        if (!message.isRequest() || SipMethod.ACK == message.method() || !answerable(message))
        {
            return null;
        }
        message.via(message.topVia(), via);
        if (null != via.error())
        {
            return null;
        }
        final ParseResult result = message.result();
        final ByteBuf out = allocator.directBuffer(Math.min(message.length(), 2048) + 256);
        write(out, message, message.topVia(), source, result.statusCode(), result.reasonPhrase(), false);
        return out;
    }

    /**
     * True when a malformed request got far enough to be answered: a request line, and complete Via, From, To,
     * Call-ID and CSeq lines (what RFC 3261 §8.2.6.2 copies into a response).
     */
    static boolean answerable(final SipMessage m)
    {
        return m.isRequest() && m.topVia() >= 0 && m.callIdStart() >= 0 && m.cseqNumber() >= 0
            && complete(m, HeaderName.VIA) && complete(m, HeaderName.FROM) && complete(m, HeaderName.TO)
            && complete(m, HeaderName.CALL_ID) && complete(m, HeaderName.CSEQ);
    }

    private static boolean complete(final SipMessage m, final HeaderName name)
    {
        final int first = m.firstHeader(name);
        if (first < 0)
        {
            return false;
        }
        for (int i = first; i >= 0; i = m.nextHeader(name, i))
        {
            if ((m.headerFlags(i) & SipMessage.FIRST_OF_LINE) != 0 && m.headerLineEnd(i) < 0)
            {
                return false;
            }
        }
        return true;
    }

    private boolean respond(
        final UdpShardSockets shard,
        final SipMessage m,
        final InetSocketAddress source,
        final int status,
        final CharSequence reason,
        final boolean capabilities)
    {
        final int top = m.topVia();
        m.via(top, via);
        if (null != via.error())
        {
            return false;
        }
        final InetSocketAddress destination = ResponseAddress.select(via, source);
        final ByteBuf out = shard.allocate(Math.min(m.length(), 2048) + 256);
        boolean passed = false;
        try
        {
            write(out, m, top, source, status, reason, capabilities);
            passed = true;
            // Ownership of `out` passes to send(), which sends or releases it (UdpShardSockets's release rule).
            return shard.send(out, destination);
        }
        finally
        {
            if (!passed)
            {
                out.release();
            }
        }
    }

    /** Writes the whole answer; {@link #via} holds the request's top Via. */
    private void write(final ByteBuf out, final SipMessage m, final int top, final InetSocketAddress source,
        final int status, final CharSequence reason, final boolean capabilities)
    {
        builder.startResponse(out, status, reason);
        stamper.writeVias(out, m, source);
        builder.copyHeaderLines(m, HeaderName.FROM);
        writeTo(out, m, status);
        builder.copyHeaderLines(m, HeaderName.CALL_ID);
        builder.copyHeaderLines(m, HeaderName.CSEQ);
        if (capabilities)
        {
            // RFC 3261 §11.2: what an OPTIONS answer should say about the UAS.
            builder.header(HeaderName.ALLOW, ALLOW)
                .header(HeaderName.ACCEPT, ACCEPT)
                .header(HeaderName.SUPPORTED, "");
        }
        builder.end(null, 0, 0);
    }

    /** To, with our tag when the request's To has none (RFC 3261 §8.2.6.2; never on a 100). */
    private void writeTo(final ByteBuf out, final SipMessage m, final int status)
    {
        if (m.toTagStart() >= 0 || 100 == status)
        {
            builder.copyHeaderLines(m, HeaderName.TO);
            return;
        }
        final int to = m.firstHeader(HeaderName.TO);
        final int start = m.headerValueStart(to);
        out.writeBytes(TO_LINE);
        out.writeBytes(m.buffer(), start, m.headerValueEnd(to) - start);
        out.writeBytes(TAG_PARAM);
        ids.writeId(tag, 0);
        out.writeBytes(tag);
        out.writeBytes(CRLF);
    }

    /** Once a second, between two answers: the Via views let go of their spans into the last request. */
    public void trim()
    {
        via.forget();
        stamper.forget();
    }
}
