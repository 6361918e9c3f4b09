package io.sipline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sipline.container.e2e.Examples;
import io.sipline.container.e2e.KamailioFront;
import io.sipline.container.e2e.SiplineServer;
import io.sipline.container.e2e.SippRun;
import io.sipline.test.Sipp;

/**
 * Failover end to end: Kamailio with the repository's front configuration in front of three Sipline nodes that run
 * the distributable b2bua example in one grid. A sipp caller sets up calls through the front and holds them; once
 * every call is established (the callee counted every ACK) the node that owns a share of them is killed with
 * SIGKILL, and while the callers' BYEs come the front sends the dead node's in-dialog requests to a survivor, which
 * takes the call over from the grid and relays the BYE to the callee. Every held call ends with its BYE answered 200
 * and relayed (0 failed calls at the caller and at the callee), and new calls started at the kill are all served.
 * <p>
 * Sizes: {@code sipline.failover.calls} held calls (default 150) at {@code sipline.failover.rate} calls/s
 * (default 30), so that the test stays within about a minute and a half on two cores; the figure in
 * docs/performance.md is the same test with 1,000 calls. It prints the time from the kill to the first of the dead
 * node's calls answered by a survivor.
 * <p>
 * Threading: one test thread; the helpers read the children's output on daemon threads.
 */
class FailoverE2eTest
{
    private static final int HELD = Integer.getInteger("sipline.failover.calls", 150);
    private static final int RATE = Integer.getInteger("sipline.failover.rate", 30);
    /** Calls started at the kill, at 10 calls/s: their INVITEs meet the front before and after it notices. */
    private static final int NEW_CALLS = 30;
    private static final int NODES = 3;
    private static final int PING_SECONDS = 1;

    @TempDir
    static Path work;

