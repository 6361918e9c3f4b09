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
import java.util.Random;
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
 * the distributable b2bua example in one grid, each node sending its outbound legs through the front
 * ({@code --cluster-front}), so that both legs of every call are record-routed by it. sipp callers set up calls
 * through the front and hold them; once every call is established (the callee counted every ACK) the node that owns
 * a share of them is killed with SIGKILL, and the front sends the dead node's in-dialog requests to a survivor, which
 * takes the call over from the grid:
 * <ul>
 * <li>most calls are ended by the caller's BYE, relayed to the callee;</li>
 * <li>some by the callee's BYE (sent to the dead node's Contact through the front), relayed to the caller;</li>
 * <li>some get a re-INVITE from the caller (relayed to the callee, answered, ACKed) before the caller's BYE;</li>
 * <li>new calls started at the kill are all served.</li>
 * </ul>
 * Every call ends with its BYE answered 200 and relayed (0 failed calls at every caller and at the callee), and every
 * call the killed node owned is answered by a survivor. Then the killed node comes back on its ports while calls are
 * held on the survivors: new calls reach it and are served, and the held calls end cleanly.
 * <p>
 * Sizes: {@code sipline.failover.calls} held calls (default 150) at {@code sipline.failover.rate} calls/s
 * (default 30), with a fifth as many ended by the callee and a seventh as many with a re-INVITE set up alongside,
 * so that the test stays within about two minutes on two cores; {@code sipline.failover.rejoinHoldMs} (default
 * 45,000: a node started again on two busy cores took up to 25 s to be back in the front) is how long the calls held
 * across the node's return last. It prints the time from the kill to the first
 * of the dead node's calls answered by a survivor and the counts.
 * <p>
 * Threading: one test thread; the helpers read the children's output on daemon threads.
 */
class FailoverE2eTest
{
    private static final int HELD = Integer.getInteger("sipline.failover.calls", 150);
    private static final int RATE = Integer.getInteger("sipline.failover.rate", 30);
    /** Calls the callee ends, and calls with a re-INVITE, set up over the same seconds as the held ones. */
    private static final int HANGUPS = Math.max(15, HELD / 5);
    private static final int REINVITES = Math.max(15, HELD / 7);
    /** Calls started at the kill, at 10 calls/s: their INVITEs meet the front before and after it notices. */
    private static final int NEW_CALLS = 30;
    /** Calls held while the killed node comes back, and calls made once it is back. */
    private static final int ACROSS = 20;
    private static final int AFTER = 30;
    private static final long ACROSS_HOLD_MS = Long.getLong("sipline.failover.rejoinHoldMs", 45_000);
    private static final int TOTAL = HELD + HANGUPS + REINVITES + NEW_CALLS + ACROSS + AFTER;
    private static final int NODES = 3;
    private static final int VICTIM = 1;
    private static final int PING_SECONDS = 1;

    @TempDir
    static Path work;

