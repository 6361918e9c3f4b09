package io.sipline.sip.transport;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.DatagramSocket;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.concurrent.Future;
import io.sipline.sip.capture.HepCaptureAgent;

/**
 * The sharded UDP transport: N shards, each one single-thread Netty event loop that owns one
 * datagram channel per listening address:port. With native epoll every address:port is bound once per shard with
 * {@code SO_REUSEPORT}, so the kernel spreads datagrams over the shards by a hash of the sender's address and port (a
 * given peer always lands on the same shard). Without epoll (NIO, off Linux) a port cannot be shared: each
 * address:port gets one channel, on shard {@code i mod N}, and a log line says so.
 *
 * <p>Receive buffers are direct buffers of 64 KiB, enough for any UDP datagram, so none is ever cut short: one plain
 * buffer per shard where the shard reads its sockets itself ({@code UdpShardReads}), else pooled ones
 * ({@link PooledByteBufAllocator}) that the shard releases as soon as it has copied the datagram into its reused
 * message ({@link UdpShardSockets}). Each socket asks the kernel for {@value #SOCKET_BUFFER_BYTES} bytes of receive
 * and send buffer ({@code SO_RCVBUF}, {@code SO_SNDBUF}): the default (Linux {@code net.core.rmem_default}, about
 * 208 KiB) holds a few hundred datagrams, and a burst above that is dropped by the kernel before any shard sees it,
 * which the peer then retransmits. The kernel caps the request at {@code net.core.rmem_max}/{@code wmem_max}; when the
 * granted size is smaller, one log line at start says so and names the sysctl that raises it.
 *
 * <p>Starting binds everything or nothing: on any failure the channels already bound are closed, the loops shut down,
 * and a {@link UdpBindException} names the address that failed. Before the shards bind a concrete port with
 * {@code SO_REUSEPORT}, a plain socket binds it alone for a moment: {@code SO_REUSEPORT} would otherwise let this
 * server silently share a port that another server of the same user already listens on.
 *
 * <p>Thread-safe: start and close from any thread; {@link #close(long)} is idempotent.
 */
public final class UdpTransport implements AutoCloseable
{
    /** Receive buffer size: larger than any UDP payload (65,507 bytes over IPv4, 65,527 over IPv6). */
    public static final int RECEIVE_BUFFER_BYTES = 65_536;
    /** What each socket asks the kernel for as its receive and its send buffer (4 MiB). */
    public static final int SOCKET_BUFFER_BYTES = 4 * 1024 * 1024;
    /** How long {@link #close()} waits for the loops to stop. */
    public static final long DEFAULT_CLOSE_MILLIS = 5_000;
    /**
     * System property: {@code false} makes every datagram on a listening socket go through Netty's write instead of
     * the shard's own {@code sendto} ({@link UdpSendTo}; see {@link UdpShardSockets}, "Sends on a listening socket").
     */
    public static final String SENDTO_PROP_NAME = "sipline.udp.sendto";
    /** {@link #SENDTO_PROP_NAME}'s default: on wherever it can be (epoll on Linux, FFM able to call libc). */
    public static final boolean SENDTO_DEFAULT = true;
    /**
     * System property: {@code false} leaves the listening sockets and the connected peer channels to Netty's reads
     * instead of the shard's own {@code recvmsg} ({@link UdpRecvMsg}; see {@link UdpShardSockets}); their datagrams are
     * then timed by {@link RealtimeClock} when read, not by the kernel.
     */
    public static final String RECVFROM_PROP_NAME = "sipline.udp.recvfrom";
    /** {@link #RECVFROM_PROP_NAME}'s default: on wherever it can be. */
    public static final boolean RECVFROM_DEFAULT = true;
    /**
     * System property: {@code false} makes the shard's own reads take one {@code recvmsg} per datagram instead of
     * batches of {@code recvmmsg} ({@link UdpRecvMmsg}); no effect when {@link #RECVFROM_PROP_NAME} is off.
     */
    public static final String RECVMMSG_PROP_NAME = "sipline.udp.recvmmsg";
    /** {@link #RECVMMSG_PROP_NAME}'s default: on wherever it can be. */
    public static final boolean RECVMMSG_DEFAULT = true;

    private static final Logger LOG = System.getLogger("io.sipline.sip.transport");

