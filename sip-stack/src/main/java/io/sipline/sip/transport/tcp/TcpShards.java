package io.sipline.sip.transport.tcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslHandler;
import io.sipline.sip.capture.HepCaptureAgent;

/**
 * The stack's TCP and TLS listeners, sharded like its UDP sockets: with native epoll every
 * listening address:port is bound once per shard with {@code SO_REUSEPORT}, so the kernel spreads new connections over
 * the shards' accept queues, and each accepted connection lives on the loop of the shard that accepted it for its
 * whole life. Without epoll (NIO) one listener per address:port is bound on shard {@code i mod N} and its connections
 * stay on that shard. Each shard's connection table and outbound connects are its {@link TcpShardConnections}.
 *
 * <p>Pipelines: {@code [SslHandler] -> TcpConnection}: the TLS listeners put Netty's {@code SslHandler} (the JDK
 * {@code SSLEngine}) below the same framing handler as TCP. The WebSocket listeners (RFC 7118, {@link #bindWebSocket})
 * are spread the same way; after the HTTP upgrade their pipeline is {@code [SslHandler] -> WsFrames -> TcpConnection},
 * and their limits ({@link ConnectionAdmission}) and Contact hosts ({@link WsContacts}) are shared by the shards.
 *
 * <p><b>Threading.</b> {@link #bind} and {@link #close} from any thread but a shard's own (they wait for the loops);
 * {@link #shard(int)} hands out objects for their shard's loop only; {@link #counters()} any thread.
 */
public final class TcpShards
{
    private final EventLoop[] loops;
    private final TcpShardConnections[] shards;
    private final StreamSettings settings;
    private final TcpCounters counters = new TcpCounters();
    private final WsSettings ws;
    private final WsCounters wsCounters = new WsCounters();
    /** The SIP messages of WebSocket connections, counted apart from TCP's and TLS's. */
    private final TcpCounters wsMessageCounters = new TcpCounters();
    private final ConnectionAdmission wsAdmission;
    /** The accepted TCP and TLS connections' limits ({@link StreamSettings#maxConnections()}, per address). */
    private final ConnectionAdmission streamAdmission;
    private final WsContacts contacts;
    private final List<Channel> listeners = new ArrayList<>();
    private int bindings;

    /**
     * @param loops    shard k's event loop at index k (the loops of the UDP transport).
     * @param handlers makes shard k's message handler (called now, on this thread).
     */
    public TcpShards(final EventLoop[] loops, final IntFunction<StreamMessageHandler> handlers,
        final StreamSettings settings)
    {
        this(loops, handlers, settings, WsSettings.defaults());
    }

    /**
     * @param ws how the WebSocket listeners ({@link #bindWebSocket}) behave.
     */
    public TcpShards(final EventLoop[] loops, final IntFunction<StreamMessageHandler> handlers,
        final StreamSettings settings, final WsSettings ws)
    {
        this.ws = ws;
        this.wsAdmission = new ConnectionAdmission(ws.maxConnections(), ws.maxPerAddress(),
            WsCounters.OVER_MAX_CONNECTIONS, WsCounters.OVER_MAX_PER_ADDRESS);
        this.streamAdmission = new ConnectionAdmission(settings.maxConnections(), settings.maxPerAddress(),
            TcpCounters.OVER_MAX_CONNECTIONS, TcpCounters.OVER_MAX_PER_ADDRESS);
        this.loops = loops.clone();
        this.settings = settings;
        this.shards = new TcpShardConnections[loops.length];
        this.contacts = new WsContacts(loops.length);
        for (int k = 0; k < loops.length; k++)
        {
            shards[k] = new TcpShardConnections(k, loops[k], handlers.apply(k), counters, settings, contacts);
        }
    }

    /**
     * Before any bind: every SIP message read or written on shard k's connections (TCP, TLS, WS, WSS) is mirrored to
     * {@code captures.apply(k)} ({@link StreamCapture}). Not after a bind (the shards' loops read the agents).
     */
    public void capture(final IntFunction<HepCaptureAgent> captures)
    {
        for (int k = 0; k < shards.length; k++)
        {
            shards[k].capture(captures.apply(k));
        }
    }

