package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import io.netty.util.ResourceLeakDetector;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.stack.demo.DemoUas;
import io.sipline.sip.transaction.StatelessShedding;
import io.sipline.sip.transaction.TransactionLayer;
import org.junit.jupiter.api.Test;

/**
 * Overload refusals without a transaction ({@code StatelessShedding}): a stack of one shard whose {@code Admission}
 * the test switches, a {@link DemoUas} behind it, and a caller on a plain UDP socket. A refused INVITE gets a 503 with
 * Retry-After and a To tag and makes no transaction; its retransmission gets the same 503 even once the admission
 * would let it in; the ACK of the 503 is absorbed and counted, never passed up; requests within a dialog and CANCELs
 * are never refused. The refusal path allocates nothing on the shard's thread.
 */
class StackSheddingTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final int WARM_UP = 20_000;
    private static final int MEASURED = 20_000;
    /** Bytes per refused INVITE and its absorbed ACK on the shard's thread: none, but for the JIT's own noise. */
    private static final double MAX_BYTES_PER_REFUSAL = 8;

    @Test
    void shouldRefuseNewRequestsStatelesslyAndAbsorbTheirAcks() throws Exception
    {
        final AtomicBoolean refuse = new AtomicBoolean(true);
        final DemoUas.Stats stats = new DemoUas.Stats();
        try (SipStack stack = start(refuse, stats); DatagramSocket caller = caller())
        {
            final InetSocketAddress to = stack.localAddresses().get(0);
            final int port = caller.getLocalPort();
            final TransactionLayer layer = stack.shard(0).transactions();
            final StatelessShedding shed = layer.shedding();
            final long acquires = layer.poolAcquires();

            final String invite = invite(port, to.getPort(), "shed-1");
            Datagrams.send(caller, to, invite);
            final String refused = Datagrams.receive(caller);
            assertTrue(refused.startsWith("SIP/2.0 503 Service Unavailable (overloaded)\r\n"), refused);
            assertEquals("1", header(refused, "Retry-After"));
            final String toHeader = header(refused, "To");
            assertTrue(toHeader.matches("<sip:bob@127\\.0\\.0\\.1>;tag=sl[0-9a-f]{16}"), toHeader);
            assertTrue(header(refused, "Via").contains(";rport=" + port), "Via stamped as on receipt: " + refused);
            assertEquals("shed-1@127.0.0.1", header(refused, "Call-ID"));
            assertEquals("1 INVITE", header(refused, "CSeq"));
            assertEquals(1, shed.refused(SipMethod.INVITE));

            // The retransmission (the 503 lost or crossing it) is refused again with the same response, even though
            // the admission would let a new INVITE in now
            refuse.set(false);
            Datagrams.send(caller, to, invite);
            final String again = Datagrams.receive(caller);
            assertEquals(toHeader, header(again, "To"), again);
            assertEquals(1, shed.refusedAgain());

            Datagrams.send(caller, to, ack(port, to.getPort(), "shed-1", toHeader));
            await(() -> 1 == shed.acksAbsorbed(), "the ACK of the 503 absorbed");
            assertEquals(acquires, layer.poolAcquires(), "no transaction for a refused INVITE, its retransmission "
                + "or its ACK");
            assertEquals(0, stats.invites.get() + stats.acks.get(), "nothing of the refused call passed up");

            // Within a dialog and CANCEL: never refused
            refuse.set(true);
            Datagrams.send(caller, to, inDialog("BYE", port, to.getPort(), "shed-2", 2));
            final String bye = Datagrams.receive(caller);
            assertTrue(bye.startsWith("SIP/2.0 481 "), bye);
            Datagrams.send(caller, to, invite(port, to.getPort(), "shed-3").replace("INVITE", "CANCEL"));
            final String cancel = Datagrams.receive(caller);
            assertTrue(cancel.startsWith("SIP/2.0 200 "), cancel);
            Datagrams.send(caller, to, invite(port, to.getPort(), "shed-4").replace("INVITE", "OPTIONS"));
            assertTrue(Datagrams.receive(caller).startsWith("SIP/2.0 503 "));
            assertEquals(1, shed.refused(SipMethod.OPTIONS));

            // Admitted again: the call goes through
            refuse.set(false);
            Datagrams.send(caller, to, invite(port, to.getPort(), "shed-5"));
            String answer = Datagrams.receive(caller);
            while (!answer.startsWith("SIP/2.0 200 "))
            {
                assertTrue(answer.startsWith("SIP/2.0 1"), answer);
                answer = Datagrams.receive(caller);
            }
            assertEquals(1, stats.invites.get());
            assertEquals(1, shed.refused(SipMethod.INVITE));
        }
    }

    @Test
    void shouldRefuseWithoutAllocating() throws Exception
    {
        final DemoUas.Stats stats = new DemoUas.Stats();
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        try (SipStack stack = start(new AtomicBoolean(true), stats); DatagramSocket caller = caller())
        {
            final InetSocketAddress to = stack.localAddresses().get(0);
            final StatelessShedding shed = stack.shard(0).transactions().shedding();
            run(caller, to, 0, WARM_UP);
            final ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
            final long[] ids = stack.shardThreadIds();
            final long bytes;
            try
            {
                run(caller, to, WARM_UP, WARM_UP); // with the detector off: its records are not the stack's
                await(() -> 2L * WARM_UP == shed.acksAbsorbed(), "the warm-up's ACKs absorbed");
                final long before = StackAllocationTest.allocated(threads, ids);
                run(caller, to, 2 * WARM_UP, MEASURED);
                await(() -> 2L * WARM_UP + MEASURED == shed.acksAbsorbed(), "every ACK absorbed");
                bytes = StackAllocationTest.allocated(threads, ids) - before;
            }
            finally
            {
                ResourceLeakDetector.setLevel(level);
            }
            final double perRefusal = bytes / (double)MEASURED;
            System.out.printf("stateless 503 and absorbed ACK: %d refusals, %d bytes, %.2f B each%n", MEASURED, bytes,
                perRefusal);
            assertEquals(2L * WARM_UP + MEASURED, shed.refused(SipMethod.INVITE));
            assertEquals(0, stats.invites.get() + stats.acks.get());
            assertTrue(perRefusal <= MAX_BYTES_PER_REFUSAL, "bytes per refused INVITE and ACK: " + perRefusal);
        }
    }

    /** {@code count} INVITEs (new calls from {@code first} on), each refused, and the ACK of each 503. */
    private static void run(final DatagramSocket caller, final InetSocketAddress to, final int first, final int count)
        throws Exception
    {
        final int port = caller.getLocalPort();
        for (int i = first; i < first + count; i++)
        {
            final String callId = "load-" + i;
            Datagrams.send(caller, to, invite(port, to.getPort(), callId));
            final String refused;
            try
            {
                refused = Datagrams.receive(caller);
            }
            catch (final SocketTimeoutException e)
            {
                throw new AssertionError("no 503 to INVITE " + i, e);
            }
            assertTrue(refused.startsWith("SIP/2.0 503 "), refused);
            Datagrams.send(caller, to, ack(port, to.getPort(), callId, header(refused, "To")));
        }
    }

    private static SipStack start(final AtomicBoolean refuse, final DemoUas.Stats stats) throws Exception
    {
        final SipListener.Factory uas = DemoUas.factory(stats);
        return SipStack.start(new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0).shards(1), shard ->
        {
            shard.transactions().shedding().admission((method, initial, receivedAtNanos) -> !refuse.get());
            return uas.create(shard);
        });
    }

    private static DatagramSocket caller() throws Exception
    {
        final DatagramSocket socket = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0));
        socket.setSoTimeout(5_000);
        return socket;
    }

    private static String invite(final int from, final int to, final String callId)
    {
        return "INVITE sip:bob@127.0.0.1:" + to + " SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:" + from + ";branch=z9hG4bK" + callId + ";rport\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:al@127.0.0.1>;tag=al1\r\nTo: <sip:bob@127.0.0.1>\r\n"
            + "Call-ID: " + callId + "@127.0.0.1\r\nCSeq: 1 INVITE\r\n"
            + "Contact: <sip:al@127.0.0.1:" + from + ">\r\nContent-Length: 0\r\n\r\n";
    }

    /** The ACK of a non-2xx final response (RFC 3261 §17.1.1.3): the INVITE's branch, the response's To. */
    private static String ack(final int from, final int to, final String callId, final String toHeader)
    {
        return "ACK sip:bob@127.0.0.1:" + to + " SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:" + from + ";branch=z9hG4bK" + callId + ";rport\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:al@127.0.0.1>;tag=al1\r\nTo: " + toHeader + "\r\n"
            + "Call-ID: " + callId + "@127.0.0.1\r\nCSeq: 1 ACK\r\nContent-Length: 0\r\n\r\n";
    }

    private static String inDialog(final String method, final int from, final int to, final String callId,
        final int cseq)
    {
        return method + " sip:bob@127.0.0.1:" + to + " SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:" + from + ";branch=z9hG4bK" + callId + ";rport\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:al@127.0.0.1>;tag=al1\r\nTo: <sip:bob@127.0.0.1>;tag=bob1\r\n"
            + "Call-ID: " + callId + "@127.0.0.1\r\nCSeq: " + cseq + " " + method + "\r\nContent-Length: 0\r\n\r\n";
    }

    private static String header(final String message, final String name)
    {
        for (final String line : message.split("\r\n"))
        {
            if (line.regionMatches(true, 0, name + ":", 0, name.length() + 1))
            {
                return line.substring(name.length() + 1).trim();
            }
        }
        throw new AssertionError("no " + name + " in " + message);
    }

    private static void await(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadline, "not within 5 s: " + what);
            Thread.sleep(1);
        }
    }
}
