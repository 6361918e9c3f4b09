package io.sipline.media.ice;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the {@link IceAgent} tests share: a {@link SimulatedNetwork} (simulated time, 5 ms latency, NAT and blocked
 * routes where a test needs them), an agent with its sockets and listener ({@link Side}), and the offer/answer,
 * data and connectivity helpers.
 */
abstract class IceAgentTestSupport
{
    final SimulatedNetwork net = new SimulatedNetwork();

    /** One agent with its sockets and what its listener heard. */
    final class Side implements IceAgent.Listener
    {
        final IceAgent agent;
        final Map<Integer, InetSocketAddress> sockets = new HashMap<>();
        final List<String> data = new ArrayList<>();
        final List<IceCandidate> trickled = new ArrayList<>();
        final List<Integer> states = new ArrayList<>();
        int consentLost;
        boolean gathered;

        Side(final boolean lite, final boolean controlling, final int components, final String... hosts)
        {
            this(new IceContext(), lite, controlling, components, hosts);
        }

        /** @param shared the media thread's context: Sides given the same one run on one thread of one host. */
        Side(final IceContext shared, final boolean lite, final boolean controlling, final int components,
            final String... hosts)
        {
            agent = new IceAgent(shared, IceLimits.PJNATH, components, lite, controlling,
                net.transport(sockets), this);
            for (int i = 0; i < hosts.length; i++)
            {
                final int colon = hosts[i].lastIndexOf(':');
                final InetSocketAddress address = new InetSocketAddress(hosts[i].substring(0, colon),
                    Integer.parseInt(hosts[i].substring(colon + 1)));
                sockets.put(i, address);
                net.attach(agent, i, address);
                agent.addHostCandidate(1 + i % components, i, address);
            }
        }

        @Override
        public void onLocalCandidate(final IceAgent a, final IceCandidate candidate)
        {
            trickled.add(candidate);
        }

        @Override
        public void onGatheringComplete(final IceAgent a)
        {
            gathered = true;
        }

        @Override
        public void onStateChanged(final IceAgent a, final int state)
        {
            states.add(state);
        }

        @Override
        public void onConsentLost(final IceAgent a, final int component)
        {
            consentLost++;
        }

        @Override
        public void onData(final IceAgent a, final int component, final byte[] buf, final int offset,
            final int length)
        {
            data.add(component + ":" + new String(buf, offset, length, StandardCharsets.US_ASCII));
        }
    }

    static void exchange(final Side a, final Side b, final long now) throws IceParseException
    {
        b.agent.applyRemoteDescription(a.agent.localDescription(), now);
        a.agent.applyRemoteDescription(b.agent.localDescription(), now);
    }

    static boolean completed(final Side s)
    {
        return IceAgent.STATE_COMPLETED == s.agent.state();
    }

    static void sendData(final Side from, final int component, final String text)
    {
        assertTrue(from.agent.send(component, text.getBytes(StandardCharsets.US_ASCII), 0, text.length()));
    }

    void assertConnected(final Side a, final Side b, final int components)
    {
        for (int c = 1; c <= components; c++)
        {
            assertNotNull(a.agent.selectedLocal(c), "component " + c);
            assertNotNull(b.agent.selectedLocal(c), "component " + c);
            sendData(a, c, "ping" + c);
            sendData(b, c, "pong" + c);
        }
        final int expected = components;
        net.runUntil(() -> a.data.size() >= expected && b.data.size() >= expected, 100);
        for (int c = 1; c <= components; c++)
        {
            assertTrue(b.data.contains(c + ":ping" + c), b.data.toString());
            assertTrue(a.data.contains(c + ":pong" + c), a.data.toString());
        }
    }
}
