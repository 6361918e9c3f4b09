package io.sipline.bench.stack;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.sipline.sip.stack.SipStack;
import io.sipline.sip.stack.SipStackConfig;
import io.sipline.sip.transport.StatelessResponder;
import io.sipline.sip.transport.UdpTransport;
import io.sipline.sip.transport.UdpTransportConfig;

/**
 * The server side of {@code bin/sipline bench stack}: an OPTIONS responder on loopback, either the transport's
 * {@link StatelessResponder} ({@code stateless}) or the {@link SipStack} with a server transaction per request
 * ({@code stateful}, {@link StatefulResponder}). Prints {@code READY port...} on stdout, then answers each
 * {@code stats} line on stdin with {@code STATS <transactions> <allocated bytes of the shard threads>}, and stops at
 * {@code quit} or EOF.
 * Runs in its own JVM so that its CPU time can be read from {@code /proc/<pid>/stat}.
 */
public final class BenchServer
{
    private BenchServer()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final String mode = args[0];
        final int portCount = Integer.parseInt(args[1]);
        final int shards = Integer.parseInt(args[2]);
        final InetAddress loopback = InetAddress.ofLiteral("127.0.0.1");
        final int[] ports = new int[portCount];
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        if ("stateless".equals(mode))
        {
            try (UdpTransport transport = UdpTransport.start(
                new UdpTransportConfig(List.of(loopback), ports, shards, true), StatelessResponder.factory()))
            {
                ready(transport.localAddresses());
                loop(in, threads, () -> transport.totals().responsesSent(), shardThreads(shards));
            }
        }
        else
        {
            final AtomicLong answered = new AtomicLong();
            try (SipStack stack = SipStack.start(new SipStackConfig().addresses(List.of(loopback)).ports(ports)
                .shards(shards).initialTransactionPool(4096), StatefulResponder.factory(answered)))
            {
                ready(stack.localAddresses());
                final long[] ids = stack.shardThreadIds();
                loop(in, threads, answered::get, ids);
            }
        }
    }

    private static void ready(final List<InetSocketAddress> endpoints)
    {
        final StringBuilder sb = new StringBuilder("READY");
        for (final InetSocketAddress e : endpoints)
        {
            sb.append(' ').append(e.getPort());
        }
        System.out.println(sb);
        System.out.flush();
    }

    /** Thread ids of the transport's "sipline-shard-k" threads. */
    private static long[] shardThreads(final int shards)
    {
        final long[] ids = new long[shards];
        int n = 0;
        for (final Thread t : Thread.getAllStackTraces().keySet())
        {
            if (t.getName().startsWith("sipline-shard-") && n < shards)
            {
                ids[n++] = t.threadId();
            }
        }
        return java.util.Arrays.copyOf(ids, n);
    }

    private static void loop(final BufferedReader in, final com.sun.management.ThreadMXBean threads,
        final java.util.function.LongSupplier transactions, final long[] ids) throws Exception
    {
        String line;
        while (null != (line = in.readLine()))
        {
            if ("stats".equals(line.trim()))
            {
                long bytes = 0;
                for (final long id : ids)
                {
                    bytes += Math.max(0, threads.getThreadAllocatedBytes(id));
                }
                System.out.println("STATS " + transactions.getAsLong() + " " + bytes);
                System.out.flush();
            }
            else if ("quit".equals(line.trim()))
            {
                return;
            }
        }
    }
}