    @Test
    void shouldEndEveryHeldCallOfAKilledNodeThroughASurvivorAndTakeTheNodeBack() throws Exception
    {
        assertTrue(Sipp.available(), "sipp is needed (apt-get install sip-tester)");
        assertTrue(KamailioFront.available(), "kamailio is needed (apt-get install kamailio)");
        final int calleePort = Sipp.freeUdpPort();
        final int frontPort = Sipp.freeUdpPort();
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
                nodes.add(SiplineServer.start("failover-node-" + (i + 1), node(war, grid, i, frontPort)));
            }
            for (final SiplineServer n : nodes)
            {
                assertTrue(n.awaitLine(l -> l.contains(" member on "), 1_000), n.output());
            }
            try (KamailioFront front = KamailioFront.start("failover-front", frontPort, nodes.stream()
                .map(SiplineServer::port).toList(), PING_SECONDS))
            {
                final String callee = Examples.scenario("failover-callee.xml",
                    Map.of("HANGUP_MS", Long.toString(holdMs() + 1_000)));
                final Process uas = SippRun.callee("failover-uas", calleePort, TOTAL, List.of("-sf", callee,
                    "-trace_counts"));
                try
                {
                    failover(front, nodes);
                    nodes.add(rejoin(front, nodes.get(VICTIM), war, grid, frontPort));
                    SippRun.awaitCallee("failover-uas", uas, TOTAL, nodes.get(0));
                }
                finally
                {
                    Sipp.stop(uas);
                }
            }
            for (int i = 0; i < nodes.size(); i++)
            {
                if (VICTIM != i)
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

    /** How long the held calls last: until 3 s after the last is set up, so the kill comes before any BYE. */
    private static long holdMs()
    {
        return 1_000L * HELD / RATE + 3_000;
    }

    /** Calls/s for {@code calls} set up over the seconds the held calls take. */
    private static int rateOf(final int calls)
    {
        return Math.max(1, calls * RATE / HELD);
    }

    /** A sipp caller through the front: {@code calls} calls at {@code rate}, all at once at most. */
    private static Process caller(final String name, final KamailioFront front, final String scenario,
        final long holdMs, final int calls, final int rate) throws IOException
    {
        return Sipp.start(name, List.of("-sf", scenario, "-s", "service", "-d", Long.toString(holdMs),
            "-m", Integer.toString(calls), "-r", Integer.toString(rate), "-l", Integer.toString(calls),
            "-timeout", "120s", "-timeout_error", "127.0.0.1:" + front.port()));
    }

    /** Waits (bounded) for a caller to end and asserts every one of its calls succeeded. */
    private static void assertAllEnded(final String name, final Process caller, final int calls,
        final KamailioFront front) throws InterruptedException
    {
        assertTrue(caller.waitFor(90, TimeUnit.SECONDS), name + " did not end\n" + Sipp.report(name));
        final long[] counts = Sipp.successAndFailed(name);
        final String why = name + "\n" + Sipp.report(name) + "\n== front\n" + front.output();
        assertEquals(calls, counts[0], why);
        assertEquals(0, counts[1], why);
        assertEquals(0, caller.exitValue(), why);
    }

    private static void failover(final KamailioFront front, final List<SiplineServer> nodes) throws Exception
    {
        final SiplineServer victim = nodes.get(VICTIM);
        final String held = Examples.scenario("held-caller.xml", Map.of());
        final int setUp = HELD + HANGUPS + REINVITES;
        Process caller = null;
        Process hangups = null;
        Process reinvites = null;
        try
        {
            final long start = System.nanoTime();
            caller = caller("failover-uac", front, held, holdMs(), HELD, RATE);
            hangups = caller("failover-hangup-uac", front, Examples.scenario("callee-hangup-caller.xml", Map.of()),
                0, HANGUPS, rateOf(HANGUPS));
            reinvites = caller("failover-reinvite-uac", front, Examples.scenario("reinvite-caller.xml", Map.of()),
                holdMs(), REINVITES, rateOf(REINVITES));
            assertTrue(poll(() -> acks("failover-uas") >= setUp, 30_000L + 1_000L * HELD / RATE),
                "not every call was set up: " + acks("failover-uas") + " ACKs at the callee\n"
                    + Sipp.report("failover-uac") + "\n== front\n" + front.output());
            final long established = System.nanoTime();
            // both legs of the killed node's calls: the callers' INVITEs the front gave it, and its own to the callee
            final Set<String> victimIn = callIds(front.lines(l -> l.contains("dispatch INVITE")
                && l.endsWith("to sip:127.0.0.1:" + victim.port())), "dispatch INVITE ");
            final Set<String> victimOut = callIds(front.lines(l -> l.contains("from node 127.0.0.1:" + victim.port()
                + " INVITE ")), " INVITE ");
            assertTrue(victimIn.size() >= setUp / 10, "the victim owns a share of the calls: " + victimIn.size());
            assertEquals(victimIn.size(), victimOut.size(), "one outbound leg, through the front, per call of the "
                + "victim\n" + front.output());

            final long killed = victim.killAbruptly();
            final SippRun fresh = SippRun.call("failover-new", front.port(), NEW_CALLS, 10, NEW_CALLS * 100L,
                List.of("-sf", held, "-s", "service", "-d", "0"));

            assertAllEnded("failover-uac", caller, HELD, front);
            assertAllEnded("failover-hangup-uac", hangups, HANGUPS, front);
            assertAllEnded("failover-reinvite-uac", reinvites, REINVITES, front);
            assertEquals(NEW_CALLS, fresh.successful(), fresh + "\n" + Sipp.report("failover-new"));
            assertEquals(0, fresh.failed(), fresh + "\n" + Sipp.report("failover-new"));

            final Takeovers taken = Takeovers.of(front, victimIn, victimOut);
            assertTrue(taken.lost().isEmpty(), "every call of the victim's " + victimIn.size() + " ended by a BYE a "
                + "survivor answered; not: " + taken.lost() + "\n" + front.output());
            assertTrue(taken.byCallee() > 0, "some of the victim's calls were ended by the callee: " + taken);
            assertTrue(taken.reinvited() > 0, "some of the victim's calls had a re-INVITE: " + taken);
            final long first = front.firstLineNanos(l -> l.contains("answered 200"));
            System.out.printf("failover: %d calls (%d held, %d ended by the callee, %d with a re-INVITE; %d on the "
                + "killed node) set up in %d ms; the first of the killed node's calls answered by a survivor %d ms "
                + "after SIGKILL; of its calls %d BYEs of the caller and %d of the callee taken over, %d re-INVITEs; "
                + "%d new calls served meanwhile%n", setUp, HELD, HANGUPS, REINVITES, victimIn.size(),
                TimeUnit.NANOSECONDS.toMillis(established - start), TimeUnit.NANOSECONDS.toMillis(first - killed),
                taken.byCaller(), taken.byCallee(), taken.reinvited(), fresh.successful());
        }
        finally
        {
            Sipp.stop(caller);
            Sipp.stop(hangups);
            Sipp.stop(reinvites);
        }
    }

    /**
     * The killed node comes back on its SIP and grid ports while {@link #ACROSS} calls are held on the survivors:
     * the front takes it back in, {@link #AFTER} new calls are all served, some of them by it, and the held calls
     * end cleanly after that.
     *
     * @return the node started again.
     */
    private static SiplineServer rejoin(final KamailioFront front, final SiplineServer killed, final Path war,
        final List<InetSocketAddress> grid, final int frontPort) throws Exception
    {
        final String held = Examples.scenario("held-caller.xml", Map.of());
        final int before = HELD + HANGUPS + REINVITES + NEW_CALLS;
        Process across = null;
        try
        {
            final long start = System.nanoTime();
            across = caller("failover-across-uac", front, held, ACROSS_HOLD_MS, ACROSS, 10);
            assertTrue(poll(() -> acks("failover-uas") >= before + ACROSS, 30_000),
                "the calls held across the return were not set up\n" + Sipp.report("failover-across-uac"));
            final int mark = front.lineCount();
            final long restarted = System.nanoTime();
            final SiplineServer back = SiplineServer.start("failover-node-" + (VICTIM + 1) + "-back", killed.port(),
                node(war, grid, VICTIM, frontPort));
            assertTrue(front.awaitLine(l -> l.contains("node sip:127.0.0.1:" + killed.port() + " up"), 10_000),
                "the front did not take the node back\n" + front.output());
            final long up = System.nanoTime();
            final int afterMark = front.lineCount();
            final SippRun after = SippRun.call("failover-after", front.port(), AFTER, 10, AFTER * 100L,
                List.of("-sf", held, "-s", "service", "-d", "0"));
            assertEquals(AFTER, after.successful(), after + "\n" + Sipp.report("failover-after"));
            assertEquals(0, after.failed(), after + "\n" + Sipp.report("failover-after"));
            final long served = front.linesSince(afterMark, l -> l.contains("from node 127.0.0.1:" + killed.port()
                + " INVITE ")).size();
            assertTrue(served > 0, "new calls reach the node that came back\n" + front.output());
            assertTrue(across.isAlive(), "the held calls lasted past the node's return (raise "
                + "sipline.failover.rejoinHoldMs): it took " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)
                + " ms");
            assertAllEnded("failover-across-uac", across, ACROSS, front);
            assertTrue(front.linesSince(mark, l -> l.contains("answered 481")).isEmpty(), front.output());
            System.out.printf("failover: the killed node back in the front %d ms after it was started again; %d of "
                + "%d new calls served by it; %d calls held across its return ended cleanly%n",
                TimeUnit.NANOSECONDS.toMillis(up - restarted), served, AFTER, ACROSS);
            return back;
        }
        finally
        {
            Sipp.stop(across);
        }
    }

