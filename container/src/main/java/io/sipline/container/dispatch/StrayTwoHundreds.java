package io.sipline.container.dispatch;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.sipline.container.api.HeaderText;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageBuilder;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.stack.StackShard;
import io.sipline.sip.transport.tcp.TcpFlow;

/**
 * A 2xx to an INVITE this container sent as a UAC that arrives when no session of its call is left (a downstream
 * proxy forked the INVITE and this 2xx opens a dialog nobody will use; or the call ended before it came). RFC 3261
 * §13.2.2.4: "The UAC core MUST generate an ACK request for each 2xx received from the transaction layer", and a UAC
 * that does not want the dialog "MUST terminate the dialog by sending a BYE request" after the ACK. With no session
 * to hold the dialog, both are built from the 2xx alone (§13.2.2.4 and §12.1.2: the Request-URI is its Contact, the
 * route set its Record-Route reversed; From, To, Call-ID as in the 2xx; the ACK has the INVITE's CSeq number, the BYE
 * the next one). The BYE goes on a client transaction whose response stays here. A retransmission of the same 2xx
 * gets the ACK again and no second BYE ({@link EndedDialogs}: for 64*T1 after its last 2xx, at most 256).
 * <p>
 * Only a response with a single Via value is taken: a 2xx of a request this container proxied (or relayed for the
 * application router) carries the upstream Vias too, and is not ours to end.
 * <p>
 * Threading: owned by one shard; every method on its event loop.
 */
final class StrayTwoHundreds
{
    private final StackShard shard;
    private final ShardAddresses addresses;
    private final ContainerIds ids;
    private final NextHop nextHop;
    private final EndedDialogs ended;

    StrayTwoHundreds(final StackShard shard, final ShardAddresses addresses, final ContainerIds ids,
        final NextHop nextHop)
    {
        this.shard = shard;
        this.addresses = addresses;
        this.ids = ids;
        this.nextHop = nextHop;
        this.ended = new EndedDialogs(64 * shard.stack().config().t1Ns());
    }

    /** Once a second, from the shard's tick: forgets the dialogs whose 2xx is no longer retransmitted. */
    void trim(final long nowNs)
    {
        ended.trim(nowNs);
    }

    /** Whether a response is a 2xx to an INVITE that only this container's Via carried (a request we sent as UAC). */
    static boolean isOurInvite2xx(final SipMessage m)
    {
        final int status = m.statusCode();
        if (status < 200 || status >= 300 || SipMethod.INVITE != m.cseqMethod() || m.toTagStart() < 0
            || 1 != m.headerCount(HeaderName.VIA))
        {
            return false;
        }
        final int via = m.firstHeader(HeaderName.VIA);
        final byte[] b = m.buffer();
        for (int i = m.headerValueStart(via); i < m.headerValueEnd(via); i++)
        {
            if (',' == b[i])
            {
                return false;
            }
        }
        return true;
    }