    @Test
    void shouldEndEveryHeldCallOfAKilledNodeThroughASurvivor() throws Exception
    {
        assertTrue(Sipp.available(), "sipp is needed (apt-get install sip-tester)");
        assertTrue(KamailioFront.available(), "kamailio is needed (apt-get install kamailio)");
        final int calleePort = Sipp.freeUdpPort();
        final Path war = Examples.configured("b2bua", Map.of("target", "sip:service@127.0.0.1:" + calleePort),
            work.resolve("apps"));
        final List<InetSocketAddress> grid = new ArrayList<>();
        for (int i = 0; i < NODES; i++)
        {
            grid.add(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), freeTcpPort()));
        }
        final List<SiplineServer> nodes = new ArrayList<>();
        try
        {
            for (int i = 0; i < NODES; i++)
            {
                nodes.add(SiplineServer.start("failover-node-" + (i + 1), node(war, grid, i)));
            }
            for (final SiplineServer n : nodes)
            {
                assertTrue(n.awaitLine(l -> l.contains(" member on "), 1_000), n.output());
            }
            try (KamailioFront front = KamailioFront.start("failover-front", nodes.stream()
                .map(SiplineServer::port).toList(), PING_SECONDS))
            {
                failover(front, nodes, calleePort);
            }
            for (int i = 0; i < NODES; i++)
            {
                if (1 != i)
                {
                    nodes.get(i).stopCleanly();
                }
            }
        }
        finally
        {
            nodes.forEach(SiplineServer::close);
        }
    }

    private static void failover(final KamailioFront front, final List<SiplineServer> nodes, final int calleePort)
        throws Exception
    {
        final SiplineServer victim = nodes.get(1);
        final String toVictim = "to sip:127.0.0.1:" + victim.port();
        final String held = Examples.scenario("held-caller.xml", Map.of());
        // the BYEs start 3 s after the last call is set up: the kill, as soon as every ACK is counted, comes first
        final long holdMs = 1_000L * HELD / RATE + 3_000;
        final Process callee = SippRun.callee("failover-uas", calleePort, HELD + NEW_CALLS,
            List.of("-sn", "uas", "-trace_counts"));
        Process caller = null;
        try
        {
            final long start = System.nanoTime();
            caller = Sipp.start("failover-uac", List.of("-sf", held, "-s", "service", "-d", Long.toString(holdMs),
                "-m", Integer.toString(HELD), "-r", Integer.toString(RATE), "-l", Integer.toString(HELD),
                "-timeout", "120s", "-timeout_error", "127.0.0.1:" + front.port()));
            assertTrue(poll(() -> acks("failover-uas") >= HELD, 30_000L + 1_000L * HELD / RATE),
                "not every call was set up: " + acks("failover-uas") + " ACKs at the callee\n"
                    + Sipp.report("failover-uac") + "\n== front\n" + front.output());
            final long established = System.nanoTime();
            final Set<String> victimCalls = callIds(front.lines(l -> l.contains("dispatch INVITE")
                && l.endsWith(toVictim)), "dispatch INVITE ");
            final long onVictim = victimCalls.size();
            assertTrue(onVictim >= HELD / 10, "the victim owns a share of the calls: " + onVictim);

            final long killed = victim.killAbruptly();
            final SippRun fresh = SippRun.call("failover-new", front.port(), NEW_CALLS, 10, NEW_CALLS * 100L,
                List.of("-sf", held, "-s", "service", "-d", "0"));

            assertTrue(caller.waitFor(60, TimeUnit.SECONDS), "the held calls' caller did not end\n"
                + Sipp.report("failover-uac"));
            final long[] heldCounts = Sipp.successAndFailed("failover-uac");
            final String why = Sipp.report("failover-uac") + "\n== front\n" + front.output();
            assertEquals(HELD, heldCounts[0], why);
            assertEquals(0, heldCounts[1], why);
            assertEquals(0, caller.exitValue(), why);
            assertEquals(NEW_CALLS, fresh.successful(), fresh + "\n" + Sipp.report("failover-new"));
            assertEquals(0, fresh.failed(), fresh + "\n" + Sipp.report("failover-new"));
            SippRun.awaitCallee("failover-uas", callee, HELD + NEW_CALLS, nodes.get(0));

            final Set<String> answered = callIds(front.lines(l -> l.contains("sipline-front: in-dialog BYE")
                && l.contains("answered 200")), "in-dialog BYE ");
            final Set<String> lost = new TreeSet<>(victimCalls);
            lost.removeAll(answered);
            assertTrue(lost.isEmpty(), "every BYE of the victim's " + onVictim + " calls answered by a survivor; not: "
                + lost + "\n" + front.output());
            final long takenOver = answered.size();
            final long first = front.firstLineNanos(l -> l.contains("answered 200"));
            System.out.printf("failover: %d held calls (%d on the killed node) set up in %d ms; the first of the "
                + "killed node's calls answered by a survivor %d ms after SIGKILL; %d BYEs taken over, %d new calls "
                + "served meanwhile%n", HELD, onVictim, TimeUnit.NANOSECONDS.toMillis(established - start),
                TimeUnit.NANOSECONDS.toMillis(first - killed), takenOver, fresh.successful());
        }
        finally
        {
            Sipp.stop(caller);
            Sipp.stop(callee);
        }
    }

    /** Node {@code i} of the grid {@code grid}: the b2bua deployed, its peers the other members. */
    private static List<String> node(final Path war, final List<InetSocketAddress> grid, final int i)
    {
        final List<String> peers = new ArrayList<>();
        for (int j = 0; j < grid.size(); j++)
        {
            if (j != i)
            {
                peers.add("127.0.0.1:" + grid.get(j).getPort());
            }
        }
        // --warmup: a node compiled before its ports open takes the first calls without refusing them as overloaded
        return List.of("--warmup", "3000", "--deploy", war.toString(), "--cluster-name", "failover-e2e",
            "--cluster-bind", "127.0.0.1:" + grid.get(i).getPort(), "--cluster-peers", String.join(",", peers),
            "--cluster-node", Integer.toString(i + 1));
    }

    /** ACKs the callee counted so far (sipp's -trace_counts, written every second), or 0. */
    private static long acks(final String name)
    {
        try (Stream<Path> files = Files.list(Path.of("target", "sipp", name)))
        {
            // the newest file: an earlier run of the test left its own (sipp names them by its pid)
            final Path f = files.filter(p -> p.getFileName().toString().endsWith("_counts.csv"))
                .max(java.util.Comparator.comparingLong(p -> p.toFile().lastModified())).orElse(null);
            final List<String> lines = null == f ? List.of() : Files.readAllLines(f);
            if (lines.size() < 2)
            {
                return 0;
            }
            final List<String> columns = List.of(lines.getFirst().split(";"));
            final String[] last = lines.getLast().split(";");
            final int i = columns.indexOf("3_ACK_Recv");
            return i >= 0 && i < last.length ? Long.parseLong(last[i].trim()) : 0;
        }
        catch (final IOException | RuntimeException e)
        {
            return 0;
        }
    }

    /** Polls {@code condition} every 50 ms until it holds or {@code timeoutMs} pass (leaves the cores to the load). */
    private static boolean poll(final java.util.function.BooleanSupplier condition, final long timeoutMs)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            Thread.sleep(50);
        }
        return true;
    }

    private static int freeTcpPort() throws IOException
    {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.ofLiteral("127.0.0.1")))
        {
            return s.getLocalPort();
        }
    }

    /** The Call-IDs that follow {@code marker} in the front's log lines. */
    private static Set<String> callIds(final List<String> lines, final String marker)
    {
        final Set<String> ids = new TreeSet<>();
        for (final String line : lines)
        {
            final int at = line.indexOf(marker);
            if (at >= 0)
            {
                final int from = at + marker.length();
                final int end = line.indexOf(' ', from);
                ids.add(end < 0 ? line.substring(from) : line.substring(from, end));
            }
        }
        return ids;
    }
}
