package io.sipline.sip.stack;

import static io.sipline.sip.stack.Datagrams.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.sipline.sip.shard.ShardIds;
import io.sipline.sip.transport.UdpShardSockets;
import org.junit.jupiter.api.Test;

/**
 * A burst of UDP requests for the calls of both shards, queued on the socket while both loops are held, then read: each
 * request reaches the listener once, on the shard that owns its call, and the shard that read them wakes the owner
 * at the end of each read batch ({@link ShardInbox#wakeDeferred}, up to {@link UdpShardSockets#READS_PER_WAKEUP}
 * datagrams a batch, half of them the owner's here), not once per message handed over: at least half that many
 * hand-overs per wake-up. The bound is on counts, not on time; polls with a deadline, no sleeps.
 */
class StackHandoffWakeTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(10);
    /** Requests per shard: the shard that reads them hands over exactly this many. */
    private static final int PER_SHARD = 48;

    @Test
    void shouldWakeTheOwnerOncePerReadBatch() throws Exception
    {
        final StreamTestListener.Record listener = new StreamTestListener.Record();
        try (SipStack stack = SipStack.start(new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0).shards(2)
            .tcp(false), StreamTestListener.factory(listener));
            DatagramSocket peer = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            peer.setSendBufferSize(1 << 20);
            final List<String> callIds = callIds(PER_SHARD);
            final CountDownLatch held = new CountDownLatch(2);
            final CountDownLatch release = new CountDownLatch(1);
            for (int k = 0; k < 2; k++)
            {
                stack.shard(k).loop().execute(() -> {
                    held.countDown();
                    awaitUninterruptibly(release);
                });
            }
            assertTrue(held.await(10, TimeUnit.SECONDS), "both loops held");
            final InetSocketAddress server = stack.localAddresses().get(0);
            for (final String callId : callIds)
            {
                send(peer, server, StackTcpTest.request("OPTIONS", callId, peer.getLocalPort(), "UDP"));
            }
            release.countDown();
            awaitAll(listener, callIds);

            for (final String callId : callIds)
            {
                assertEquals(owner(callId), listener.shardOf.get(callId), callId + " was handled on its owner");
            }
            final long handedOver = stack.shard(0).handoffsIn() + stack.shard(1).handoffsIn();
            assertEquals(PER_SHARD, handedOver, "the reading shard hands over the other shard's requests");
            final long wakeUps = stack.shard(0).inbox().wakesSent + stack.shard(1).inbox().wakesSent;
            final long perWakeUp = UdpShardSockets.READS_PER_WAKEUP / 2 / 2;
            assertTrue(wakeUps * perWakeUp <= handedOver, "the owner was woken " + wakeUps + " times for "
                + handedOver + " hand-overs; at most one per " + perWakeUp + " expected");
        }
    }

    /** Call-IDs whose {@code hash mod 2} puts {@code perShard} of them on each shard. */
    private static List<String> callIds(final int perShard)
    {
        final List<String> ids = new ArrayList<>();
        final int[] counts = new int[2];
        for (int i = 0; counts[0] < perShard || counts[1] < perShard; i++)
        {
            final String callId = "wake-" + i;
            final int owner = owner(callId);
            if (counts[owner] < perShard)
            {
                counts[owner]++;
                ids.add(callId);
            }
        }
        return ids;
    }

    private static int owner(final String callId)
    {
        final byte[] b = callId.getBytes(StandardCharsets.US_ASCII);
        return ShardIds.shardForCallId(b, 0, b.length, 2);
    }

    private static void awaitAll(final StreamTestListener.Record listener, final List<String> callIds)
    {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (listener.shardOf.size() < callIds.size())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("the listener got " + listener.shardOf.size() + " of " + callIds.size() + " requests");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private static void awaitUninterruptibly(final CountDownLatch latch)
    {
        boolean interrupted = false;
        while (true)
        {
            try
            {
                latch.await();
                break;
            }
            catch (final InterruptedException e)
            {
                interrupted = true;
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }
}