    /** Shard k's connections; use on shard k's loop only. */
    public TcpShardConnections shard(final int k)
    {
        return shards[k];
    }

    /** Counters of every connection and listener (live). */
    public TcpCounters counters()
    {
        return counters;
    }

    /** Counters of the WebSocket layer of the WS and WSS listeners (live). */
    public WsCounters webSocketCounters()
    {
        return wsCounters;
    }

    /** Counters of the SIP messages carried by WebSocket connections (live). */
    public TcpCounters webSocketMessageCounters()
    {
        return wsMessageCounters;
    }

    /** Accepted TCP and TLS connections open now (TLS handshakes in progress included), over all shards; racy. */
    public int streamConnections()
    {
        return streamAdmission.open();
    }

    /** WebSocket connections open now (handshaking or upgraded), over all shards; racy. */
    public int webSocketConnections()
    {
        return wsAdmission.open();
    }

    /**
     * Listens on an address:port for TCP, or for TLS when {@code tls} is true (needs {@link StreamSettings#serverTls}).
     *
     * @return the bound address (the kernel's port when 0 was asked for).
     * @throws TcpBindException when the port is taken or cannot be bound; what this call bound is closed again.
     */
    public InetSocketAddress bind(final InetSocketAddress endpoint, final boolean tls) throws TcpBindException
    {
        return bind(endpoint, tls, false);
    }

    /**
     * Listens on an address:port for SIP over WebSocket (RFC 7118), over TLS ({@code wss}) when {@code tls} is true,
     * spread over the shards like TCP. Pipelines: {@code [SslHandler] -> WsFrames -> HttpServerCodec ->
     * HttpObjectAggregator -> WsHandshake}, then after the upgrade {@code [SslHandler] -> WsFrames -> TcpConnection}.
     *
     * @return the bound address (the kernel's port when 0 was asked for).
     * @throws TcpBindException as {@link #bind(InetSocketAddress, boolean)}.
     */
    public InetSocketAddress bindWebSocket(final InetSocketAddress endpoint, final boolean tls) throws TcpBindException
    {
        return bind(endpoint, tls, true);
    }

    private InetSocketAddress bind(final InetSocketAddress endpoint, final boolean tls, final boolean websocket)
        throws TcpBindException
    {
        if (tls && null == settings.serverTls())
        {
            throw new TcpBindException(endpoint, new IllegalStateException("no TLS certificate and key configured"));
        }
        final List<Channel> bound = new ArrayList<>();
        boolean ok = false;
        try
        {
            final InetSocketAddress result;
            if (settings.epoll())
            {
                if (0 != endpoint.getPort())
                {
                    probeExclusive(endpoint);
                }
                final Channel first = bindOn(0, endpoint, tls, websocket, bound);
                result = new InetSocketAddress(endpoint.getAddress(),
                    ((InetSocketAddress)first.localAddress()).getPort());
                for (int k = 1; k < shards.length; k++)
                {
                    bindOn(k, result, tls, websocket, bound);
                }
            }
            else
            {
                final Channel only = bindOn(bindings % shards.length, endpoint, tls, websocket, bound);
                result = new InetSocketAddress(endpoint.getAddress(),
                    ((InetSocketAddress)only.localAddress()).getPort());
            }
            bindings++;
            ok = true;
            synchronized (listeners)
            {
                listeners.addAll(bound);
            }
            return result;
        }
        finally
        {
            if (!ok)
            {
                for (final Channel ch : bound)
                {
                    ch.close().awaitUninterruptibly();
                }
            }
        }
    }

    /** SO_REUSEPORT would let us share a port another server already listens on: bind it alone first. */
    private static void probeExclusive(final InetSocketAddress endpoint) throws TcpBindException
    {
        try (ServerSocket probe = new ServerSocket())
        {
            probe.setReuseAddress(true); // TIME_WAIT leftovers of our own earlier runs are not a listener
            probe.bind(endpoint);
        }
        catch (final IOException e)
        {
            throw new TcpBindException(endpoint, e);
        }
    }