    /**
     * The killed node's calls that a survivor answered, from the front's log: each ended by one BYE that the front
     * sent to a survivor, the caller's (its Call-ID the caller leg's) or the callee's (the callee leg's), and the
     * re-INVITEs a survivor answered.
     */
    private record Takeovers(long byCaller, long byCallee, long reinvited, Set<String> lost)
    {
        static Takeovers of(final KamailioFront front, final Set<String> in, final Set<String> out)
        {
            final Set<String> byes = callIds(front.lines(l -> l.contains("sipline-front: in-dialog BYE")
                && l.contains("answered 200")), "in-dialog BYE ");
            final Set<String> invites = callIds(front.lines(l -> l.contains("sipline-front: in-dialog INVITE")
                && l.contains("answered 200")), "in-dialog INVITE ");
            final long byCaller = in.stream().filter(byes::contains).count();
            final long byCallee = out.stream().filter(byes::contains).count();
            final long reinvited = in.stream().filter(invites::contains).count();
            // a call whose re-INVITE a survivor answered is ended by a BYE to that survivor's Contact (RFC 3261
            // §12.2.1.2), which the front relays to it as to any live owner: the callers count its 200
            final long byOwner = in.stream().filter(id -> !byes.contains(id) && invites.contains(id)).count();
            final Set<String> lost = new TreeSet<>();
            if (byCaller + byCallee + byOwner != in.size())
            {
                in.stream().filter(id -> !byes.contains(id) && !invites.contains(id)).forEach(lost::add);
                lost.add("(" + byCaller + " by the caller + " + byCallee + " by the callee + " + byOwner
                    + " after a re-INVITE of " + in.size() + ")");
            }
            return new Takeovers(byCaller, byCallee, reinvited, lost);
        }
    }

