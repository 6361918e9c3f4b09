package io.sipline.sip.stack;

import static io.sipline.sip.stack.Datagrams.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.sipline.sip.message.SipMessage;
import io.sipline.sip.transaction.ClientTransaction;
import io.sipline.sip.transaction.ServerTransaction;
import org.junit.jupiter.api.Test;

/**
 * A shard that has stopped ({@code stopOnLoop}: its transactions ended and their buffers released) while its sockets
 * are still open, as between {@code SipStack.close} stopping the shards and closing the transport, drops what still
 * arrives instead of starting a transaction that nothing would end: the INVITE's {@code 100 Trying} would be built
 * and never released (the leak guard of this module fails the class on such a buffer).
 */
class StackStopTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");

    @Test
    void shouldDropAnInviteThatArrivesAfterTheShardStopped() throws Exception
    {
        final SipStackConfig config = new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0).shards(1).tcp(false);
        try (SipStack stack = SipStack.start(config, shard -> new SipListener()
            {
                @Override
                public void onRequest(final StackShard s, final ServerTransaction tx, final SipMessage request)
                {
                    // never answers: only the transaction layer's 100 Trying would be sent
                }

                @Override
                public void onResponse(final StackShard s, final ClientTransaction tx, final SipMessage response)
                {
                    // sends no request
                }
            });
            DatagramSocket client = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            final CompletableFuture<Void> stopped = new CompletableFuture<>();
            stack.execute(0, () ->
            {
                stack.shard(0).stopOnLoop();
                stopped.complete(null);
            });
            stopped.get(5, TimeUnit.SECONDS);

            send(client, stack.localAddresses().get(0), invite(client.getLocalPort()));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (dropped(stack) == 0 && System.nanoTime() < deadline)
            {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
            assertEquals(1, dropped(stack), "the INVITE is counted as dropped after stop");
            final CompletableFuture<Integer> active = new CompletableFuture<>();
            stack.execute(0, () -> active.complete(stack.shard(0).transactions().activeTransactions()));
            assertEquals(0, active.get(5, TimeUnit.SECONDS), "no transaction started after stop");
            assertTrue(stack.shard(0).malformed() == 0, "not counted as malformed");
        }
    }

    private static long dropped(final SipStack stack) throws Exception
    {
        final CompletableFuture<Long> n = new CompletableFuture<>();
        stack.execute(0, () -> n.complete(stack.shard(0).droppedAfterStop()));
        return n.get(5, TimeUnit.SECONDS);
    }

    private static String invite(final int clientPort)
    {
        return "INVITE sip:callee@127.0.0.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:" + clientPort + ";branch=z9hG4bK-stop-1\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:caller@127.0.0.1>;tag=c1\r\nTo: <sip:callee@127.0.0.1>\r\n"
            + "Call-ID: stop-1\r\nCSeq: 1 INVITE\r\nContact: <sip:caller@127.0.0.1:" + clientPort + ">\r\n"
            + "Content-Length: 0\r\n\r\n";
    }
}
