package io.sipline.sip.transport;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;

import io.netty.buffer.ByteBuf;
import io.netty.util.NetUtil;
import io.sipline.sip.message.Ascii;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageBuilder;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.message.ViaFlyweight;
import io.sipline.sip.shard.ShardIds;

/**
 * What the server answers before the container exists: a stateless UAS (RFC 3261 §8.2) that knows no application.
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
 *
 * Every answer is built in a pooled direct buffer and sent where RFC 3261 §18.2.2 and RFC 3581 §4 say
 * ({@link ResponseAddress}). Its top Via is the request's, stamped as the server transport stamps it on receipt:
 * {@code received} with the source address when sent-by differs from it (RFC 3261 §18.2.1), and when the request
 * asked for {@code rport}, both {@code received} and {@code rport=<source port>} (RFC 3581 §4). Every answer but a
 * 100 carries a To tag when the request's To had none (§8.2.6.2).
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

    private static final byte[] VIA_LINE = "Via: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TO_LINE = "To: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TAG_PARAM = ";tag=".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RECEIVED_PARAM = ";received=".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CRLF = {'\r', '\n'};
    private static final int RPORT_EDIT = 1;
    private static final int RECEIVED_EDIT = 2;

    private final SipMessageBuilder builder = new SipMessageBuilder();
    private final ViaFlyweight via = new ViaFlyweight();
    private final ShardIds ids;
    private final byte[] tag = new byte[ShardIds.ID_LENGTH];

    /** One-entry cache of the last source address as text, for {@code received}: a peer sends many requests. */
    private InetAddress cachedAddress;
    private byte[] cachedAddressText = new byte[0];
    /** The same address as the JDK writes it (IPv6 uncompressed, "0:0:0:0:0:0:0:1"), which peers also put in Vias. */
    private byte[] cachedAddressLongText = new byte[0];

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

    @Override
    public boolean onMessage(final UdpShard shard, final SipMessage message, final InetSocketAddress source)
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
     * {@link SipMessageHandler#onMessage} (it sends with {@link UdpShard#send}). Counting per {@code ParseResult} is
     * the shard's ({@link ShardCounters#parseErrors}).
     *
     * @param message borrowed; its {@link SipMessage#result()} is not {@link ParseResult#OK}.
     * @param source  borrowed: who sent the datagram.
     * @return true when an answer was handed to the socket, false when the message was dropped (or the send failed).
     */
    public boolean answerMalformed(final UdpShard shard, final SipMessage message, final InetSocketAddress source)
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
        final UdpShard shard,
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
            builder.startResponse(out, status, reason);
            writeVias(out, m, top, source);
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
            passed = true;
            // Ownership of `out` passes to send(), which sends or releases it (UdpShard's release rule).
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

    /**
     * The Via lines of the response: the top one stamped with received/rport when RFC 3261 §18.2.1 or RFC 3581 §4
     * asks for it, the others as they came.
     */
    private void writeVias(final ByteBuf out, final SipMessage m, final int top, final InetSocketAddress source)
    {
        final byte[] address = addressText(source.getAddress());
        final boolean rport = via.rportIndex() >= 0;
        final boolean received = rport || !sentByIs(address);
        if (!received)
        {
            builder.copyHeaderLines(m, HeaderName.VIA);
            return;
        }
        out.writeBytes(VIA_LINE);
        writeStampedVia(out, address, rport ? source.getPort() : -1);
        out.writeBytes(CRLF);
        // The rest: values that shared the top's line get a line each; later lines are copied whole.
        final byte[] b = m.buffer();
        boolean lineCopied = false;
        for (int i = m.nextHeader(HeaderName.VIA, top); i >= 0; i = m.nextHeader(HeaderName.VIA, i))
        {
            if ((m.headerFlags(i) & SipMessage.FIRST_OF_LINE) != 0)
            {
                final int start = m.headerNameStart(i);
                out.writeBytes(b, start, m.headerLineEnd(i) - start);
                lineCopied = true;
            }
            else if (!lineCopied)
            {
                out.writeBytes(VIA_LINE);
                out.writeBytes(b, m.headerValueStart(i), m.headerValueEnd(i) - m.headerValueStart(i));
                out.writeBytes(CRLF);
            }
        }
    }

    /**
     * The top Via value with {@code received=<address>} set (replaced or appended) and, when {@code rport} is not
     * negative, the rport parameter given that value. Copies the bytes between the edits as they are.
     */
    private void writeStampedVia(final ByteBuf out, final byte[] address, final int rport)
    {
        final byte[] b = via.buffer();
        final int received = via.receivedIndex();
        final int rportParam = rport >= 0 ? via.rportIndex() : -1;
        // Up to two edits inside the value, applied in the order they occur.
        int firstKind = 0;
        int secondKind = 0;
        if (received >= 0 && rportParam >= 0)
        {
            final boolean receivedFirst = via.paramNameStart(received) < via.paramNameStart(rportParam);
            firstKind = receivedFirst ? RECEIVED_EDIT : RPORT_EDIT;
            secondKind = receivedFirst ? RPORT_EDIT : RECEIVED_EDIT;
        }
        else if (received >= 0)
        {
            firstKind = RECEIVED_EDIT;
        }
        else if (rportParam >= 0)
        {
            firstKind = RPORT_EDIT;
        }
        int p = via.start();
        p = edit(out, b, p, firstKind, received, rportParam, address, rport);
        p = edit(out, b, p, secondKind, received, rportParam, address, rport);
        out.writeBytes(b, p, via.end() - p);
        if (received < 0)
        {
            out.writeBytes(RECEIVED_PARAM);
            out.writeBytes(address);
        }
    }

    /** Copies up to the edited parameter's value, writes the new value, returns where copying resumes. */
    private int edit(
        final ByteBuf out,
        final byte[] b,
        final int from,
        final int kind,
        final int received,
        final int rportParam,
        final byte[] address,
        final int rport)
    {
        if (0 == kind)
        {
            return from;
        }
        final int param = RECEIVED_EDIT == kind ? received : rportParam;
        final int valueStart = via.paramValueStart(param);
        final int at = valueStart >= 0 ? valueStart : via.paramNameEnd(param);
        final int resume = valueStart >= 0 ? via.paramValueEnd(param) : at;
        out.writeBytes(b, from, at - from);
        if (valueStart < 0)
        {
            out.writeByte('=');
        }
        if (RECEIVED_EDIT == kind)
        {
            out.writeBytes(address);
        }
        else
        {
            writeDecimal(out, rport);
        }
        return resume;
    }

    /**
     * True when the top Via's sent-by host is the source address, as text (IPv6 brackets aside, compressed or
     * not). Another spelling of the same address only costs a needless {@code received}, which RFC 3261 allows.
     */
    private boolean sentByIs(final byte[] address)
    {
        final byte[] b = via.buffer();
        int s = via.hostStart();
        int e = via.hostEnd();
        if (e - s >= 2 && b[s] == '[' && b[e - 1] == ']')
        {
            s++;
            e--;
        }
        return Ascii.equalsIgnoreCase(b, s, e, address) || Ascii.equalsIgnoreCase(b, s, e, cachedAddressLongText);
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

    /** The source address as the text {@code received} carries (IPv6 without brackets, RFC 3261 §25.1, RFC 5118). */
    private byte[] addressText(final InetAddress address)
    {
        if (!address.equals(cachedAddress))
        {
            cachedAddress = address;
            cachedAddressText = NetUtil.toAddressString(address).getBytes(StandardCharsets.US_ASCII);
            final String jdk = address.getHostAddress();
            final int scope = jdk.indexOf('%');
            cachedAddressLongText = (scope < 0 ? jdk : jdk.substring(0, scope)).toLowerCase(java.util.Locale.ROOT)
                .getBytes(StandardCharsets.US_ASCII);
        }
        return cachedAddressText;
    }

    private static void writeDecimal(final ByteBuf out, final int value)
    {
        int divisor = 1;
        while (divisor <= value / 10)
        {
            divisor *= 10;
        }
        for (; divisor > 0; divisor /= 10)
        {
            out.writeByte('0' + value / divisor % 10);
        }
    }
}
