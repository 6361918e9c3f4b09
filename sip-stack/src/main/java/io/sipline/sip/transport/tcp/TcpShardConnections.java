package io.sipline.sip.transport.tcp;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.NetUtil;
import io.sipline.sip.capture.HepCaptureAgent;
import io.sipline.sip.message.Ascii;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.NameAddrFlyweight;
import io.sipline.sip.message.SipMessage;

/**
 * One shard's connections (a shard owns its sockets): the connections its listeners accepted
 * and the ones it opened, in one table by peer address, so that an outbound request to a destination reuses an open
 * (or still opening) connection to it (RFC 3261 §18.1.1) and a closing connection leaves the table. New outbound
 * connections are non-blocking connects on the shard's own loop; their sends wait in the connection until it is up.
 *
 * <pre>
 *   flowTo(dest, tls) --table hit, same transport--> that connection's flow
 *                     \--miss--> Bootstrap.connect on this loop --> table[dest] = new connection (queues sends)
 *   connection active   --> opened(): accepted ones enter the table under their peer's address
 *   connection inactive --> closed(): out of the table; handler.onClosed (the shard fails its transactions on it)
 * </pre>
 *
 * <p><b>Threading.</b> Everything runs on the shard's event loop; not thread-safe. Only {@link #index()} and
 * {@link #connectionCount()} (racy) may be read elsewhere.
 */
public final class TcpShardConnections
{
    /** RFC 6761 §6.4: a name that never resolves; RFC 7118 §5 clients put one in their Contact. */
    private static final String INVALID = ".invalid";

    private final int index;
    private final EventLoop loop;
    private final StreamMessageHandler handler;
    private final TcpCounters counters;
    private final StreamSettings settings;
    /** Open or opening connections by peer address (a flow is its own key); shard thread only. */
    private final HashMap<InetSocketAddress, TcpConnection> byPeer = new HashMap<>();
    private final ChannelFutureListener connectDone = this::connectDone;
    private final WsContacts contacts;
    /** Scratch for {@link #learnWebSocketContact}; shard thread only. */
    private final NameAddrFlyweight contact = new NameAddrFlyweight();
    private int live;
    /** The number of this shard's last WebSocket connection ({@link FlowTokens}); never reused. */
    private long lastFlowId;
    private boolean closing;
    /** This shard's HEP mirror of every SIP message its connections read and write; null when off. */
    private HepCaptureAgent capture;

    TcpShardConnections(final int index, final EventLoop loop, final StreamMessageHandler handler,
        final TcpCounters counters, final StreamSettings settings)
    {
        this(index, loop, handler, counters, settings, new WsContacts());
    }

    TcpShardConnections(final int index, final EventLoop loop, final StreamMessageHandler handler,
        final TcpCounters counters, final StreamSettings settings, final WsContacts contacts)
    {
        this.contacts = contacts;
        this.index = index;
        this.loop = loop;
        this.handler = handler;
        this.counters = counters;
        this.settings = settings;
    }

    /** The shard index. Any thread. */
    public int index()
    {
        return index;
    }

    /** This shard's HEP capture agent, or null when capture is off. */
    HepCaptureAgent capture()
    {
        return capture;
    }

    /** Before any bind or connect: mirror every SIP message of this shard's connections to {@code agent}. */
    void capture(final HepCaptureAgent agent)
    {
        capture = agent;
    }

    /** Connections open or opening on this shard (racy from other threads). */
    public int connectionCount()
    {
        return live;
    }

    /**
     * The flow to send to {@code destination} over TCP or TLS: an open (or opening) connection of this shard to that
     * address with the same transport, else a new non-blocking connect whose sends wait until it is up. A new TLS
     * connection must prove the destination's address (an iPAddress in the server's certificate).
     *
     * @return the flow, or null when no connection can be made (TLS without a client context, shutting down).
     */
    public TcpFlow flowTo(final InetSocketAddress destination, final boolean tls)
    {
        return flowTo(destination, tls, null, 0, 0);
    }

