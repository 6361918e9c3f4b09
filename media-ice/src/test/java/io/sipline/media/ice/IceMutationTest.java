package io.sipline.media.ice;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Property: whatever arrives — real ICE and TURN traffic with random bytes flipped, truncated or extended, or noise —
 * neither the agent nor its TURN client throws. The traffic is recorded from a relayed call in the simulated
 * network, then replayed mutated into a fresh connected pair of agents.
 */
class IceMutationTest
{
    private static final int MUTATIONS = 100_000;

    private record Recorded(int socket, InetSocketAddress from, byte[] bytes)
    {
    }

    @Test
    void shouldNeverThrowOnMutatedTraffic() throws IceParseException
    {
        final SimulatedNetwork net = new SimulatedNetwork();
        final IceContext context = new IceContext();
        final InetSocketAddress turnAddress = new InetSocketAddress("198.51.100.200", 3478);
        new SimulatedTurnServer(net, turnAddress, "user", "pass");
        final List<Recorded> recorded = new ArrayList<>();
        final Map<Integer, InetSocketAddress> aSockets = new HashMap<>(Map.of(0, new InetSocketAddress("192.0.2.1",
            1000)));
        final Map<Integer, InetSocketAddress> bSockets = new HashMap<>(Map.of(0, new InetSocketAddress("192.0.2.2",
            2000)));
        final IceAgent a = new IceAgent(context, IceLimits.PJNATH, 1, false, true, net.transport(aSockets),
            new IceAgent.Listener()
            {
            });
        final IceAgent.Transport toB = net.transport(bSockets);
        final long[] bReceived = new long[1];
        final IceAgent b = new IceAgent(context, IceLimits.PJNATH, 1, false, false, toB, new IceAgent.Listener()
        {
            @Override
            public void onData(final IceAgent agent, final int component, final byte[] buf, final int offset,
                final int length)
            {
                bReceived[0]++;
            }
        });
        net.attach(a, 0, aSockets.get(0));
        net.attach(b, 0, bSockets.get(0));
        a.addHostCandidate(1, 0, aSockets.get(0));
        b.addHostCandidate(1, 0, bSockets.get(0));
        net.recordInto((socket, from, bytes) -> recorded.add(new Recorded(socket, from, bytes)));
        a.gather(null, turnAddress, "user", "pass", 0);
        b.gather(null, turnAddress, "user", "pass", 0);
        net.runUntil(() -> a.gatheringComplete() && b.gatheringComplete(), 2_000);
        net.block(aSockets.get(0), bSockets.get(0)); // relayed pairs only: ChannelData and Data indications recorded
        net.block(bSockets.get(0), aSockets.get(0));
        b.applyRemoteDescription(a.localDescription(), net.now());
        a.applyRemoteDescription(b.localDescription(), net.now());
        net.runUntil(() -> IceAgent.STATE_COMPLETED == a.state() && IceAgent.STATE_COMPLETED == b.state(), 5_000);
        net.run(12_000); // consent checks too
        assertTrue(recorded.size() >= 20, "traffic recorded: " + recorded.size());

        final SplittableRandom random = new SplittableRandom(8);
        for (int i = 0; i < MUTATIONS; i++)
        {
            final Recorded original = recorded.get(random.nextInt(recorded.size()));
            final byte[] bytes = mutate(original.bytes(), random);
            final IceAgent target = random.nextBoolean() ? a : b;
            target.onDatagram(original.socket(), bytes, 0, bytes.length, original.from(), net.now());
            if (0 == i % 1_000)
            {
                net.run(1);
            }
        }
        // Nothing threw; and the call survived: still connected, data still carried through the relay.
        net.recordInto(null);
        net.run(100);
        assertEquals(IceAgent.STATE_COMPLETED, a.state());
        assertEquals(IceAgent.STATE_COMPLETED, b.state());
        final long before = bReceived[0];
        assertTrue(a.send(1, new byte[] {(byte) 0x80, 0, 0, 1}, 0, 4));
        net.runUntil(() -> bReceived[0] > before, 100);
        assertTrue(a.localCandidateCount() <= IceLimits.PJNATH.maxLocalCandidates());
        assertTrue(a.remoteCandidateCount() <= IceLimits.PJNATH.maxRemoteCandidates());
    }

    private static byte[] mutate(final byte[] original, final SplittableRandom random)
    {
        switch (random.nextInt(4))
        {
            case 0 ->
            {
                final byte[] bytes = original.clone();
                for (int k = 1 + random.nextInt(4); k > 0; k--)
                {
                    bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
                }
                return bytes;
            }
            case 1 ->
            {
                return Arrays.copyOf(original, random.nextInt(original.length + 1));
            }
            case 2 ->
            {
                final byte[] bytes = Arrays.copyOf(original, original.length + 1 + random.nextInt(16));
                for (int i = original.length; i < bytes.length; i++)
                {
                    bytes[i] = (byte) random.nextInt(256);
                }
                return bytes;
            }
            default ->
            {
                final byte[] bytes = new byte[random.nextInt(200)];
                for (int i = 0; i < bytes.length; i++)
                {
                    bytes[i] = (byte) random.nextInt(256);
                }
                if (bytes.length > 8 && random.nextBoolean())
                {
                    System.arraycopy(original, 0, bytes, 0, Math.min(8, original.length)); // keep a plausible header
                }
                return bytes;
            }
        }
    }
}