    private final UdpTransportConfig config;
    private final boolean epoll;
    private final EventLoopGroup[] loops;
    private final UdpShardSockets[] shards;
    private final List<Channel> channels = new ArrayList<>();
    private final List<InetSocketAddress> endpoints = new ArrayList<>();
    private final DistinctErrors errors = new DistinctErrors();
    private final AtomicBoolean closed = new AtomicBoolean();
    private int steeredGroups;
    private int steeringFailures;

    private UdpTransport(final UdpTransportConfig config, final boolean epoll, final SipMessageHandler.Factory handlers,
        final IntFunction<HepCaptureAgent> captures)
    {
        this.config = config;
        this.epoll = epoll;
        final int n = config.shards();
        final IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        final ByteBufAllocator allocator = PooledByteBufAllocator.DEFAULT;
        loops = new EventLoopGroup[n];
        shards = new UdpShardSockets[n];
        // Handlers first: a factory that throws leaves no thread behind.
        // Connected peer channels need SO_REUSEPORT (epoll): NIO has one socket per address:port.
        final UdpPeerConfig peers = epoll ? config.peers() : UdpPeerConfig.OFF;
        final boolean sendTo = epoll && UdpSendTo.AVAILABLE
            && Boolean.parseBoolean(System.getProperty(SENDTO_PROP_NAME, Boolean.toString(SENDTO_DEFAULT)));
        final boolean recvFrom = epoll && UdpRecvMsg.AVAILABLE
            && Boolean.parseBoolean(System.getProperty(RECVFROM_PROP_NAME, Boolean.toString(RECVFROM_DEFAULT)));
        final boolean batched = recvFrom && UdpRecvMmsg.AVAILABLE
            && Boolean.parseBoolean(System.getProperty(RECVMMSG_PROP_NAME, Boolean.toString(RECVMMSG_DEFAULT)));
        for (int k = 0; k < n; k++)
        {
            final UdpRecvMsg recv = recvFrom ? new UdpRecvMsg() : null;
            shards[k] = new UdpShardSockets(k, handlers.create(k), allocator, errors, peers,
                sendTo ? new UdpSendTo() : null, recv,
                batched ? new UdpRecvMmsg(recv, UdpShardSockets.READS_PER_WAKEUP) : null);
            shards[k].capture(null == captures ? null : captures.apply(k));
        }
        for (final UdpShardSockets shard : shards)
        {
            shard.shards(shards);
        }
        for (int k = 0; k < n; k++)
        {
            loops[k] = new MultiThreadIoEventLoopGroup(1, new ShardThreadFactory(k), io);
        }
    }

    /**
     * Starts the shards and binds every address:port of the configuration.
     *
     * @param handlers makes the handler of each shard.
     * @throws UdpBindException when an address:port cannot be bound; nothing is left running then.
     */
    public static UdpTransport start(final UdpTransportConfig config, final SipMessageHandler.Factory handlers)
        throws UdpBindException
    {
        return start(config, handlers, null);
    }

