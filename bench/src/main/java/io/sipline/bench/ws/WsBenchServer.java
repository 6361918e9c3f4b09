package io.sipline.bench.ws;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.PooledByteBufAllocator;
import io.sipline.bench.stack.StatefulResponder;
import io.sipline.sip.stack.SipStack;
import io.sipline.sip.stack.SipStackConfig;
import io.sipline.sip.transport.tcp.TcpCounters;
import io.sipline.sip.transport.tcp.WsSettings;

/**
 * The server side of {@code bin/sipline bench ws}: a {@link SipStack} on loopback with UDP and TCP on one port and a
 * WS listener, every request answered 200 by its server transaction ({@link StatefulResponder}); no connection limit
 * per address (the bench opens thousands from 127.0.0.1). Prints {@code READY <tcp port> <ws port>}, then answers on
 * stdin:
 * <ul>
 *   <li>{@code stats}: {@code STATS <answered requests> <bytes allocated by the shard threads> <connections: TCP
 *       and TLS> <connections: WS>};</li>
 *   <li>{@code mem}: after two full collections, {@code MEM <heap used> <Netty direct> <JDK direct>}, the figures of
 *       the server's {@code sipline_jvm_heap_used_bytes} and {@code sipline_jvm_direct_memory_used_bytes} gauges;</li>
 *   <li>{@code quit} (or EOF): stops.</li>
 * </ul>
 * Runs in its own JVM so that its CPU time and memory are its own.
 */
public final class WsBenchServer
{
    private WsBenchServer()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int shards = Integer.parseInt(args[0]);
        final AtomicLong answered = new AtomicLong();
        final WsSettings ws = new WsSettings(null, null, WsSettings.DEFAULT_MAX_BYTES, WsSettings.DEFAULT_MAX_BYTES, 0,
            0, WsSettings.DEFAULT_PING_MILLIS, WsSettings.DEFAULT_IDLE_MILLIS, WsSettings.DEFAULT_HANDSHAKE_MILLIS);
        final SipStackConfig config = new SipStackConfig().addresses(List.of(InetAddress.ofLiteral("127.0.0.1")))
            .ports(0).shards(shards).tcp(true).wsPorts(0).webSocket(ws).initialTransactionPool(4096);
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        final BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter(p -> "direct".equals(p.getName())).findFirst().orElseThrow();
        try (SipStack stack = SipStack.start(config, StatefulResponder.factory(answered)))
        {
            System.out.println("READY " + stack.tcpAddresses().getFirst().getPort() + " "
                + stack.wsAddresses().getFirst().getPort());
            System.out.flush();
            final long[] ids = stack.shardThreadIds();
            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
            for (String line = in.readLine(); null != line && !"quit".equals(line.trim()); line = in.readLine())
            {
                if ("stats".equals(line.trim()))
                {
                    long bytes = 0;
                    for (final long id : ids)
                    {
                        bytes += Math.max(0, threads.getThreadAllocatedBytes(id));
                    }
                    final TcpCounters tcp = stack.streamCounters();
                    System.out.println("STATS " + answered.get() + " " + bytes + " "
                        + (tcp.get(TcpCounters.ACCEPTED) - tcp.get(TcpCounters.CLOSED)) + " "
                        + stack.webSocketConnections());
                }
                else if ("mem".equals(line.trim()))
                {
                    System.gc();
                    System.gc();
                    System.out.println("MEM " + memory.getHeapMemoryUsage().getUsed() + " "
                        + PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory() + " " + direct.getMemoryUsed());
                }
                System.out.flush();
            }
        }
    }
}
