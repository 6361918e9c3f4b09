package io.sipline.sip.transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;
import io.sipline.sip.timer.TimerWheel;
import io.sipline.test.AllocationMeter;

/**
 * Steady-state allocation of a stateful non-INVITE server transaction: create, respond, absorb a retransmission,
 * terminate on timer J. The user answers with a reused buffer (retained per answer; the transaction releases it), the
 * transport counts, and each request carries a new branch written in place, so what is measured is the stack's own
 * allocation (target: at most 64 bytes per stateful transaction).
 */
class TransactionAllocationTest
{
    private static final long MS = 1_000_000L;
    private static final String REQUEST = "OPTIONS sip:bob@biloxi.example.com SIP/2.0\r\n"
        + "Via: SIP/2.0/UDP pc33.atlanta.example.com:5060;branch=z9hG4bK0000000000000000\r\n"
        + "Max-Forwards: 70\r\n"
        + "To: <sip:bob@biloxi.example.com>\r\n"
        + "From: <sip:alice@atlanta.example.com>;tag=1928301774\r\n"
        + "Call-ID: a84b4c76e66710@pc33.atlanta.example.com\r\n"
        + "CSeq: 1 OPTIONS\r\n"
        + "Content-Length: 0\r\n\r\n";

    static final class Peer implements TransactionTransport, TransactionUser, NanoClock
    {
        long now = 1_000_000_000L;
        long sends;
        long requests;
        long terminated;
        TransactionLayer layer;
        final ByteBuf answer = Unpooled.wrappedBuffer(("SIP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));

        @Override
        public long nowNs()
        {
            return now;
        }

        @Override
        public boolean send(final ByteBuf data, final InetSocketAddress destination, final boolean reliable)
        {
            sends++;
            return true;
        }

        @Override
        public void onRequest(final ServerTransaction tx, final SipMessage request)
        {
            requests++;
            answer.retain(); // one reference for the transaction, released by it on termination
            layer.respond(tx, answer, 200);
        }

        @Override
        public void onAck(final ServerTransaction tx, final SipMessage ack)
        {
        }

        @Override
        public void onResponse(final ClientTransaction tx, final SipMessage response)
        {
        }

        @Override
        public void onStatelessRequest(final SipMessage request, final InetSocketAddress source, final boolean reliable)
        {
        }

        @Override
        public void onStatelessResponse(final SipMessage response, final InetSocketAddress source)
        {
        }

        @Override
        public void onTimeout(final Transaction tx, final char timer)
        {
        }

        @Override
        public void onTransportError(final Transaction tx)
        {
        }

        @Override
        public void onTerminated(final Transaction tx)
        {
            terminated++;
        }
    }

    @Test
    void shouldNotAllocatePerServerNonInviteTransactionInSteadyState()
    {
        final Peer peer = new Peer();
        final TransactionConfig config = new TransactionConfig().t1Ns(MS); // J = 64 ms: few ticks per cycle
        final TransactionLayer layer =
            new TransactionLayer(config, peer, peer, peer, new TimerWheel(peer.now));
        peer.layer = layer;
        final byte[] bytes = REQUEST.getBytes(StandardCharsets.US_ASCII);
        final int branchDigits = REQUEST.indexOf("z9hG4bK") + 7;
        final SipMessage message = new SipMessage();
        final InetSocketAddress source = new InetSocketAddress("192.0.2.10", 5060);

        final int warmUp = 50_000;
        final int measured = 100_000;
        final long[] counter = {0};
        final int attempts = 5;
        // The least of up to five attempts (warm-up, then measure): a one-off deoptimisation is not charged.
        final long allocated = AllocationMeter.leastBytes(
            () -> cycles(layer, peer, bytes, branchDigits, counter, message, source, warmUp),
            () -> cycles(layer, peer, bytes, branchDigits, counter, message, source, measured),
            attempts, 1023);
        final double perTransaction = (double)allocated / measured;
        System.out.printf("non-INVITE server transaction: %d bytes over %d transactions = %.3f B/tx%n",
            allocated, measured, perTransaction);
        final long runs = counter[0] / (warmUp + measured);
        assertTrue(runs >= 1 && runs <= attempts, "attempts run: " + runs);
        assertEquals(counter[0], peer.requests);
        assertEquals(counter[0], peer.terminated);
        assertEquals(0, layer.activeTransactions());
        assertEquals(1, peer.answer.refCnt());
        assertTrue(perTransaction <= 64.0, "bytes per transaction: " + perTransaction);
        // Nothing per transaction; a few hundred bytes once per run can come from the JVM itself (JIT, counters).
        assertTrue(allocated < 1024, "steady-state allocation, bytes: " + allocated);
        peer.answer.release();
    }

    private static void cycles(
        final TransactionLayer layer, final Peer peer, final byte[] bytes, final int branchDigits, final long[] counter,
        final SipMessage message, final InetSocketAddress source, final int times)
    {
        for (int i = 0; i < times; i++)
        {
            cycle(layer, peer, bytes, branchDigits, counter[0]++, message, source);
        }
    }

    private static void cycle(
        final TransactionLayer layer, final Peer peer, final byte[] bytes, final int branchDigits, final long id,
        final SipMessage message, final InetSocketAddress source)
    {
        for (int d = 0; d < 16; d++)
        {
            final int nibble = (int)(id >>> (60 - 4 * d)) & 0xF;
            bytes[branchDigits + d] = (byte)(nibble < 10 ? '0' + nibble : 'a' + nibble - 10);
        }
        SipMessageParser.parseDatagram(bytes, 0, bytes.length, message);
        layer.onIncoming(message, source, false); // new transaction, answered 200 at once
        SipMessageParser.parseDatagram(bytes, 0, bytes.length, message);
        layer.onIncoming(message, source, false); // retransmission: 200 re-sent
        peer.now += 65 * MS;
        layer.doWork(peer.now); // timer J: terminated, back to the pool
    }
}
