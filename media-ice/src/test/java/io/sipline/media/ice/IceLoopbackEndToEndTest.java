package io.sipline.media.ice;

import io.sipline.media.turn.Coturn;
import io.sipline.media.turn.CoturnLoop;
import io.sipline.media.turn.TurnClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two agents on real loopback UDP sockets, a coturn {@code turnserver} child process as STUN and TURN
 * server, descriptions exchanged as SDP text, ICE completed and data carried on every component. The relayed path is
 * forced by a receive filter that drops every datagram from the other agent's host sockets (a firewall between the
 * hosts that lets only the TURN server through).
 *
 * <p>On loopback a server-reflexive address equals its host address, so the agents gather it and drop it as
 * redundant (RFC 8445 §5.1.3). To get a real one, a side can sit behind a NAT made of sockets: each of its components
 * sends and receives through a second loopback socket (the NAT's public port, endpoint-independent mapping and
 * filtering, RFC 4787), while its host candidate names a socket nobody can reach (a private address). coturn then
 * reports the public port as the server-reflexive address, and only that candidate can connect.
 */
class IceLoopbackEndToEndTest
{
    @RegisterExtension
    final CoturnLoop loop = new CoturnLoop();
    private final IceContext context = new IceContext();
    private final UdpEndpoint.Buffers buffers = new UdpEndpoint.Buffers(); // one pair of packet buffers for all sockets
    private final List<Side> sides = new ArrayList<>();
    private final Set<InetSocketAddress> firewalled = new HashSet<>();

    /** An agent with one loopback socket per component (two behind the NAT: the private one and the public one). */
    private final class Side implements IceAgent.Listener
    {
        /** The sockets the agent sends and receives on: its own, or the NAT's public ones. */
        final List<UdpEndpoint> endpoints = new ArrayList<>();
        final IceAgent agent;
        final List<String> data = new ArrayList<>();
        final List<IceCandidate> gathered = new ArrayList<>();
        boolean gatheringComplete;

        Side(final boolean lite, final boolean controlling, final int components) throws IOException
        {
            this(lite, controlling, components, false);
        }

        /**
         * @param natted whether the side sits behind the NAT: its host candidate is then a socket that is never read
         *               (unreachable, as a private address is), and all its traffic goes through a public socket.
         */
        Side(final boolean lite, final boolean controlling, final int components, final boolean natted)
            throws IOException
        {
            agent = new IceAgent(context, IceLimits.PJNATH, components, lite, controlling,
                (socket, buf, off, len, to) -> endpoints.get(socket).send(buf, off, len, to), this);
            for (int c = 1; c <= components; c++)
            {
                final UdpEndpoint endpoint = loopbackEndpoint();
                endpoints.add(natted ? loopbackEndpoint() : endpoint);
                agent.addHostCandidate(c, c - 1, endpoint.localAddress());
            }
            sides.add(this);
        }

        @Override
        public void onLocalCandidate(final IceAgent a, final IceCandidate candidate)
        {
            gathered.add(candidate);
        }

        @Override
        public void onGatheringComplete(final IceAgent a)
        {
            gatheringComplete = true;
        }

        @Override
        public void onData(final IceAgent a, final int component, final byte[] buf, final int offset,
            final int length)
        {
            data.add(component + ":" + new String(buf, offset, length, StandardCharsets.US_ASCII));
        }

        void receive(final long now)
        {
            for (int i = 0; i < endpoints.size(); i++)
            {
                final int socket = i;
                endpoints.get(i).receive((e, buf, off, len, from) ->
                {
                    if (!firewalled.contains(from))
                    {
                        agent.onDatagram(socket, buf, off, len, from, now);
                    }
                }, 64);
            }
        }
    }

