package io.sipline.sip.message;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.util.NetUtil;

/**
 * Writes the Via lines of a response to a request as the server transport stamps them on receipt: the request's top
 * Via with {@code received=<source address>} when its sent-by host is not that address (RFC 3261 §18.2.1), and when
 * the request asked for {@code rport}, both {@code received} and {@code rport=<source port>} (RFC 3581 §4); the other
 * Via values as they came (values that shared the top's line get a line each, later lines are copied whole). A
 * request without a usable top Via, or without a source, gets its Via lines copied unchanged.
 *
 * <pre>
 *  request:  Via: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bK1;rport          (arrived from 192.0.2.7:40312)
 *  response: Via: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bK1;rport=40312;received=192.0.2.7
 * </pre>
 *
 * <p>The flyweight message cannot be edited in place, so the stamp is applied where the response is written: by the
 * stateless responder, by {@link SipMessageBuilder#startResponse(ByteBuf, SipMessage, int, CharSequence,
 * CharSequence, InetSocketAddress)} for stateful responses, and by the transaction layer's 100 Trying.
 *
 * <p>Not thread-safe: one per builder (per shard). Allocates only when the source address changes from the previous
 * call (its text form is cached: a peer sends many requests).
 */
public final class ViaStamper
{
    private static final byte[] VIA_LINE = "Via: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RECEIVED_PARAM = ";received=".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CRLF = {'\r', '\n'};
    private static final int RPORT_EDIT = 1;
    private static final int RECEIVED_EDIT = 2;

    private final ViaFlyweight via = new ViaFlyweight();
    /** One-entry cache of the last source address as text, for {@code received}: a peer sends many requests. */
    private InetAddress cachedAddress;
    private byte[] cachedAddressText = new byte[0];
    /** The same address as the JDK writes it (IPv6 uncompressed, "0:0:0:0:0:0:0:1"), which peers also put in Vias. */
    private byte[] cachedAddressLongText = new byte[0];

    /** Forgets the span of the last request's top Via (an owner that keeps the stamper lets that array go). */
    public void forget()
    {
        via.forget();
    }

    /**
     * The Via lines of the response: the top one stamped with received/rport when RFC 3261 §18.2.1 or RFC 3581 §4
     * asks for it, the others as they came.
     */
    public void writeVias(final ByteBuf out, final SipMessage m, final InetSocketAddress source)
    {
        final int top = m.topVia();
        if (top < 0 || null == source || null == source.getAddress() || null != m.via(top, via).error())
        {
            copyLines(out, m);
            return;
        }
        final byte[] address = addressText(source.getAddress());
        final boolean rport = via.rportIndex() >= 0;
        final boolean received = rport || !sentByIs(address);
        if (!received)
        {
            copyLines(out, m);
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

    private static void copyLines(final ByteBuf out, final SipMessage m)
    {
        for (int i = m.firstHeader(HeaderName.VIA); i >= 0; i = m.nextHeader(HeaderName.VIA, i))
        {
            if ((m.headerFlags(i) & SipMessage.FIRST_OF_LINE) != 0)
            {
                SipWire.rawLine(out, m, i);
            }
        }
    }
}
