package io.sipline.sip.transport.tcp;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.FastThreadLocalThread;

/**
 * A SIP-over-TCP listener (RFC 3261 §18.3 stream framing, RFC 5626 §4.4.1 CRLF keep-alives): a Netty
 * {@link ServerBootstrap} on its own event-loop group built like the UDP shards' (native epoll when available and
 * asked for, NIO otherwise), bound to one address:port. Each accepted connection gets its own
 * {@link TcpConnection}, which frames messages, calls the {@link StreamMessageHandler} and closes the connection when
 * idle.
 *
 * <p><b>Threading.</b> One loop thread accepts; the group's threads serve the connections, each connection on one of
 * them for its whole life. The handler is called on the connection's loop (see {@link StreamMessageHandler}). Start,
 * {@link #send}, {@link #counters()} and {@link #close()} may be called from any thread; close from a loop thread of
 * this transport is not allowed (it waits for the loops).
 *
 * <p><b>Buffers.</b> Receive buffers come from the pooled allocator and are released by {@link TcpConnection} right
 * after their bytes are copied out; {@link #send} takes ownership of the buffer it is given.
 */
public final class TcpTransport implements AutoCloseable
{
    /** How long {@link #close()} waits for the loops to stop. */
    public static final long DEFAULT_CLOSE_MILLIS = 5_000;

    private static final Logger LOG = System.getLogger("io.sipline.sip.transport.tcp");

    private final TcpTransportConfig config;
    private final boolean epoll;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final TcpCounters counters = new TcpCounters();
    private final AtomicBoolean closed = new AtomicBoolean();
    private Channel server;
    private InetSocketAddress bound;

    private TcpTransport(final TcpTransportConfig config, final boolean epoll)
    {
        this.config = config;
        this.epoll = epoll;
        final IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        boss = new MultiThreadIoEventLoopGroup(1, new NamedThreadFactory("sipline-tcp-accept"), io);
        workers = new MultiThreadIoEventLoopGroup(config.threads(), new NamedThreadFactory("sipline-tcp"), io);
    }

    /**
     * Starts the loops and binds the listening socket.
     *
     * @param handler called for every framed message, on the connection's loop.
     * @throws TcpBindException when the address:port cannot be bound; nothing is left running then.
     */
    public static TcpTransport start(final TcpTransportConfig config, final StreamMessageHandler handler)
        throws TcpBindException
    {
        final boolean epoll = config.nativeTransport() && Epoll.isAvailable();
        if (config.nativeTransport() && !epoll)
        {
            LOG.log(Level.WARNING, "tcp: native epoll is unavailable (" + Epoll.unavailabilityCause() + "); using NIO");
        }
        final TcpTransport transport = new TcpTransport(config, epoll);
        boolean started = false;
        try
        {
            transport.bind(handler);
            started = true;
            return transport;
        }
        finally
        {
            if (!started)
            {
                transport.close(DEFAULT_CLOSE_MILLIS);
            }
        }
    }

    private void bind(final StreamMessageHandler handler) throws TcpBindException
    {
        final long idleMillis = config.idleMillis();
        final int maxMessageBytes = config.maxMessageBytes();
        final TcpCounters count = counters;
        final ServerBootstrap bootstrap = TcpShards.listener(new ServerBootstrap()
            .group(boss, workers)
            .channelFactory(() -> epoll ? new EpollServerSocketChannel() : new NioServerSocketChannel()))
            .childHandler(new ChannelInitializer<Channel>()
            {
                @Override
                protected void initChannel(final Channel ch)
                {
                    ch.pipeline().addLast(new TcpConnection(handler, count, maxMessageBytes, idleMillis));
                }
            });
        final ChannelFuture future = bootstrap.bind(config.bind()).awaitUninterruptibly();
        if (!future.isSuccess())
        {
            throw new TcpBindException(config.bind(), future.cause());
        }
        server = future.channel();
        final InetSocketAddress local = (InetSocketAddress)server.localAddress();
        bound = new InetSocketAddress(config.bind().getAddress(), local.getPort());
    }

    /** The address:port listened on, with the kernel's port when 0 was asked for. */
    public InetSocketAddress localAddress()
    {
        return bound;
    }

    /** "epoll" or "nio". */
    public String ioName()
    {
        return epoll ? "epoll" : "nio";
    }

    /** The listener's counters (live). */
    public TcpCounters counters()
    {
        return counters;
    }

    /**
     * Writes on a connection of this listener.
     *
     * @param bytes ownership passes to this method, written or not.
     * @return see {@link TcpConnection#send}.
     */
    public boolean send(final TcpConnection connection, final ByteBuf bytes)
    {
        return connection.send(bytes);
    }

    /**
     * Closes the listening socket (connections close with their loops), then shuts the loops down, waiting at most
     * {@code timeoutMillis} in all. Idempotent.
     *
     * @return true when every loop stopped in time.
     */
    public boolean close(final long timeoutMillis)
    {
        if (!closed.compareAndSet(false, true))
        {
            return true;
        }
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        if (null != server)
        {
            server.close().awaitUninterruptibly(remainingMillis(deadline));
        }
        final io.netty.util.concurrent.Future<?> a = boss.shutdownGracefully(0, Math.max(1, remainingMillis(deadline)),
            TimeUnit.MILLISECONDS);
        final io.netty.util.concurrent.Future<?> b = workers.shutdownGracefully(0,
            Math.max(1, remainingMillis(deadline)), TimeUnit.MILLISECONDS);
        final boolean first = a.awaitUninterruptibly(remainingMillis(deadline));
        return b.awaitUninterruptibly(remainingMillis(deadline)) && first;
    }

    @Override
    public void close()
    {
        close(DEFAULT_CLOSE_MILLIS);
    }

    private static long remainingMillis(final long deadline)
    {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    }

    /** "sipline-tcp-0", "sipline-tcp-1", ...; Netty's FastThreadLocalThread for its thread-local fast path. */
    private static final class NamedThreadFactory implements ThreadFactory
    {
        private final String prefix;
        private final AtomicInteger next = new AtomicInteger();

        NamedThreadFactory(final String prefix)
        {
            this.prefix = prefix;
        }

        @Override
        public Thread newThread(final Runnable task)
        {
            final Thread thread = new FastThreadLocalThread(task, prefix + "-" + next.getAndIncrement());
            thread.setDaemon(false);
            return thread;
        }
    }
}
