package io.sipline.container.dispatch;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import io.sipline.container.api.MessageHeaders;
import io.sipline.container.api.SipServletMessageImpl;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.sip.message.Ascii;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.stack.SipStackConfig;
import io.sipline.sip.stack.StackShard;
import io.sipline.sip.transport.tcp.FlowTokens;
import io.sipline.sip.transport.tcp.TcpFlow;

/**
 * What one shard's container writes about itself: its host, its listening port per transport, its Via per transport
 * (RFC 3261 §18.1.1: the sent-by is where responses come back) and its Contact per transport (§8.1.1.8, §19.1.4: the
 * remote target must reach us the same way; in a cluster it names the node too), and the tests that recognise them in
 * a received message.
 * <p>
 * Threading: not threadsafe; owned by the shard's event loop (one instance per shard, created with it). {@link #via}
 * returns a builder reused by the next call; the addresses are set once by {@link #started} and read-only afterwards.
 */
final class ShardAddresses
{
    private final StackShard shard;
    /** The Via value being written (reused: no String per request). */
    private final StringBuilder viaValue = new StringBuilder(96);
    private String host;
    private int port;
    private String contact;
    /**
     * The container's Via up to the branch value per transport ({@link Transports#UDP}, {@link Transports#TCP},
     * {@link Transports#TLS}): {@code SIP/2.0/TCP host:port;branch=} with that transport's listening port; null for a
     * transport this container does not listen on.
     */
    private final String[] viaPrefixes = new String[Transports.NAMES.length];
    /**
     * The container's Contact per transport: UDP's, {@code ;transport=tcp} on the TCP port, {@code sips:} on TLS's,
     * {@code ;transport=ws} on the WS and WSS ports.
     */
    private final String[] contacts = new String[Transports.NAMES.length];
    /**
     * The container's listening port per transport (-1 where it does not listen): a Route naming our host on any of
     * them is ours (RFC 3261 §16.4), and each side of a proxy's Record-Route names the port of its transport
     * (RFC 5658).
     */
    private final int[] ownPorts = {-1, -1, -1, -1, -1};
    /** The stack's first listening address (what received messages report as local), once known. */
    private InetSocketAddress localAddress;
    /**
     * {@code host:port} as our Via's sent-by, in bytes, once per distinct port we listen on (UDP, TCP, TLS; TCP
     * usually shares UDP's port): a request we proxied over TLS that comes back carries our TLS sent-by.
     */
    private byte[][] ourSentBys = new byte[0][];

    ShardAddresses(final StackShard shard)
    {
        this.shard = shard;
    }

    /** The host the container writes in Via and Contact. */
    String host()
    {
        return host;
    }

    /** The UDP port the container writes in Via and Contact. */
    int port()
    {
        return port;
    }

    /** The container's UDP Contact, e.g. {@code <sip:192.0.2.1:5060>}. */
    String contact()
    {
        return contact;
    }

    /** The listening port per transport index (-1 where none); read-only for the caller. */
    int[] ownPorts()
    {
        return ownPorts;
    }

    /** Takes the addresses from the stack's first listening address {@code local} (after the stack started). */
    void started(final InetSocketAddress local)
    {
        final String h = local.getAddress().isAnyLocalAddress() ? "127.0.0.1" : local.getAddress().getHostAddress();
        host = h.indexOf(':') >= 0 ? "[" + h + "]" : h;
        port = local.getPort();
        final int node = shard.stack().config().node();
        // a cluster node names itself in its Contact: RFC 3261 §12.2.1.1 copies it into the in-dialog Request-URI
        final String self = node < 0 ? ""
            : ";" + SipStackConfig.NODE_URI_PARAMETER + "=" + Integer.toHexString(0x100 | node).substring(1);
        contact = "<sip:" + host + ":" + port + self + ">";
        viaPrefixes[Transports.UDP] = "SIP/2.0/UDP " + host + ":" + port + ";branch=";
        contacts[Transports.UDP] = contact;
        ownPorts[Transports.UDP] = port;
        listen(Transports.TCP, portOf(shard.stack().tcpAddresses(), local), self);
        listen(Transports.TLS, portOf(shard.stack().tlsAddresses(), local), self);
        listen(Transports.WS, portOf(shard.stack().wsAddresses(), local), self);
        listen(Transports.WSS, portOf(shard.stack().wssAddresses(), local), self);
        ourSentBys = Arrays.stream(ownPorts).filter(p -> p > 0).distinct()
            .mapToObj(p -> (host + ":" + p).getBytes(StandardCharsets.US_ASCII)).toArray(byte[][]::new);
    }

    /** Our Via, Contact and port for a stream transport we listen on at {@code p} (none when {@code p <= 0}). */
    private void listen(final int transport, final int p, final String self)
    {
        if (p > 0)
        {
            ownPorts[transport] = p;
            viaPrefixes[transport] = "SIP/2.0/" + Transports.NAMES[transport] + " " + host + ":" + p + ";branch=";
            contacts[transport] = Transports.uri(new StringBuilder(64).append('<'), transport, null, host, p)
                .append(self).append('>').toString();
        }
    }

    /** The port of the endpoint on {@code local}'s address, else of the first endpoint; -1 when there is none. */
    private static int portOf(final List<InetSocketAddress> endpoints, final InetSocketAddress local)
    {
        for (final InetSocketAddress e : endpoints)
        {
            if (e.getAddress().equals(local.getAddress()))
            {
                return e.getPort();
            }
        }
        return endpoints.isEmpty() ? -1 : endpoints.getFirst().getPort();
    }

