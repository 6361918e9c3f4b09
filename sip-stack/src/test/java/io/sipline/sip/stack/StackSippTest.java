package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import io.sipline.sip.stack.demo.DemoUac;
import io.sipline.sip.stack.demo.DemoUas;
import io.sipline.sip.transport.ShardCounters;
import io.sipline.test.Sipp;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The stack against sipp (the real SIP peer), on loopback, two shards: sipp's built-in {@code uac} places calls on
 * the {@link DemoUas} (INVITE/100/180/200/ACK/BYE/200), without and with 10% loss, with garbage, truncated and
 * 64 KB datagrams mixed in; and sipp's built-in {@code uas} answers the {@link DemoUac}. Skipped only when sipp is
 * absent (CI installs it). Every sipp process is stopped by its handle in {@code finally}; no sleeps.
 */
class StackSippTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");

    @Test
    void shouldCompleteOneThousandSippCallsWithGarbageMixedIn() throws Exception
    {
        runUac("uac", 1_000, 200, 0, true);
    }

    /**
     * The same calls over one TCP connection ({@code -t t1}): framed by Content-Length, answered on the connection
     * from whichever shard owns each call (hand-overs), no retransmission timers (RFC 3261 §17, §18.2.2).
     */
    @Test
    void shouldCompleteOneThousandSippCallsOverOneTcpConnection() throws Exception
    {
        runUac("uac-tcp", 1_000, 200, 0, false, "-t", "t1");
    }

    @Test
    void shouldCompleteEveryCallThroughRetransmissionsWithTenPercentLoss() throws Exception
    {
        runUac("uac-lost10", 1_000, 200, 10, false);
    }

    private static void runUac(final String name, final int calls, final int rate, final int lostPercent,
        final boolean garbage, final String... extraArgs) throws Exception
    {
        Assumptions.assumeTrue(Sipp.available(), "sipp is not installed (apt-get install sip-tester)");
        final DemoUas.Stats stats = new DemoUas.Stats();
        try (SipStack stack = SipStack.start(
            new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0).shards(2), DemoUas.factory(stats)))
        {
            final InetSocketAddress server = stack.localAddresses().get(0);
            Process sipp = null;
            int sent = 0;
            try
            {
                final List<String> args = new java.util.ArrayList<>(List.of(
                    "127.0.0.1:" + server.getPort(), "-sn", "uac", "-m", Integer.toString(calls),
                    "-r", Integer.toString(rate), "-l", "2000", "-timeout", lostPercent > 0 ? "170s" : "60s",
                    "-timeout_error", "-max_retrans", "10"));
                if (lostPercent > 0)
                {
                    args.addAll(List.of("-lost", Integer.toString(lostPercent)));
                }
                args.addAll(List.of(extraArgs));
                sipp = Sipp.start(name, args);
                if (garbage)
                {
                    sent = sendGarbage(server);
                }
                final boolean ended = sipp.waitFor(lostPercent > 0 ? 180 : 70, TimeUnit.SECONDS);
                assertTrue(ended, "sipp did not end in time\n" + Sipp.report(name));
                assertEquals(0, sipp.exitValue(), "sipp reported failed calls\n" + Sipp.report(name));
            }
            finally
            {
                Sipp.stop(sipp);
            }
            final long[] okFailed = Sipp.successAndFailed(name);
            assertEquals(calls, okFailed[0], "sipp's successful calls\n" + Sipp.report(name));
            assertEquals(0, okFailed[1], "sipp's failed calls\n" + Sipp.report(name));
            // With -lost, sipp drops some of its own BYEs and still counts the call (its scenario ends on a lost
            // message too); without loss every INVITE and BYE must have reached the UAS.
            final long minimum = lostPercent > 0 ? calls * 8L / 10 : calls;
            assertTrue(stats.invites.get() >= calls && stats.byes.get() >= minimum,
                "invites " + stats.invites + " byes " + stats.byes);
            assertTrue(stack.handoffs() > 0, "two shards, one sipp socket: some calls must be handed over");
            assertEquals(0, stack.listenerErrors());
            final ShardCounters totals = stack.transportTotals();
            if (garbage)
            {
                // The kernel may drop part of a burst into a full socket buffer (five 64 KB datagrams fill it): what
                // arrived must all be counted, as SIP or as a parse error, and most of the garbage must arrive.
                final int expected = sent;
                assertTrue(Sipp.await(() -> stack.transportTotals().parseErrorsTotal() >= expected / 4, 10_000),
                    "garbage counted: " + stack.transportTotals());
                final ShardCounters t = stack.transportTotals();
                assertEquals(t.datagramsIn(), t.requestsIn() + t.responsesIn() + t.parseErrorsTotal(), t.toString());
            }
            System.out.println(name + ": sipp ok/failed " + okFailed[0] + "/" + okFailed[1] + ", invites "
                + stats.invites + ", acks " + stats.acks + ", byes " + stats.byes + ", 200 retransmissions "
                + stats.okRetransmissions + ", hand-overs " + stack.handoffs() + " (dropped "
                + stack.handoffDrops() + "), malformed " + stack.malformed() + "; transport " + totals + "; tcp "
                + stack.streamCounters());
        }
    }

    /** Random bytes, truncated INVITEs and 64 KB messages; returns how many datagrams must count as parse errors. */
    private static int sendGarbage(final InetSocketAddress server) throws Exception
    {
        final SplittableRandom random = new SplittableRandom(3261);
        final byte[] invite = ("INVITE sip:x@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:9;branch=z9hG4bKg\r\n"
            + "From: <sip:a@b>;tag=1\r\nTo: <sip:x@y>\r\nCall-ID: garbage\r\nCSeq: 1 INVITE\r\n"
            + "Max-Forwards: 70\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        final byte[] big = new byte[65_000];
        final byte[] head = "MESSAGE sip:x@y SIP/2.0\r\nContent-Length: 99999\r\n".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(head, 0, big, 0, head.length);
        java.util.Arrays.fill(big, head.length, big.length, (byte)'a');
        int count = 0;
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            for (int i = 0; i < 100; i++)
            {
                final byte[] junk = new byte[1 + random.nextInt(1400)];
                random.nextBytes(junk);
                junk[0] = (byte)('A' + random.nextInt(26)); // not CRLF, not STUN: it must reach the parser
                socket.send(new DatagramPacket(junk, junk.length, server));
                final int cut = 10 + random.nextInt(invite.length - 60);
                socket.send(new DatagramPacket(invite, cut, server));
                count += 2;
                if (i % 20 == 0)
                {
                    socket.send(new DatagramPacket(big, big.length, server));
                    count++;
                }
            }
        }
        return count;
    }

    @Test
    void shouldPlaceCallsOnSippUas() throws Exception
    {
        Assumptions.assumeTrue(Sipp.available(), "sipp is not installed (apt-get install sip-tester)");
        final int calls = 200;
        final int sippPort = Sipp.freeUdpPort();
        final String name = "uas";
        Process sipp = null;
        final DemoUac.Stats stats = new DemoUac.Stats();
        try
        {
            final java.nio.file.Path dir =
                java.nio.file.Files.createDirectories(java.nio.file.Path.of("target", "sipp", name));
            sipp = new ProcessBuilder(Sipp.BINARY.getPath(), "-sn", "uas", "-nostdin", "-i", "127.0.0.1",
                "-p", Integer.toString(sippPort), "-m", Integer.toString(calls), "-timeout", "60s",
                "-timeout_error", "-trace_stat", "-stf", dir.toAbsolutePath().resolve("stat.csv").toString(),
                "-fd", "1", "-trace_screen", "-screen_file", dir.toAbsolutePath().resolve("screen.log").toString(),
                "-trace_err", "-error_file", dir.toAbsolutePath().resolve("errors.log").toString())
                .directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("out.log").toFile()).start();
            // sipp binds its port at once; the UAC's INVITEs are retransmitted by timer A if the first is early.
            try (SipStack _ = SipStack.start(
                new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0).shards(2),
                DemoUac.factory(stats, new InetSocketAddress(LOOPBACK, sippPort), calls, 100)))
            {
                assertTrue(Sipp.await(() -> stats.completed.get() + stats.failed.get() >= calls, 60_000),
                    "completed " + stats.completed + " failed " + stats.failed + "\n" + Sipp.report(name));
                assertEquals(calls, stats.completed.get(), "failed " + stats.failed + "\n" + Sipp.report(name));
                assertEquals(0, stats.failed.get());
                assertTrue(sipp.waitFor(30, TimeUnit.SECONDS), "sipp uas did not end\n" + Sipp.report(name));
                assertEquals(0, sipp.exitValue(), Sipp.report(name));
                System.out.println(name + ": stack UAC started " + stats.started + ", answered " + stats.answered
                    + ", completed " + stats.completed + ", failed " + stats.failed + ", sipp ok/failed "
                    + java.util.Arrays.toString(Sipp.successAndFailed(name)));
            }
        }
        finally
        {
            Sipp.stop(sipp);
        }
    }
}