    private UdpEndpoint loopbackEndpoint() throws IOException
    {
        final UdpEndpoint endpoint =
            new UdpEndpoint(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), buffers);
        loop.closeLater(endpoint);
        endpoint.register(loop.selector());
        return endpoint;
    }

    private void pump(final BooleanSupplier done) throws IOException
    {
        loop.pump(done, now ->
        {
            for (final Side side : sides)
            {
                side.receive(now);
                side.agent.poll(now);
            }
        });
    }

    /** The remote candidate of a component known at an address (the remote end of a selected pair). */
    private static IceCandidate remoteCandidateAt(final IceAgent agent, final int component,
        final InetSocketAddress address)
    {
        for (int r = 0; r < agent.remoteCandidateCount(); r++)
        {
            final IceCandidate candidate = agent.remoteCandidate(r);
            if (candidate.componentId() == component && candidate.port() == address.getPort()
                && IceAddresses.toInet(candidate).equals(address))
            {
                return candidate;
            }
        }
        throw new AssertionError("no remote candidate at " + address);
    }

    private static boolean completed(final Side side)
    {
        return IceAgent.STATE_COMPLETED == side.agent.state();
    }

    private void assertDataFlows(final Side a, final Side b, final int components) throws IOException
    {
        for (int c = 1; c <= components; c++)
        {
            final byte[] ping = ("ping" + c).getBytes(StandardCharsets.US_ASCII);
            final byte[] pong = ("pong" + c).getBytes(StandardCharsets.US_ASCII);
            assertTrue(a.agent.send(c, ping, 0, ping.length));
            assertTrue(b.agent.send(c, pong, 0, pong.length));
        }
        pump(() -> a.data.size() >= components && b.data.size() >= components);
        for (int c = 1; c <= components; c++)
        {
            assertTrue(b.data.contains(c + ":ping" + c), b.data.toString());
            assertTrue(a.data.contains(c + ":pong" + c), a.data.toString());
        }
    }

    private void gatherWithCoturn(final Side side) throws IOException
    {
        side.agent.gather(loop.coturn().address(), loop.coturn().address(), Coturn.USER, Coturn.PASSWORD,
            System.currentTimeMillis());
        pump(() -> side.gatheringComplete);
        for (int c = 1; c <= side.agent.components(); c++)
        {
            final int component = c;
            assertTrue(side.gathered.stream().anyMatch(x -> IceCandidateType.RELAYED == x.type()
                && x.componentId() == component), side.gathered.toString());
        }
    }

    @Test
    void shouldConnectAFullControllingAgentToALiteAgentOverLoopback() throws IOException, IceParseException
    {
        final Side full = new Side(false, true, 2);
        final Side lite = new Side(true, false, 2);
        gatherWithCoturn(full);
        lite.agent.gather(null, null, null, null, System.currentTimeMillis());
        assertEquals(4, full.agent.localCandidateCount(), "2 host + 2 relayed (srflx = host on loopback)");

        lite.agent.applyRemoteDescription(full.agent.localDescription(), System.currentTimeMillis());
        full.agent.applyRemoteDescription(lite.agent.localDescription(), System.currentTimeMillis());
        pump(() -> completed(full) && completed(lite));
        for (int c = 1; c <= 2; c++)
        {
            assertEquals(IceCandidateType.HOST, full.agent.selectedLocal(c).type(), "host pairs rank first");
        }
        assertDataFlows(full, lite, 2);
        full.agent.close(System.currentTimeMillis());
        pump(() -> TurnClient.STATE_CLOSED == full.agent.turnClient(1).state()
            && TurnClient.STATE_CLOSED == full.agent.turnClient(2).state());
    }

    @Test
    void shouldRelayThroughCoturnWhenTheHostsCannotReachEachOther() throws IOException, IceParseException
    {
        final Side a = new Side(false, true, 2);
        final Side b = new Side(false, false, 2);
        gatherWithCoturn(a);
        gatherWithCoturn(b);
        for (final Side side : sides)
        {
            for (final UdpEndpoint endpoint : side.endpoints)
            {
                firewalled.add(endpoint.localAddress());
            }
        }

        b.agent.applyRemoteDescription(a.agent.localDescription(), System.currentTimeMillis());
        a.agent.applyRemoteDescription(b.agent.localDescription(), System.currentTimeMillis());
        pump(() -> completed(a) && completed(b));
        for (int c = 1; c <= 2; c++)
        {
            final IceCandidate local = a.agent.selectedLocal(c);
            assertNotNull(local);
            assertTrue(IceCandidateType.RELAYED == local.type()
                || IceCandidateType.RELAYED == b.agent.selectedLocal(c).type(), "component " + c + " relayed");
        }
        final long relayedBefore = a.agent.turnClient(1).dataReceived() + b.agent.turnClient(1).dataReceived();
        assertDataFlows(a, b, 2);
        assertTrue(a.agent.turnClient(1).dataReceived() + b.agent.turnClient(1).dataReceived() > relayedBefore,
            "the data came through the relay");
        a.agent.close(System.currentTimeMillis());
        b.agent.close(System.currentTimeMillis());
        pump(() -> TurnClient.STATE_CLOSED == a.agent.turnClient(1).state()
            && TurnClient.STATE_CLOSED == b.agent.turnClient(2).state());
    }

    /**
     * Host, server-reflexive and relayed candidates on real sockets: agent A behind the socket NAT gathers a
     * server-reflexive candidate from coturn (its public port, not its host address), its host candidate cannot be
     * reached, and ICE connects A, at its server-reflexive address, to B's host candidate on both components.
     */
    @Test
    void shouldConnectAServerReflexiveCandidateFromCoturnThroughANat() throws IOException, IceParseException
    {
        final Side a = new Side(false, true, 2, true);
        final Side b = new Side(false, false, 2);
        gatherWithCoturn(a);
        gatherWithCoturn(b);
        for (int c = 1; c <= 2; c++)
        {
            final InetSocketAddress publicPort = a.endpoints.get(c - 1).localAddress();
            final int component = c;
            assertTrue(a.gathered.stream().anyMatch(x -> IceCandidateType.SERVER_REFLEXIVE == x.type()
                && x.componentId() == component && publicPort.getPort() == x.port()), a.gathered.toString());
        }

        b.agent.applyRemoteDescription(a.agent.localDescription(), System.currentTimeMillis());
        a.agent.applyRemoteDescription(b.agent.localDescription(), System.currentTimeMillis());
        pump(() -> completed(a) && completed(b));
        for (int c = 1; c <= 2; c++)
        {
            // B reaches A only at A's server-reflexive address (the NAT's public port), from B's host candidate. A's
            // checks leave from its host base, and B maps them to that public port: RFC 8445 §7.2.5.3.2
            // makes A's valid, selected pair the server-reflexive candidate equal to the mapped address, ranked with
            // its own priority (§6.1.2.3), while data still leaves A's host socket (through the NAT).
            final InetSocketAddress publicPort = a.endpoints.get(c - 1).localAddress();
            assertEquals(publicPort, b.agent.selectedRemote(c), "component " + c);
            assertEquals(IceCandidateType.HOST, b.agent.selectedLocal(c).type(), "component " + c);
            assertEquals(b.endpoints.get(c - 1).localAddress(), a.agent.selectedRemote(c), "component " + c);
            final IceCandidate local = a.agent.selectedLocal(c);
            assertEquals(IceCandidateType.SERVER_REFLEXIVE, local.type(), "component " + c);
            assertEquals(publicPort.getPort(), local.port(), "component " + c);
            assertEquals(c, local.componentId());
            final IceCandidate remote = remoteCandidateAt(a.agent, c, a.agent.selectedRemote(c));
            assertEquals(IceCandidateType.HOST, remote.type(), "component " + c);
            assertEquals(IcePriority.pair(true, local.priority(), remote.priority()), a.agent.selectedPriority(c),
                "component " + c);
        }
        assertDataFlows(a, b, 2);
        a.agent.close(System.currentTimeMillis());
        b.agent.close(System.currentTimeMillis());
        pump(() -> TurnClient.STATE_CLOSED == a.agent.turnClient(1).state()
            && TurnClient.STATE_CLOSED == b.agent.turnClient(2).state());
    }
}