    /**
     * ACKs a stray 2xx and, the first time its dialog is seen, ends that dialog with a BYE. Both go where the 2xx's
     * Contact and route set send them, over the transport they ask for (RFC 3261 §18.1.1, §19.1.4, RFC 3263 §4.1:
     * {@code transport=}, {@code sips:}; UDP for a numeric {@code sip:} host without one), or on the connection the
     * 2xx came on when it came over TCP or TLS and the next-hop URI asks for no other transport or names that
     * connection's peer (the peer that answered over a connection is reached on it; a TCP-only UAS whose Contact
     * names no transport would not hear a UDP ACK).
     *
     * @param m      borrowed.
     * @param source where the 2xx came from: a {@link TcpFlow} for a connection, else its UDP source.
     * @return true when this 2xx opened a dialog not seen before (the caller counts and logs it).
     */
    boolean end(final SipMessage m, final InetSocketAddress source)
    {
        final String callId = text(m, m.callIdStart(), m.callIdEnd());
        final String toTag = text(m, m.toTagStart(), m.toTagEnd());
        final String key = callId + '\n' + toTag;
        final boolean first = ended.remember(key, shard.nowNs());
        final String target = contactUri(m);
        if (null == target)
        {
            return first; // RFC 3261 §12.1.2: a 2xx without Contact names no remote target; nothing can be sent
        }
        final List<String> routes = routeSet(m);
        final String hopUri = routes.isEmpty() ? target : HeaderText.uri(routes.getFirst());
        final NextHop.Hop hop = nextHop.of(hopUri);
        final int asked = null == hop ? Transports.UNSUPPORTED : Transports.asked(hop);
        final InetSocketAddress to;
        final int transport;
        if (source instanceof TcpFlow flow && addresses.transportOf(flow) != Transports.UDP
            && null != hop && (Transports.NONE == asked || flow.isWebSocket()
                || (addresses.transportOf(flow) == asked && flow.equals(hop.numeric()))))
        {
            to = flow; // the connection the 2xx came on (the stack writes on it as it is; a WS client's only one)
            transport = addresses.transportOf(flow);
        }
        else if (null != hop && null != hop.numeric() && Transports.UNSUPPORTED != asked
            && addresses.listensOn(Transports.NONE == asked ? Transports.UDP : asked))
        {
            to = hop.numeric();
            transport = Transports.NONE == asked ? Transports.UDP : asked;
        }
        else
        {
            // only a numeric next hop: a name would need the locator for a dialog nobody wants; nor a transport this
            // container does not send on
            return first;
        }
        send(m, "ACK", m.cseqNumber(), target, routes, to, transport);
        if (first)
        {
            send(m, "BYE", m.cseqNumber() + 1, target, routes, to, transport);
        }
        return first;
    }

    private void send(final SipMessage m, final String method, final long cseq, final String target,
        final List<String> routes, final InetSocketAddress to, final int transport)
    {
        final String branch = ids.newBranch();
        final ByteBuf out = shard.allocate(512 + m.length());
        final SipMessageBuilder b = shard.builder().startRequest(out, method, target)
            .header(HeaderName.VIA, addresses.via(transport, branch))
            .header(HeaderName.MAX_FORWARDS, 70);
        for (int i = 0; i < routes.size(); i++)
        {
            b.header(HeaderName.ROUTE, routes.get(i));
        }
        b.copyHeaderLines(m, HeaderName.FROM)
            .copyHeaderLines(m, HeaderName.TO)
            .copyHeaderLines(m, HeaderName.CALL_ID)
            .header(HeaderName.CSEQ, cseq + " " + method)
            .end(null, 0, 0);
        if ("ACK".equals(method))
        {
            shard.sendStateless(out, to);
            return;
        }
        final var tx = shard.sendRequest(out, to);
        if (null != tx)
        {
            tx.attachment(TransactionMark.CONTAINER_BYE);
        }
    }

    private static String contactUri(final SipMessage m)
    {
        final int contact = m.firstHeader(HeaderName.CONTACT);
        return contact < 0 ? null : HeaderText.uri(text(m, m.headerValueStart(contact), m.headerValueEnd(contact)));
    }

    /** RFC 3261 §12.1.2: the route set of the UAC is the Record-Route of the 2xx in reverse order. */
    private static List<String> routeSet(final SipMessage m)
    {
        final List<String> entries = new ArrayList<>(2);
        for (int i = m.firstHeader(HeaderName.RECORD_ROUTE); i >= 0; i = m.nextHeader(HeaderName.RECORD_ROUTE, i))
        {
            splitList(text(m, m.headerValueStart(i), m.headerValueEnd(i)), entries);
        }
        return entries.reversed();
    }

    /** Appends the comma-separated entries of a name-addr list (commas inside quotes or angle brackets kept). */
    private static void splitList(final String value, final List<String> into)
    {
        int start = 0;
        boolean quoted = false;
        boolean bracketed = false;
        for (int i = 0; i < value.length(); i++)
        {
            final char c = value.charAt(i);
            if ('"' == c && !bracketed)
            {
                quoted = !quoted;
            }
            else if ('<' == c && !quoted)
            {
                bracketed = true;
            }
            else if ('>' == c && !quoted)
            {
                bracketed = false;
            }
            else if (',' == c && !quoted && !bracketed)
            {
                into.add(value.substring(start, i).strip());
                start = i + 1;
            }
        }
        into.add(value.substring(start).strip());
    }

    private static String text(final SipMessage m, final int start, final int end)
    {
        return new String(m.buffer(), start, end - start, StandardCharsets.UTF_8);
    }
}