    /**
     * Starts the shards as {@link #start(UdpTransportConfig, SipMessageHandler.Factory)} does, each shard mirroring
     * every SIP datagram it reads or sends to its HEP capture agent.
     *
     * @param captures shard k's capture agent (null for none), or null for no capture at all.
     */
    public static UdpTransport start(final UdpTransportConfig config, final SipMessageHandler.Factory handlers,
        final IntFunction<HepCaptureAgent> captures) throws UdpBindException
    {
        final boolean epoll = config.nativeTransport() && Epoll.isAvailable();
        if (!epoll)
        {
            final String why = config.nativeTransport() ?
                "native epoll is unavailable (" + Epoll.unavailabilityCause() + ")" : "NIO was asked for";
            LOG.log(Level.WARNING, "udp: " + why + "; using NIO, which cannot share a port between shards "
                + "(no SO_REUSEPORT): each address:port gets one channel on one shard");
        }
        final UdpTransport transport = new UdpTransport(config, epoll, handlers, captures);
        boolean started = false;
        try
        {
            transport.bindAll();
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

    private void bindAll() throws UdpBindException
    {
        final int n = shards.length;
        final int[] ports = config.ports();
        int endpoint = 0;
        for (final InetAddress address : config.addresses())
        {
            for (final int port : ports)
            {
                final InetSocketAddress wanted = new InetSocketAddress(address, port);
                if (epoll)
                {
                    if (0 != port)
                    {
                        probeExclusive(wanted);
                    }
                    // Shard 0 binds first; with port 0 the kernel picks the port, and every other shard joins it.
                    final Channel first = bind(0, wanted);
                    final InetSocketAddress bound = (InetSocketAddress)first.localAddress();
                    final InetSocketAddress shared = new InetSocketAddress(address, bound.getPort());
                    for (int k = 1; k < n; k++)
                    {
                        bind(k, shared);
                    }
                    if (config.steerByCpu())
                    {
                        steerByCpu(first, shared);
                    }
                    endpoints.add(shared);
                }
                else
                {
                    final Channel only = bind(endpoint % n, wanted);
                    endpoints.add(new InetSocketAddress(address, ((InetSocketAddress)only.localAddress()).getPort()));
                }
                endpoint++;
            }
        }
    }

    /**
     * Attaches the CPU steering program to one address:port's group ({@link SocketFilters#steerByCpu}). A kernel that
     * refuses it leaves the group on its hash: one log line says why, and {@link #steersByCpu()} says false.
     */
    private void steerByCpu(final Channel first, final InetSocketAddress endpoint)
    {
        try
        {
            SocketFilters.steerByCpu(first, shards.length);
            steeredGroups++;
        }
        catch (final RuntimeException e)
        {
            if (0 == steeringFailures++)
            {
                LOG.log(Level.WARNING, "udp: cannot steer " + describe(endpoint) + " by CPU (SO_ATTACH_REUSEPORT_CBPF: "
                    + e.getMessage() + "); datagrams are spread by the kernel's hash of the sender instead");
            }
        }
    }

    /** Fails like a normal bind would when anyone else holds the port, even with SO_REUSEPORT. */
    private static void probeExclusive(final InetSocketAddress endpoint) throws UdpBindException
    {
        try (DatagramSocket probe = new DatagramSocket(null))
        {
            probe.setReuseAddress(false);
            probe.bind(endpoint);
        }
        catch (final IOException e)
        {
            throw new UdpBindException(endpoint, e);
        }
    }

    private Channel bind(final int shard, final InetSocketAddress endpoint) throws UdpBindException
    {
        final SocketProtocolFamily family = endpoint.getAddress() instanceof Inet6Address ?
            SocketProtocolFamily.INET6 : SocketProtocolFamily.INET;
        final Bootstrap bootstrap = new Bootstrap()
            .group(loops[shard])
            .channelFactory(() -> epoll ? new EpollDatagramChannel(family) : new NioDatagramChannel(family))
            .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
            .option(ChannelOption.RECVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(RECEIVE_BUFFER_BYTES))
            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 1024 * 1024))
            .option(ChannelOption.SO_RCVBUF, SOCKET_BUFFER_BYTES)
            .option(ChannelOption.SO_SNDBUF, SOCKET_BUFFER_BYTES)
            .handler(shards[shard]);
        if (epoll)
        {
            bootstrap.option(EpollChannelOption.SO_REUSEPORT, true);
        }
        final ChannelFuture bound = bootstrap.bind(endpoint).awaitUninterruptibly();
        if (!bound.isSuccess())
        {
            throw new UdpBindException(endpoint, bound.cause());
        }
        synchronized (channels)
        {
            if (channels.isEmpty())
            {
                reportSocketBuffers(bound.channel());
            }
            channels.add(bound.channel());
        }
        return bound.channel();
    }

    /** One line when the kernel granted less socket buffer than asked (Linux reports twice what it grants). */
    private static void reportSocketBuffers(final Channel channel)
    {
        final Integer receive = channel.config().getOption(ChannelOption.SO_RCVBUF);
        if (null != receive && receive < SOCKET_BUFFER_BYTES)
        {
            LOG.log(Logger.Level.WARNING, "UDP receive buffer is " + receive + " bytes, asked for "
                + SOCKET_BUFFER_BYTES + ": raise it with sysctl -w net.core.rmem_max=" + SOCKET_BUFFER_BYTES
                + " (and net.core.wmem_max) so that bursts are not dropped by the kernel");
        }
    }

