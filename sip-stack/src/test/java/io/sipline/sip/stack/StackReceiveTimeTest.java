package io.sipline.sip.stack;

import static io.sipline.sip.stack.Datagrams.send;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.transaction.ClientTransaction;
import io.sipline.sip.transaction.ServerTransaction;
import io.sipline.sip.transaction.Transaction;
import io.sipline.sip.transport.RealtimeClock;
import org.junit.jupiter.api.Test;

/**
 * Every request the stack hands its listener carries its arrival time ({@link SipMessage#receivedAtNanos()}),
 * over UDP and over TCP, including the requests read by one shard and handed over to the shard that owns their call
 * ({@code Handoff}: the owner re-parses a copy of the bytes, and keeps the time the reading shard had). Each time is
 * checked as an ordering, never against a duration: not before a {@link RealtimeClock} read taken before the send, not
 * after one the listener took when it got the request. Polls with a deadline; nothing sleeps.
 */
class StackReceiveTimeTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(10);
    private static final int REQUESTS = 24;

    @Test
    void shouldKeepTheArrivalTimeOfUdpRequestsHandedOverBetweenShards() throws Exception
    {
        final Listener listener = new Listener();
        try (SipStack stack = SipStack.start(new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0).shards(2)
            .tcp(false), shard -> listener);
            DatagramSocket peer = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            final InetSocketAddress server = stack.localAddresses().get(0);
            for (int i = 0; i < REQUESTS; i++)
            {
                final String callId = "udp-time-" + i;
                final long before = RealtimeClock.nanos();
                send(peer, server, StackTcpTest.request("OPTIONS", callId, peer.getLocalPort(), "UDP"));
                check(listener, callId, before);
            }
            assertTrue(handoffsIn(stack) > 0, "some requests were handed over to the other shard");
        }
    }

    @Test
    void shouldTimeTcpRequestsWhenTheirBytesAreRead() throws Exception
    {
        final Listener listener = new Listener();
        try (SipStack stack = SipStack.start(StackTcpTest.config(2), shard -> listener))
        {
            try (StreamClient client = StreamClient.connect(stack.tcpAddresses().get(0)))
            {
                for (int i = 0; i < REQUESTS; i++)
                {
                    final String callId = "tcp-time-" + i;
                    final long before = RealtimeClock.nanos();
                    client.write(StackTcpTest.request("OPTIONS", callId, client.localPort(), "TCP"));
                    check(listener, callId, before);
                    client.readMessage();
                }
            }
            assertTrue(handoffsIn(stack) > 0, "some requests were handed over to the other shard");
        }
    }

    private static long handoffsIn(final SipStack stack)
    {
        long n = 0;
        for (int k = 0; k < stack.shardCount(); k++)
        {
            n += stack.shard(k).handoffsIn();
        }
        return n;
    }

    /** Waits for the listener to get {@code callId}, then checks its arrival time against the two clock reads. */
    private static void check(final Listener listener, final String callId, final long sentAfter)
    {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (!listener.seen.containsKey(callId))
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("the listener never got " + callId);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        final long[] times = listener.seen.get(callId);
        assertNotNull(times);
        assertTrue(0 != times[0], callId + ": no arrival time");
        assertTrue(sentAfter <= times[0], callId + " arrived before it was sent: " + sentAfter + " > " + times[0]);
        assertTrue(times[0] <= times[1], callId + " arrived after the listener got it: " + times[0] + " > "
            + times[1]);
    }

    /** Answers every request with 200 and records its arrival time and a clock read; shared by the shards. */
    private static final class Listener implements SipListener
    {
        final Map<String, long[]> seen = new ConcurrentHashMap<>();

        @Override
        public void onRequest(final StackShard shard, final ServerTransaction tx, final SipMessage request)
        {
            final long now = RealtimeClock.nanos();
            seen.put(request.callId(), new long[] {request.receivedAtNanos(), now});
            final ByteBuf out = shard.allocate(256 + request.length());
            shard.builder().startResponse(out, request, 200, "OK", shard.ids().appendId(new StringBuilder()),
                tx.peer()).end(null, 0, 0);
            shard.respond(tx, out, 200);
        }

        @Override
        public void onResponse(final StackShard shard, final ClientTransaction tx, final SipMessage response)
        {
        }

        @Override
        public void onTimeout(final StackShard shard, final Transaction tx, final char timer)
        {
        }

        @Override
        public void onTransportError(final StackShard shard, final Transaction tx)
        {
        }
    }
}