    /**
     * The flow to send a request for a SIP domain to {@code destination}: over TLS an open connection is reused only
     * when it was opened for the same domain, and a new one must prove that domain with its certificate (RFC 5922
     * §7.3, {@link SipDomainTrustManager}); the domain is also the connection's SNI host name. Over TCP the domain
     * is ignored. Reuse allocates nothing.
     *
     * @param domain the domain's bytes ({@code domain[start, end)}, a host name or an address literal; borrowed), or
     *               null for none in particular: an open connection of any domain, or the address for a new one.
     * @return the flow, or null when no connection can be made (TLS without a client context, shutting down).
     */
    public TcpFlow flowTo(final InetSocketAddress destination, final boolean tls, final byte[] domain,
        final int start, final int end)
    {
        if (destination instanceof TcpFlow flow && flow.isWebSocket())
        {
            // RFC 7118 §5: a WebSocket client is reached on the connection it opened, or not at all.
            return flow.connection().isUsable() ? flow : null;
        }
        if (destination instanceof TcpFlow flow && flow.isTls() == tls && flow.connection().isUsable()
            && flow.connection().servesDomain(domain, start, end))
        {
            return flow;
        }
        final TcpConnection open = byPeer.get(destination);
        // A closed connection can still be in the table until its channelInactive runs: never hand it out.
        if (null != open && !open.isWebSocket() && open.isTls() == tls && open.isUsable()
            && open.servesDomain(domain, start, end))
        {
            return open.flow();
        }
        if (closing || destination.isUnresolved() || (tls && null == settings.clientTls()))
        {
            return null;
        }
        final InetSocketAddress target = destination instanceof TcpFlow ?
            new InetSocketAddress(destination.getAddress(), destination.getPort()) : destination;
        final TcpConnection connection = new TcpConnection(handler, counters, settings.maxMessageBytes(),
            settings.idleMillis(), this, tls, target).limits(settings.messageTimeoutMillis(), null);
        // RFC 5922 §7.3: the identity the server must prove; an address literal when no domain was given.
        final String peerHost = !tls ? null : null != domain && end > start ? Ascii.string(domain, start, end) :
            NetUtil.toAddressString(target.getAddress());
        connection.tlsDomain(peerHost);
        final Bootstrap bootstrap = new Bootstrap()
            .group(loop)
            .channelFactory(() -> settings.epoll() ? new EpollSocketChannel() : new NioSocketChannel())
            .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int)Math.min(Integer.MAX_VALUE,
                settings.connectTimeoutMillis()))
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 1024 * 1024))
            .handler(new ChannelInitializer<Channel>()
            {
                @Override
                protected void initChannel(final Channel ch)
                {
                    if (tls)
                    {
                        // RFC 3261 §26.2.1, RFC 5922 §7.3: the chain is checked against the client context's trust,
                        // then the certificate against the SIP domain, which the engine carries as its peer host.
                        ch.config().setAllocator(TlsAllocator.SHARED); // the engine's heap records: pooled arrays
                        ch.pipeline().addLast(settings.clientTls().newHandler(ch.alloc(), peerHost,
                            target.getPort()));
                    }
                    ch.pipeline().addLast(connection);
                }
            });
        byPeer.put(target, connection);
        live++;
        bootstrap.connect(target).addListener(connectDone);
        return connection.flow();
    }

    StreamMessageHandler handler()
    {
        return handler;
    }

    /** The WebSocket clients' connections by Contact host, shared by every shard of the stack. Any thread. */
    public WsContacts webSocketContacts()
    {
        return contacts;
    }

    /**
     * A request read on a WebSocket connection: when its Contact's host ends in {@code .invalid} (RFC 7118 §5), the
     * connection becomes the way to that host ({@link WsContacts}). Allocates only when the host is new for the
     * connection. Shard thread only.
     */
    void learnWebSocketContact(final TcpConnection connection, final SipMessage request)
    {
        final int i = request.firstHeader(HeaderName.CONTACT);
        if (i < 0 || !contact.wrap(request.buffer(), request.headerValueStart(i), request.headerValueEnd(i))
            || contact.isWildcard())
        {
            return;
        }
        final byte[] b = contact.buffer();
        final int start = contact.uri().hostStart();
        final int end = contact.uri().hostEnd();
        if (end - start <= INVALID.length() || !Ascii.equalsIgnoreCase(b, end - INVALID.length(), end, INVALID))
        {
            return;
        }
        final String known = connection.contactHost();
        if (null != known && Ascii.equalsIgnoreCase(b, start, end, known))
        {
            return;
        }
        contacts.bind(Ascii.string(b, start, end).toLowerCase(java.util.Locale.ROOT), connection);
    }

    private void connectDone(final ChannelFuture future)
    {
        if (!future.isSuccess())
        {
            // The connection's handlerRemoved releases what was queued and reports the close (see TcpConnection).
            counters.increment(TcpCounters.CONNECT_FAILURES);
        }
    }

    /** An accepted connection is up: it enters the table under its peer's address. */
    void opened(final TcpConnection connection)
    {
        if (!connection.isOutbound())
        {
            live++;
            byPeer.putIfAbsent(connection.flow(), connection);
            if (connection.isWebSocket())
            {
                connection.flowId(++lastFlowId);
                contacts.flowTokens().register(index, lastFlowId, connection);
            }
        }
    }

    /** A connection closed (or its connect failed): out of the table, and the handler hears of it. */
    void closed(final TcpConnection connection)
    {
        final TcpFlow flow = connection.flow();
        if (null == flow)
        {
            return;
        }
        live--;
        byPeer.remove(flow, connection);
        if (connection.isWebSocket())
        {
            contacts.forget(connection);
            contacts.flowTokens().forget(index, connection.flowId(), connection);
        }
        handler.onClosed(connection);
    }

    /** On the loop, at stop: no new connects; every connection of this shard is closed. */
    void closeAll()
    {
        closing = true;
        final List<TcpConnection> all = new ArrayList<>(byPeer.values());
        for (final TcpConnection c : all)
        {
            c.close();
        }
    }
}
