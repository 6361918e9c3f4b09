package io.sipline.media.turn;

import io.sipline.media.ice.UdpEndpoint;
import io.sipline.media.stun.StunAddress;
import io.sipline.media.stun.StunIntegrity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TurnClient} against a real coturn {@code turnserver} on loopback: two clients allocate (through the 401
 * nonce dance), each permits the other's relayed address, data goes A to B as ChannelData and B to A as Send/Data
 * indications, then both refresh and deallocate.
 */
class TurnCoturnTest
{
    @RegisterExtension
    final CoturnLoop loop = new CoturnLoop();

    /** A TURN client on its own loopback socket, recording what its listener hears. */
    private final class Side implements TurnClient.Listener
    {
        final UdpEndpoint socket;
        final TurnClient client;
        final StunAddress relayed = new StunAddress();
        final List<String> received = new ArrayList<>();
        final List<String> failures = new ArrayList<>();
        int lastLifetime = -1;
        int refreshes;
        int channel;
        boolean permitted;

        Side() throws IOException
        {
            socket = new UdpEndpoint(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            loop.closeLater(socket);
            socket.register(loop.selector());
            client = new TurnClient(socket, loop.coturn().address(), Coturn.USER, Coturn.PASSWORD, this,
                new TurnClient.Shared(new StunIntegrity(), 1500), 4);
        }

        @Override
        public void onAllocated(final TurnClient c, final StunAddress relayedAddress, final StunAddress mapped,
            final int lifetimeSeconds)
        {
            relayed.copyFrom(relayedAddress);
            lastLifetime = lifetimeSeconds;
        }

        @Override
        public void onRefreshed(final TurnClient c, final int lifetimeSeconds)
        {
            lastLifetime = lifetimeSeconds;
            refreshes++;
        }

        @Override
        public void onPermissionCreated(final TurnClient c, final int peerSlot)
        {
            permitted = true;
        }

        @Override
        public void onChannelBound(final TurnClient c, final int peerSlot, final int boundChannel)
        {
            channel = boundChannel;
        }

        @Override
        public void onFailure(final TurnClient c, final int request, final int peerSlot, final int result)
        {
            failures.add(request + ":" + TurnResult.name(result));
        }

        @Override
        public void onData(final TurnClient c, final int peerSlot, final StunAddress peer, final byte[] buf,
            final int offset, final int length)
        {
            received.add(peerSlot + ":" + new String(buf, offset, length, StandardCharsets.US_ASCII));
        }
    }

    private void pump(final BooleanSupplier done, final Side... sides) throws IOException
    {
        loop.pump(done, now ->
        {
            for (final Side side : sides)
            {
                side.socket.receive((e, buf, off, len, from) -> side.client.onDatagram(buf, off, len, now), 64);
                side.client.poll(now);
            }
        });
    }

    @Test
    void shouldAllocatePermitBindRelayRefreshAndDeallocateAgainstCoturn() throws IOException
    {
        final Side a = new Side();
        final Side b = new Side();
        final long now = System.currentTimeMillis();
        assertEquals(TurnResult.OK, a.client.allocate(0, now));
        assertEquals(TurnResult.OK, b.client.allocate(0, now));
        pump(() -> TurnClient.STATE_ALLOCATED == a.client.state() && TurnClient.STATE_ALLOCATED == b.client.state()
            || !a.failures.isEmpty() || !b.failures.isEmpty(), a, b);
        assertEquals(List.of(), a.failures);
        assertEquals(List.of(), b.failures);
        assertEquals(600, a.lastLifetime, "coturn's default lifetime");
        assertEquals(InetAddress.getLoopbackAddress(), a.relayed.toInetSocketAddress().getAddress());
        assertTrue(a.relayed.port() != b.relayed.port());

        // A binds a channel to B's relayed address; B installs a permission for A's.
        final int aToB = a.client.bindChannel(b.relayed, System.currentTimeMillis());
        final int bToA = b.client.createPermission(a.relayed, System.currentTimeMillis());
        assertTrue(aToB >= 0 && bToA >= 0);
        pump(() -> 0 != a.channel && b.permitted, a, b);
        assertEquals(TurnChannelData.MIN_CHANNEL, a.channel);
        assertEquals(TurnChannelData.MIN_CHANNEL, a.client.channel(aToB));

        assertEquals(TurnResult.OK, a.client.send(aToB, ascii("hello"), 0, 5)); // ChannelData, padded
        assertEquals(TurnResult.OK, b.client.send(bToA, ascii("world!"), 0, 6)); // Send indication
        pump(() -> 1 == a.received.size() && 1 == b.received.size(), a, b);
        assertEquals(List.of(bToA + ":hello"), b.received, "A's ChannelData reached B as a Data indication");
        assertEquals(List.of(aToB + ":world!"), a.received, "B's Send indication reached A on its channel");

        assertEquals(TurnResult.OK, a.client.refresh(1200, System.currentTimeMillis()));
        pump(() -> 1 == a.refreshes || !a.failures.isEmpty(), a);
        assertEquals(List.of(), a.failures);
        assertEquals(1200, a.lastLifetime, "coturn grants what we ask between its minimum and maximum");

        assertEquals(TurnResult.OK, a.client.deallocate(System.currentTimeMillis()));
        assertEquals(TurnResult.OK, b.client.deallocate(System.currentTimeMillis()));
        pump(() -> TurnClient.STATE_CLOSED == a.client.state() && TurnClient.STATE_CLOSED == b.client.state(), a, b);
        assertEquals(0, a.lastLifetime);
        assertEquals(0, b.lastLifetime);
        assertEquals(List.of(), a.failures);
        assertEquals(TurnResult.NOT_ALLOCATED, a.client.send(aToB, ascii("late"), 0, 4));
    }

    private static byte[] ascii(final String s)
    {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