    /** The transport a message came on or goes to: TCP, TLS, WS or WSS for a connection's flow, else UDP. */
    int transportOf(final InetSocketAddress peer)
    {
        if (peer instanceof TcpFlow flow)
        {
            final int t = flow.isWebSocket() ? (flow.isTls() ? Transports.WSS : Transports.WS)
                : flow.isTls() ? Transports.TLS : Transports.TCP;
            // a connection we opened without listening there: UDP's entry still works
            return ownPorts[t] > 0 ? t : Transports.UDP;
        }
        return Transports.UDP;
    }

    /**
     * A message's Contact, when it is the one the container wrote for another transport, becomes this transport's
     * (RFC 3261 §8.1.1.8: a {@code transport=tcp}, {@code sips:} or {@code transport=ws} URI on our listener, so that
     * the peer's requests in the dialog come back the same way); one the application edited keeps its user part and
     * parameters ({@link EditedContacts}). A Contact the application set is left alone. For UDP
     * nothing is read (the container's requests are made with its UDP Contact; no String on that path).
     */
    void ownContact(final SipServletMessageImpl message, final int transport)
    {
        if (Transports.UDP == transport || null == contacts[transport])
        {
            return;
        }
        final MessageHeaders headers = message.headers();
        final int i = headers.find(HeaderName.CONTACT, 0);
        if (i < 0)
        {
            return;
        }
        final String value = headers.value(i);
        final String wanted = contacts[transport];
        if (value.equals(wanted))
        {
            return;
        }
        if (isOwnContact(value))
        {
            headers.setValue(i, wanted);
            return;
        }
        final String moved = EditedContacts.moved(value, wanted, host, ownPorts);
        if (null != moved)
        {
            headers.setValue(i, moved);
        }
    }

    private boolean isOwnContact(final String value)
    {
        for (final String c : contacts)
        {
            if (value.equals(c))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * The RFC 5626 flow token in the user part of a received request's top Route (our Record-Route or Path for a
     * WebSocket client, §5.3), read from the borrowed message's bytes before that Route is popped, or null. Nothing is
     * read unless the container listens on WebSocket, and a String is made only for a token.
     */
    String topRouteFlowToken(final SipMessage message)
    {
        if (!listensOn(Transports.WS) && !listensOn(Transports.WSS))
        {
            return null;
        }
        final int top = message.firstHeader(HeaderName.ROUTE);
        if (top < 0)
        {
            return null;
        }
        final byte[] b = message.buffer();
        final int start = message.headerValueStart(top);
        final int end = message.headerValueEnd(top);
        final int open = indexOf(b, start, end, '<');
        final int colon = indexOf(b, open < 0 ? start : open + 1, end, ':');
        final int at = colon < 0 ? -1 : indexOf(b, colon + 1, end, '@');
        if (at - colon - 1 != FlowTokens.LENGTH)
        {
            return null;
        }
        for (int i = colon + 1; i < at; i++)
        {
            final byte c = b[i];
            if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'))
            {
                return null; // a user part, but not one of our tokens
            }
        }
        return new String(b, colon + 1, FlowTokens.LENGTH, StandardCharsets.US_ASCII);
    }

    private static int indexOf(final byte[] b, final int from, final int end, final char c)
    {
        for (int i = from; i < end; i++)
        {
            if (b[i] == c)
            {
                return i;
            }
        }
        return -1;
    }

    /** Whether this container listens on (and so can write a Via for) {@code transport}. */
    boolean listensOn(final int transport)
    {
        return transport >= 0 && null != viaPrefixes[transport];
    }

    /** The container's Via on {@code transport} with {@code branch}; valid until the next call (shard thread only). */
    CharSequence via(final int transport, final String branch)
    {
        viaValue.setLength(0);
        return viaValue.append(viaPrefixes[transport]).append(branch).append(";rport");
    }

    /**
     * The container's Via on {@code transport} with the branch of {@code request} (sent: {@link
     * SipServletRequestImpl#hasBranch()}) written in place; valid until the next call (shard thread only).
     */
    CharSequence via(final int transport, final SipServletRequestImpl request)
    {
        viaValue.setLength(0);
        return request.appendBranch(viaValue.append(viaPrefixes[transport])).append(";rport");
    }

    /** The stack's first listening address: what a received message reports as its local address. */
    InetSocketAddress local()
    {
        InetSocketAddress a = localAddress;
        if (null == a)
        {
            a = shard.stack().localAddresses().getFirst();
            localAddress = a;
        }
        return a;
    }

    /** Whether a Via of the borrowed request names our host:port (the cheap test before loop detection). */
    boolean carriesOurVia(final SipMessage m)
    {
        for (int i = m.firstHeader(HeaderName.VIA); i >= 0; i = m.nextHeader(HeaderName.VIA, i))
        {
            for (final byte[] sentBy : ourSentBys)
            {
                if (contains(m.buffer(), m.headerValueStart(i), m.headerValueEnd(i), sentBy))
                {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean contains(final byte[] b, final int start, final int end, final byte[] what)
    {
        return Ascii.indexOf(b, start, end, what) >= 0;
    }
}