    private Channel bindOn(final int k, final InetSocketAddress endpoint, final boolean tls, final boolean websocket,
        final List<Channel> bound) throws TcpBindException
    {
        final TcpShardConnections shard = shards[k];
        final StreamMessageHandler handler = shard.handler();
        final ServerBootstrap bootstrap = listener(new ServerBootstrap()
            .group(loops[k], loops[k])
            .channelFactory(() -> settings.epoll() ? new EpollServerSocketChannel() : new NioServerSocketChannel()))
            .childHandler(new ChannelInitializer<Channel>()
            {
                @Override
                protected void initChannel(final Channel ch)
                {
                    if (tls)
                    {
                        ch.config().setAllocator(TlsAllocator.SHARED); // the engine's heap records: pooled arrays
                        final SslHandler ssl = settings.serverTls().newHandler(ch.alloc());
                        if (settings.messageTimeoutMillis() > 0 && !websocket)
                        {
                            // The handshake is part of the first message's time: that timer closes it, counted
                            ssl.setHandshakeTimeoutMillis(0);
                        }
                        ch.pipeline().addLast(ssl);
                    }
                    if (websocket)
                    {
                        webSocketPipeline(ch, shard, tls);
                        return;
                    }
                    ch.pipeline().addLast(new TcpConnection(handler, counters, settings.maxMessageBytes(),
                        settings.idleMillis(), shard, tls, null).limits(settings.messageTimeoutMillis(),
                        streamAdmission));
                }
            });
        if (settings.epoll())
        {
            bootstrap.option(EpollChannelOption.SO_REUSEPORT, true);
        }
        final ChannelFuture future = bootstrap.bind(endpoint).awaitUninterruptibly();
        if (!future.isSuccess())
        {
            throw new TcpBindException(endpoint, future.cause());
        }
        bound.add(future.channel());
        return future.channel();
    }

    private void webSocketPipeline(final Channel ch, final TcpShardConnections shard, final boolean tls)
    {
        final WsFrames frames = new WsFrames(ws, wsCounters, wsAdmission, settings.messageTimeoutMillis());
        ch.pipeline()
            .addLast("ws-frames", frames)
            .addLast(new HttpServerCodec(4096, 8192, 8192))
            .addLast(new HttpObjectAggregator(8192))
            .addLast(new WsHandshake(frames, ws, wsCounters, shard.handler(), wsMessageCounters, shard, tls));
    }

    /**
     * The socket options of every SIP listener and its connections: address reuse, a backlog of 1,024, pooled
     * buffers, no Nagle delay (a SIP message is one write), and write-buffer water marks that make a slow reader's
     * connection refuse sends rather than grow without bound.
     */
    static ServerBootstrap listener(final ServerBootstrap bootstrap)
    {
        return bootstrap
            .option(ChannelOption.SO_REUSEADDR, true)
            .option(ChannelOption.SO_BACKLOG, 1024)
            .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 1024 * 1024));
    }

    /**
     * Closes the listeners, then every connection (on its shard's loop), waiting at most {@code timeoutMillis}.
     * Call before the loops shut down. Idempotent.
     */
    public void close(final long timeoutMillis)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        final List<Channel> open;
        synchronized (listeners)
        {
            open = new ArrayList<>(listeners);
            listeners.clear();
        }
        for (final Channel ch : open)
        {
            ch.close().awaitUninterruptibly(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
        final CountDownLatch closed = new CountDownLatch(shards.length);
        for (int k = 0; k < shards.length; k++)
        {
            final TcpShardConnections shard = shards[k];
            try
            {
                loops[k].execute(() ->
                {
                    try
                    {
                        shard.closeAll();
                    }
                    finally
                    {
                        closed.countDown();
                    }
                });
            }
            catch (final RuntimeException loopGone)
            {
                closed.countDown();
            }
        }
        try
        {
            closed.await(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())),
                TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