    /** The bound endpoints, one per address:port (ports resolved when 0 was asked for), in configuration order. */
    public List<InetSocketAddress> localAddresses()
    {
        return List.copyOf(endpoints);
    }

    /**
     * Shard k's handler (its sockets, counters and send methods); use it only on shard k's loop, but see
     * {@link UdpShardSockets}.
     */
    public UdpShardSockets shard(final int shard)
    {
        return shards[shard];
    }

    /** Shard k's event loop: the one thread that runs everything of shard k. */
    public io.netty.channel.EventLoop eventLoop(final int shard)
    {
        return loops[shard].next();
    }

    /** The number of shards. */
    public int shardCount()
    {
        return shards.length;
    }

    /** "epoll" or "nio". */
    public String ioName()
    {
        return epoll ? "epoll" : "nio";
    }

    /**
     * True when every address:port's reuseport group picks shards by the receiving CPU ({@link
     * UdpTransportConfig#steerByCpu()} asked for it and the kernel took every program).
     */
    public boolean steersByCpu()
    {
        return steeredGroups > 0 && 0 == steeringFailures;
    }

    /** True when every address:port is bound once per shard (epoll with SO_REUSEPORT). */
    public boolean sharesPorts()
    {
        return epoll;
    }

    /** The number of datagram channels open (address:ports × shards with epoll). */
    public int channelCount()
    {
        synchronized (channels)
        {
            return channels.size();
        }
    }

    /** The counters of one shard, as of now; any thread. */
    public ShardCounters counters(final int shard)
    {
        return shards[shard].snapshot();
    }

    /** The counters summed over the shards, as of now; any thread. */
    public ShardCounters totals()
    {
        final ShardCounters[] all = new ShardCounters[shards.length];
        for (int k = 0; k < shards.length; k++)
        {
            all[k] = shards[k].snapshot();
        }
        return ShardCounters.sum(all);
    }

    /** "udp 127.0.0.1:5060" for an endpoint, IPv6 in brackets. */
    public static String describe(final InetSocketAddress endpoint)
    {
        return "udp " + NetUtil.toSocketAddressString(endpoint);
    }

    /**
     * Closes every channel, then shuts the loops down gracefully (no quiet period: UDP has no connections to drain),
     * waiting at most {@code timeoutMillis} in all. Idempotent; any thread but a shard's own.
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
        final List<Channel> open;
        synchronized (channels)
        {
            open = new ArrayList<>(channels);
        }
        // Connected peer channels first, each on its shard's loop (they are not in the channel list).
        final List<Future<?>> peersClosing = new ArrayList<>(shards.length);
        for (int k = 0; k < shards.length; k++)
        {
            final UdpShardSockets shard = shards[k];
            if (null != loops[k] && !loops[k].isShuttingDown())
            {
                peersClosing.add(loops[k].submit(shard::closePeers));
            }
        }
        for (final Future<?> future : peersClosing)
        {
            future.awaitUninterruptibly(remainingMillis(deadline));
        }
        final List<ChannelFuture> closing = new ArrayList<>(open.size());
        for (final Channel channel : open)
        {
            closing.add(channel.close());
        }
        for (final ChannelFuture future : closing)
        {
            future.awaitUninterruptibly(remainingMillis(deadline));
        }
        final List<Future<?>> stopping = new ArrayList<>(loops.length);
        for (final EventLoopGroup loop : loops)
        {
            if (null != loop)
            {
                stopping.add(loop.shutdownGracefully(0, Math.max(1, remainingMillis(deadline)),
                    TimeUnit.MILLISECONDS));
            }
        }
        boolean all = true;
        for (final Future<?> future : stopping)
        {
            all &= future.awaitUninterruptibly(remainingMillis(deadline));
        }
        return all;
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

    /** Names shard k's thread "sipline-shard-k"; Netty's FastThreadLocalThread for its thread-local fast path. */
    private static final class ShardThreadFactory implements ThreadFactory
    {
        private final int shard;

        ShardThreadFactory(final int shard)
        {
            this.shard = shard;
        }

        @Override
        public Thread newThread(final Runnable task)
        {
            final Thread thread = new FastThreadLocalThread(task, "sipline-shard-" + shard);
            thread.setDaemon(false);
            return thread;
        }
    }
}
