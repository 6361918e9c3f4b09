package io.sipline.sip.stack;

import static io.sipline.sip.stack.Datagrams.send;
import static io.sipline.sip.stack.Datagrams.text;
import static io.sipline.sip.stack.StackUdpSourcePortTest.answer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.stack.RelayAttachments.HeldAnswer;
import io.sipline.sip.stack.RelayAttachments.RelayedFor;
import io.sipline.sip.transaction.ClientTransaction;
import io.sipline.sip.transaction.ServerTransaction;
import io.sipline.sip.transaction.Transaction;
import org.junit.jupiter.api.Test;

/**
 * A reply that arrived while the shard was stalled is read before the retransmission it makes needless: the shard
 * forwards a request (a client transaction, timer E at T1 = 100 ms) and then stalls past T1, while the far end
 * answers at once; after the stall the answer waits in the socket, and the stack reads it before it decides on its
 * timers (after a stall they wait for the loop to read its sockets, and a retransmission due within what is being
 * read is put off, {@code InputLag}), so the answer completes the transaction. Without that, the stack retransmitted
 * the request to a far end that had answered it (as a JIT-cold B2BUA did at 3,000 calls/s).
 *
 * <p>Deterministic: the stall lasts until the far end's answer has been sent and T1 has passed, and a retransmission,
 * had there been one, would have reached the far end's socket before the answer to the caller left the shard.
 */
class StackInputLagTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final long T1_NS = TimeUnit.MILLISECONDS.toNanos(100);

    @Test
    void shouldReadTheAnswerThatArrivedDuringAStallBeforeRetransmitting() throws Exception
    {
        final AtomicReference<InetSocketAddress> upstreamAddress = new AtomicReference<>();
        final CountDownLatch answered = new CountDownLatch(1);
        final SipStackConfig config = new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0).shards(1)
            .tcp(false).t1Ns(T1_NS);
        try (SipStack stack = SipStack.start(config, shard -> new StallingForwarder(upstreamAddress, answered));
            DatagramSocket client = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0));
            DatagramSocket upstream = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            client.setSoTimeout(5_000);
            upstream.setSoTimeout(5_000);
            upstreamAddress.set((InetSocketAddress)upstream.getLocalSocketAddress());
            final InetSocketAddress server = stack.localAddresses().get(0);

            send(client, server, request("lag-1", client.getLocalPort()));
            final DatagramPacket forwarded = Datagrams.receivePacket(upstream);
            assertTrue(text(forwarded).startsWith("OPTIONS "), text(forwarded));
            answer(upstream, forwarded); // while the shard is stalled
            answered.countDown();

            final String done = Datagrams.receive(client);
            assertTrue(done.startsWith("SIP/2.0 200"), done);
            upstream.setSoTimeout(1);
            try
            {
                final DatagramPacket again = Datagrams.receivePacket(upstream);
                final StackShard shard = stack.shard(0);
                fail("the forwarded request was retransmitted after its answer had arrived (retransmissions "
                    + shard.traffic().retransmissions() + ", put off " + shard.transactions().deferredRetransmissions()
                    + ", ticks " + shard.ticks() + "): " + text(again));
            }
            catch (final SocketTimeoutException expected)
            {
                // nothing else reached the far end
            }
            assertEquals(0, stack.shard(0).transactions().timeouts());
        }
    }

    /**
     * MESSAGE: forwards an OPTIONS to the far end through a client transaction, then stalls the shard until the far
     * end has answered and T1 has passed; answers the MESSAGE with 200 when the OPTIONS gets its 200.
     */
    private static final class StallingForwarder implements SipListener
    {
        private final AtomicReference<InetSocketAddress> upstream;
        private final CountDownLatch answered;

        StallingForwarder(final AtomicReference<InetSocketAddress> upstream, final CountDownLatch answered)
        {
            this.upstream = upstream;
            this.answered = answered;
        }

        @Override
        public void onRequest(final StackShard shard, final ServerTransaction tx, final SipMessage request)
        {
            if (request.method() != SipMethod.MESSAGE)
            {
                return;
            }
            final ByteBuf ok = shard.allocate(256 + request.length());
            shard.builder().startResponse(ok, request, 200, "OK", shard.ids().appendId(new StringBuilder()),
                tx.peer()).end(null, 0, 0);
            tx.attachment(new HeldAnswer(ok));
            final InetSocketAddress to = upstream.get();
            final String text = "OPTIONS sip:up@127.0.0.1:" + to.getPort() + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:" + shard.stack().localAddresses().get(0).getPort() + ";branch="
                + shard.ids().appendBranch(new StringBuilder()) + "\r\nMax-Forwards: 70\r\n"
                + "From: <sip:stack@127.0.0.1>;tag=s1\r\nTo: <sip:up@127.0.0.1>\r\nCall-ID: up-" + request.callId()
                + "\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n";
            final ByteBuf forward = shard.allocate(text.length());
            forward.writeCharSequence(text, StandardCharsets.US_ASCII);
            final long sentAt = System.nanoTime();
            final ClientTransaction sent = shard.sendRequest(forward, to);
            if (null != sent)
            {
                sent.attachment(new RelayedFor(tx));
            }
            stall(sentAt);
        }

        /** Blocks the shard's thread until the far end answered (at most 5 s) and 1.5*T1 passed since the send. */
        private void stall(final long sentAt)
        {
            try
            {
                answered.await(5, TimeUnit.SECONDS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            final long until = sentAt + T1_NS + T1_NS / 2;
            for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime())
            {
                LockSupport.parkNanos(left);
            }
        }

        @Override
        public void onResponse(final StackShard shard, final ClientTransaction tx, final SipMessage response)
        {
            if (response.statusCode() >= 200 && tx.attachment() instanceof RelayedFor(ServerTransaction server)
                && server.attachment() instanceof HeldAnswer(ByteBuf ok))
            {
                server.attachment(null);
                shard.respond(server, ok, 200);
            }
        }

        @Override
        public void onTimeout(final StackShard shard, final Transaction tx, final char timer)
        {
        }

        @Override
        public void onTransportError(final StackShard shard, final Transaction tx)
        {
        }

        @Override
        public void onTerminated(final StackShard shard, final Transaction tx)
        {
            if (tx.attachment() instanceof HeldAnswer(ByteBuf unsent))
            {
                tx.attachment(null);
                unsent.release();
            }
        }
    }

    private static String request(final String callId, final int localPort)
    {
        return "MESSAGE sip:uas@127.0.0.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:" + localPort + ";rport;branch=z9hG4bK-" + callId + "\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:uac@127.0.0.1>;tag=u1\r\nTo: <sip:uas@127.0.0.1>\r\n"
            + "Call-ID: " + callId + "\r\nCSeq: 1 MESSAGE\r\nContent-Length: 0\r\n\r\n";
    }
}
