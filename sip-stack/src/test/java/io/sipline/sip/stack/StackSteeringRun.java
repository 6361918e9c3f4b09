package io.sipline.sip.stack;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.sipline.sip.stack.demo.DemoUas;
import io.sipline.sip.transport.UdpPeerConfig;
import io.sipline.test.Sipp;

/**
 * How one busy UDP peer's datagrams spread over the shards, with the kernel's reuseport hash (the baseline) and with
 * CPU steering ({@link SipStackConfig#udpSteerByCpu}), each with connected peer channels off and on, in the same run:
 * sipp's built-in {@code uac} (one socket) at a fixed rate against a {@link DemoUas} on two shards. Prints, per run,
 * the datagrams each shard read, the hand-overs between shards, the shard threads' CPU time, and sipp's successful
 * and failed calls.
 *
 * <p>{@code StackSteeringRun [calls [rate [rounds]]]} (5,000 calls at 500 per second, 2 rounds). Not a test: a
 * measurement to run by hand on a quiet machine.
 */
public final class StackSteeringRun
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");

    private StackSteeringRun()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int calls = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
        final int rate = args.length > 1 ? Integer.parseInt(args[1]) : 500;
        final int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        for (int round = 0; round < rounds; round++)
        {
            for (final boolean peers : new boolean[] {false, true})
            {
                for (final boolean cpu : new boolean[] {false, true})
                {
                    run(calls, rate, cpu, peers, "steer-" + round + (cpu ? "-cpu" : "-hash") + (peers ? "-peers" : ""));
                }
            }
        }
    }

    private static void run(final int calls, final int rate, final boolean cpu, final boolean peers,
        final String name) throws Exception
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        try (SipStack stack = SipStack.start(new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0).shards(2)
            .tcp(false).udpSteerByCpu(cpu).udpPeers(peers ? UdpPeerConfig.DEFAULT : UdpPeerConfig.OFF),
            DemoUas.factory(new DemoUas.Stats())))
        {
            final InetSocketAddress server = stack.localAddresses().get(0);
            final long[] ids = stack.shardThreadIds();
            final long cpuBefore = cpuNs(threads, ids);
            Process sipp = null;
            try
            {
                sipp = Sipp.start(name, List.of("127.0.0.1:" + server.getPort(), "-sn", "uac", "-m",
                    Integer.toString(calls), "-r", Integer.toString(rate), "-l", "2000", "-timeout", "120s",
                    "-timeout_error", "-max_retrans", "10"));
                if (!sipp.waitFor(130, TimeUnit.SECONDS))
                {
                    System.out.println(name + ": sipp did not end in time");
                }
            }
            finally
            {
                Sipp.stop(sipp);
            }
            final long cpuNs = cpuNs(threads, ids) - cpuBefore;
            final long[] okFailed = Sipp.successAndFailed(name);
            System.out.printf("%-22s steering %-4s (asked %-5s) peers %-3s: datagrams read by shard 0 %,d, shard 1 %,d;"
                + " hand-overs %,d; shard CPU %.2f s; calls ok %d failed %d%n", name,
                stack.transport().steersByCpu() ? "cpu" : "hash", cpu, peers ? "on" : "off",
                stack.transport().counters(0).datagramsIn(), stack.transport().counters(1).datagramsIn(),
                stack.handoffs(), cpuNs / 1e9, okFailed[0], okFailed[1]);
        }
    }

    private static long cpuNs(final com.sun.management.ThreadMXBean threads, final long[] ids)
    {
        long n = 0;
        for (final long id : ids)
        {
            n += threads.getThreadCpuTime(id);
        }
        return n;
    }
}
