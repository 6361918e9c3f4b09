package io.sipline.sip.dialog;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.SipMessageBuilder;
import io.sipline.sip.message.SipMethod;

/**
 * Writes a request inside a dialog (RFC 3261 §12.2.1.1) from the dialog's state, straight into a Netty buffer: the
 * remote target or, behind a strict router, the first route as Request-URI, the route set, the dialog's From, To and
 * Call-ID, the next local CSeq, and the local Contact for target refreshes and REFER (the layout is drawn on
 * {@link #startRequest(Dialog, SipMethod, ByteBuf, SipMessageBuilder, CharSequence, CharSequence, int, long)}).
 *
 * <p>The Via host, port, transport and branch belong to the transport and transaction layers and are parameters.
 * The {@code start*} methods stop before Content-Length so that the caller adds its own headers (Content-Type, Event,
 * RAck, credentials) and ends the message with {@link SipMessageBuilder#end}; {@code write*} end it without a body.
 *
 * <p>Writing a request advances the dialog's local CSeq ({@link Dialog#nextLocalCSeq()}) and, for an INVITE,
 * records it as the number a later ACK or CANCEL reuses. A CANCEL written here matches its re-INVITE only when the
 * caller passes that re-INVITE's branch (§9.1). The ACK for a 2xx (§13.2.2.4) is written like any request of the
 * dialog, route set applied, with the INVITE's CSeq number and method ACK; the caller gives it a new branch and, when
 * the INVITE carried credentials, adds them (§22).
 *
 * <p>Buffers are borrowed: bytes are appended at {@code out}'s writer index and nothing is kept. Allocates nothing
 * (a Request-URI with raw non-ASCII bytes, which RFC 3261 §19.1.2 forbids, is the exception: it takes a String).
 * Not thread-safe; one writer per shard.
 */
