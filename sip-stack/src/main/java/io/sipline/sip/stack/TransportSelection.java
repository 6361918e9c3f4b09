package io.sipline.sip.stack;

import java.net.InetSocketAddress;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.NameAddrFlyweight;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;
import io.sipline.sip.message.SipUriFlyweight;
import io.sipline.sip.message.ViaFlyweight;
import io.sipline.sip.transport.ResponseAddress;
import io.sipline.sip.transport.tcp.TcpConnection;
import io.sipline.sip.transport.tcp.TcpFlow;
import io.sipline.sip.transport.tcp.TcpShardConnections;

/**
 * The transport of a shard's outbound messages (RFC 3261 §18.1.1): a flow as given; otherwise its top Via's, TCP or
 * TLS on the shard's connection to the destination (reused or opened), anything else as a datagram. A TLS connection
 * this shard opens must prove the SIP domain of the request that opens it (RFC 5922 §7.3: the host of its top Route,
 * else of its Request-URI) and is reused only for that domain. A response to a request read on a connection goes
 * back on it (§18.2.2); when it has closed, on a new connection to the source address and the sent-by port.
 *
 * <p>Not thread-safe; owned by its shard's event loop. Reads outbound messages back with flyweights of its own, made
 * once; takes ownership of the buffers it sends (sent or released).
 */
final class TransportSelection
{
    /**
     * Once a second, between two sends: the read-back message lets go of a burst's arrays and of the last message
     * ({@link SipMessage#trimScratch}), and the Via view of its span.
     */
    void trim()
    {
        outbound.trimScratch();
        outboundVia.forget();
    }

    /** Reads back outbound messages (their top Via's transport, a response's sent-by port); never a caller's. */
    private final SipMessage outbound = new SipMessage();

    private final ViaFlyweight outboundVia = new ViaFlyweight();

    /** Reads the top Via's transport without parsing the message, when its lines are plain enough. */
    private final TopViaReader topVia = new TopViaReader();

    /** The Request-URI and top Route of an outbound TLS request: the SIP domain its server must prove. */
    private final SipUriFlyweight outboundUri = new SipUriFlyweight();

    private final NameAddrFlyweight outboundRoute = new NameAddrFlyweight();

    private TcpShardConnections tcp;

    /** On the shard's loop, once: the shard's connections (none without TCP). */
    void attach(final TcpShardConnections connections)
    {
        tcp = connections;
    }

    /** The connection of the WebSocket client whose Contact host is {@code host} (RFC 7118 §5), or null. */
    TcpFlow webSocketFlow(final String host)
    {
        return null == tcp ? null : tcp.webSocketContacts().flowFor(host);
    }

    /** The stack's RFC 5626 flow tokens (shared by the shards), or null without stream listeners. */
    io.sipline.sip.transport.tcp.FlowTokens flowTokens()
    {
        return null == tcp ? null : tcp.webSocketContacts().flowTokens();
    }

    /**
     * Where an outbound message goes: a flow as given; otherwise by the transport of its top Via — TCP or TLS through
     * this shard's connection to the destination (reused or opened), anything else as a datagram.
     *
     * @return the destination to use, or null when its transport cannot be served (TLS without a client context).
     */
    InetSocketAddress nextHop(final ByteBuf message, final InetSocketAddress destination)
    {
        if (destination instanceof TcpFlow || null == destination || null == tcp)
        {
            return destination;
        }
        final int quick = topVia.transport(message);
        if (TopViaReader.UDP == quick)
        {
            return destination;
        }
        if (TopViaReader.TCP == quick)
        {
            return tcp.flowTo(destination, false);
        }
        // TLS needs the parsed message (tlsFlow reads its Route or Request-URI); the parser judges an unsure read
        final int transport = topViaTransport(message);
        if (TopViaReader.UDP == transport)
        {
            return destination;
        }
        return TopViaReader.TLS == transport ? tlsFlow(destination) : tcp.flowTo(destination, false);
    }