    /**
     * Node {@code i} of the grid {@code grid}: the b2bua deployed, its peers the other members, its outbound legs
     * through the front on {@code frontPort}.
     */
    private static List<String> node(final Path war, final List<InetSocketAddress> grid, final int i,
        final int frontPort)
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
            "--cluster-node", Integer.toString(i + 1), "--cluster-front", "sip:127.0.0.1:" + frontPort);
    }

    /** ACKs of a call's INVITE the callee counted so far (sipp's -trace_counts, written every second), or 0. */
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
            // the first ACK of the scenario: the one of the 200 to the call's INVITE
            final int i = columns.stream().filter(c -> c.endsWith("_ACK_Recv")).findFirst().map(columns::indexOf)
                .orElse(-1);
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

    /**
     * A free TCP port below the kernel's ephemeral range (32768 and up here, and media's 20000-29999), so that no
     * outgoing connection takes it as its local port while the killed node that owns it is down.
     */
    private static int freeTcpPort() throws IOException
    {
        final Random random = new Random();
        for (int attempt = 0; attempt < 100; attempt++)
        {
            final int port = 10_000 + random.nextInt(10_000);
            try (ServerSocket s = new ServerSocket(port, 1, InetAddress.ofLiteral("127.0.0.1")))
            {
                return s.getLocalPort();
            }
            catch (final IOException taken)
            {
                // try another
            }
        }
        throw new IOException("no free TCP port in 10000-19999 on 127.0.0.1");
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