public final class DialogRequestWriter
{
    /** Max-Forwards of every request we originate (§8.1.1.6). */
    public static final int MAX_FORWARDS = 70;

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] COMMA_SP = {',', ' '};
    private static final byte[] TAG = {';', 't', 'a', 'g', '='};
    private static final byte[] ROUTE = ascii("Route: ");
    private static final byte[] TO = ascii("To: ");
    private static final byte[] FROM = ascii("From: ");
    private static final byte[] CALL_ID = ascii("Call-ID: ");
    private static final byte[] CSEQ = ascii("CSeq: ");
    private static final byte[] CONTACT = ascii("Contact: ");

    private final AsciiView uriView = new AsciiView();

    /** Writes a whole request without a body; returns the bytes written. See {@link #startRequest}. */
    public int writeRequest(
        final Dialog d, final SipMethod method, final ByteBuf out, final SipMessageBuilder builder,
        final CharSequence transport, final CharSequence viaHost, final int viaPort, final long branchId)
    {
        return startRequest(d, method, out, builder, transport, viaHost, viaPort, branchId).end(null, 0, 0);
    }

    /** Writes the ACK for the 2xx to the dialog's last INVITE, without a body; returns the bytes written. */
    public int writeAck(
        final Dialog d, final ByteBuf out, final SipMessageBuilder builder,
        final CharSequence transport, final CharSequence viaHost, final int viaPort, final long branchId)
    {
        return startRequest(d, SipMethod.ACK, out, builder, transport, viaHost, viaPort, branchId).end(null, 0, 0);
    }

    /**
     * Starts a request of a known method inside the dialog: everything up to Content-Length. Finish it with
     * {@code builder.header(...)...end(body, off, len)}.
     *
     * <pre>
     *   loose first hop or no route set         strict first hop (no ;lr, RFC 2543 router)
     *   BYE &lt;remote target&gt; SIP/2.0             BYE &lt;first route URI, headers stripped&gt; SIP/2.0
     *   Via: SIP/2.0/UDP host:port;branch=...   Via: ...
     *   Route: &lt;r1;lr&gt;, &lt;r2;lr&gt;                Route: &lt;r2&gt;, ..., &lt;remote target&gt;
     *   Max-Forwards: 70
     *   To: remote address;tag=remote tag       From: local address;tag=local tag
     *   Call-ID: ...                            CSeq: next local CSeq METHOD   (ACK and CANCEL: the INVITE's number)
     *   Contact: local contact                  (target refreshes and REFER, §12.2.1.1, RFC 3515 §2.4.1)
     * </pre>
     *
     * @param method any method but {@link SipMethod#EXTENSION} (use the overload taking a name).
     * @throws IllegalStateException when the dialog is terminated, or for an ACK or CANCEL when no INVITE was sent
     *                               in the dialog (programming errors, not message errors).
     */
    public SipMessageBuilder startRequest(
        final Dialog d, final SipMethod method, final ByteBuf out, final SipMessageBuilder builder,
        final CharSequence transport, final CharSequence viaHost, final int viaPort, final long branchId)
    {
        if (method == SipMethod.EXTENSION)
        {
            throw new IllegalArgumentException("an extension method needs its name");
        }
        return start(d, method, method.name(), out, builder, transport, viaHost, viaPort, branchId);
    }

    /** Starts a request of any method, given by name (an extension method such as {@code PUBLISH}-like tokens). */
    public SipMessageBuilder startRequest(
        final Dialog d, final CharSequence methodName, final ByteBuf out, final SipMessageBuilder builder,
        final CharSequence transport, final CharSequence viaHost, final int viaPort, final long branchId)
    {
        return start(d, SipMethod.lookup(methodName), methodName, out, builder, transport, viaHost, viaPort,
            branchId);
    }

    private SipMessageBuilder start(
        final Dialog d, final SipMethod method, final CharSequence methodName, final ByteBuf out,
        final SipMessageBuilder builder, final CharSequence transport, final CharSequence viaHost,
        final int viaPort, final long branchId)
    {
        if (d.state == DialogState.TERMINATED)
        {
            throw new IllegalStateException("dialog terminated");
        }
        final long cseq;
        if (method == SipMethod.ACK || method == SipMethod.CANCEL)
        {
            // §13.2.2.4 (ACK for a 2xx) and §9.1 (CANCEL): the INVITE's sequence number
            cseq = d.inviteCSeq;
            if (cseq == Dialog.EMPTY_CSEQ)
            {
                throw new IllegalStateException("no INVITE was sent in this dialog");
            }
        }
        else
        {
            cseq = d.nextLocalCSeq();
            if (method == SipMethod.INVITE)
            {
                d.inviteCSeq = cseq;
            }
        }

        // Request-URI (§12.2.1.1)
        final byte[] rb = d.routes.bytes();
        final boolean strict = d.isStrictRouting();
        if (strict)
        {
            // the first route's URI, without the URI headers a Request-URI may not carry (§19.1.1 table)
            final int us = d.routeUriStart(0);
            int ue = d.routeUriEnd(0);
            for (int p = us; p < ue; p++)
            {
                if (rb[p] == '?')
                {
                    ue = p;
                    break;
                }
            }
            builder.startRequest(out, methodName, uriText(rb, us, ue));
        }
        else
        {
            builder.startRequest(out, methodName, uriText(d.remoteTarget.bytes(), 0, d.remoteTarget.length()));
        }
        builder.via(transport, viaHost, viaPort, branchId, true);

        // Route: loose: the whole route set in order; strict: the rest of it, then the remote target (§12.2.1.1)
        final int first = strict ? 1 : 0;
        if (d.routeCount > first || strict)
        {
            out.writeBytes(ROUTE);
            boolean comma = false;
            for (int i = first; i < d.routeCount; i++)
            {
                if (comma)
                {
                    out.writeBytes(COMMA_SP);
                }
                out.writeBytes(rb, d.routeStart(i), d.routeEnd(i) - d.routeStart(i));
                comma = true;
            }
            if (strict)
            {
                if (comma)
                {
                    out.writeBytes(COMMA_SP);
                }
                out.writeByte('<');
                out.writeBytes(d.remoteTarget.bytes(), 0, d.remoteTarget.length());
                out.writeByte('>');
            }
            out.writeBytes(CRLF);
        }

        builder.header(HeaderName.MAX_FORWARDS, MAX_FORWARDS);
        addressLine(out, TO, d.remoteAddress, d.remoteTag);
        addressLine(out, FROM, d.localAddress, d.localTag);
        out.writeBytes(CALL_ID);
        out.writeBytes(d.callId.bytes(), 0, d.callId.length());
        out.writeBytes(CRLF);
        out.writeBytes(CSEQ);
        decimal(out, cseq);
        out.writeByte(' ');
        ByteBufUtil.writeAscii(out, methodName);
        out.writeBytes(CRLF);
        if (!d.localContact.isEmpty() && (DialogLayer.isTargetRefresh(method) || method == SipMethod.REFER))
        {
            out.writeBytes(CONTACT);
            out.writeBytes(d.localContact.bytes(), 0, d.localContact.length());
            out.writeBytes(CRLF);
        }
        return builder;
    }

    private CharSequence uriText(final byte[] b, final int start, final int end)
    {
        if (AsciiView.isAscii(b, start, end))
        {
            return uriView.wrap(b, start, end);
        }
        return new String(b, start, end - start, StandardCharsets.UTF_8);
    }

    private static void addressLine(final ByteBuf out, final byte[] name, final ByteSlot address, final ByteSlot tag)
    {
        out.writeBytes(name);
        out.writeBytes(address.bytes(), 0, address.length());
        if (!tag.isEmpty())
        {
            out.writeBytes(TAG);
            out.writeBytes(tag.bytes(), 0, tag.length());
        }
        out.writeBytes(CRLF);
    }

    private static void decimal(final ByteBuf out, final long value)
    {
        if (value >= 10)
        {
            decimal(out, value / 10);
        }
        out.writeByte((int)('0' + value % 10));
    }

    private static byte[] ascii(final String s)
    {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