    /**
     * The TLS flow for the message {@link #topViaTransport} just parsed into {@link #outbound}, for the SIP domain
     * its server must prove (RFC 5922 §7.3, the host of the URI RFC 3263 located): for a request the host of its top
     * Route's URI (the next hop, RFC 3261 §8.1.2), else of its Request-URI; for a response the top Via's sent-by host
     * (RFC 3263 §6). A message without a usable host asks for the destination's address instead. Reusing an open
     * connection for the same domain allocates nothing.
     */
    private TcpFlow tlsFlow(final InetSocketAddress destination)
    {
        final SipMessage m = outbound;
        final byte[] b = m.buffer();
        if (m.isResponse())
        {
            return tcp.flowTo(destination, true, b, outboundVia.hostStart(), outboundVia.hostEnd());
        }
        final int route = m.firstHeader(HeaderName.ROUTE);
        final SipUriFlyweight uri;
        if (route >= 0)
        {
            uri = outboundRoute.wrap(b, m.headerValueStart(route), m.headerValueEnd(route)) ? outboundRoute.uri() :
                null;
        }
        else
        {
            uri = outboundUri.wrap(b, m.requestUriStart(), m.requestUriEnd()) ? outboundUri : null;
        }
        if (null == uri || uri.hostStart() < 0 || uri.hostEnd() <= uri.hostStart())
        {
            return tcp.flowTo(destination, true);
        }
        return tcp.flowTo(destination, true, b, uri.hostStart(), uri.hostEnd());
    }

    /**
     * The top Via's transport of an outbound message, parsed into {@link #outbound} (UDP when it cannot be read: the
     * datagram path judges it).
     */
    private int topViaTransport(final ByteBuf message)
    {
        final SipMessage m = outbound;
        if (SipMessageParser.parseDatagram(message, m) != ParseResult.OK || m.topVia() < 0
            || !outboundVia.wrap(m.buffer(), m.headerValueStart(m.topVia()), m.headerValueEnd(m.topVia())))
        {
            return TopViaReader.UDP;
        }
        return TopViaReader.transportOf(m.buffer(), outboundVia.transportStart(), outboundVia.transportEnd());
    }

    /**
     * Sends on a flow. When its connection has closed: a connection we opened is opened again (or another open one
     * to the same address is used); for one the peer opened, RFC 3261 §18.2.2 sends a response on a new connection to
     * the source address and the port of the top Via's sent-by (5060, or 5061 for TLS, when it has none), and
     * anything else fails.
     *
     * @param message ownership taken.
     */
    boolean sendOnFlow(final TcpFlow flow, final ByteBuf message)
    {
        final TcpConnection connection = flow.connection();
        if (connection.isUsable() || null == tcp || connection.isWebSocket())
        {
            // A WebSocket client cannot be dialled (RFC 7118 §5): a send on its closed connection fails, counted.
            return connection.send(message);
        }
        if (connection.isOutbound())
        {
            // Reopened for the domain it was opened for (RFC 5922 §7.3: the new server must prove the same one).
            final String domain = connection.tlsDomain();
            final byte[] d = null == domain ? null : domain.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            final TcpFlow again = tcp.flowTo(flow, flow.isTls(), d, 0, null == d ? 0 : d.length);
            if (null == again)
            {
                message.release();
                return false;
            }
            return again.connection().send(message);
        }
        final SipMessage m = outbound;
        if (SipMessageParser.parseDatagram(message, m) != ParseResult.OK || !m.isResponse() || m.topVia() < 0
            || !outboundVia.wrap(m.buffer(), m.headerValueStart(m.topVia()), m.headerValueEnd(m.topVia())))
        {
            return connection.send(message); // not a response: fails and is counted by the closed connection
        }
        final int port = outboundVia.port() > 0 ? outboundVia.port() :
            (flow.isTls() ? SipStackConfig.TLS_PORT_DEFAULT : ResponseAddress.DEFAULT_SIP_PORT);
        // Over TLS the new connection's server must prove the sent-by host (RFC 3263 §6, RFC 5922 §7.3).
        final TcpFlow fresh = tcp.flowTo(new InetSocketAddress(flow.getAddress(), port), flow.isTls(), m.buffer(),
            outboundVia.hostStart(), outboundVia.hostEnd());
        if (null == fresh)
        {
            message.release();
            return false;
        }
        return fresh.connection().send(message);
    }
}
