package io.sipline.media.ice;

import io.sipline.media.stun.StunAddress;
import io.sipline.media.stun.StunAttributeType;
import io.sipline.media.stun.StunCredential;
import io.sipline.media.stun.StunIntegrity;
import io.sipline.media.stun.StunMessageFlyweight;
import io.sipline.media.stun.StunMessageType;
import io.sipline.media.stun.StunMessageWriter;
import io.sipline.media.stun.StunResult;
import io.sipline.media.turn.TurnChannelData;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * A minimal TURN server (RFC 8656) inside a {@link SimulatedNetwork}, for tests and the memory harness that need
 * relayed candidates without a coturn process: Allocate behind a 401 with REALM/NONCE and long-term credentials,
 * CreatePermission, ChannelBind, Refresh, Send indications and ChannelData out, Data indications and ChannelData in.
 * Relayed addresses are handed out from 198.18.0.0/15. No quotas, no expiry, no nonce ageing.
 *
 * <p>Single-threaded; owned by the test.
 */
final class SimulatedTurnServer implements SimulatedNetwork.Node
{
    static final String REALM = "sim.test";

    private final class Allocation
    {
        final InetSocketAddress client;
        final InetSocketAddress relayed;
        final Set<InetAddress> permissions = new HashSet<>();
        final Map<Integer, InetSocketAddress> channels = new HashMap<>();

        Allocation(final InetSocketAddress client, final InetSocketAddress relayed)
        {
            this.client = client;
            this.relayed = relayed;
        }

        int channelOf(final InetSocketAddress peer)
        {
            for (final Map.Entry<Integer, InetSocketAddress> e : channels.entrySet())
            {
                if (e.getValue().equals(peer))
                {
                    return e.getKey();
                }
            }
            return -1;
        }
    }

    private final SimulatedNetwork net;
    private final InetSocketAddress address;
    private final StunCredential key;
    private final StunIntegrity integrity = new StunIntegrity();
    private final StunMessageFlyweight message = new StunMessageFlyweight(16, StunAttributeType.TURN_KNOWN_LOW);
    private final StunMessageWriter writer = new StunMessageWriter();
    private final StunAddress scratch = new StunAddress();
    private final Map<InetSocketAddress, Allocation> byClient = new HashMap<>();
    private final Map<InetSocketAddress, Allocation> byRelayed = new HashMap<>();
    private int nextRelay;
    private long allocations;

    SimulatedTurnServer(final SimulatedNetwork net, final InetSocketAddress address, final String user,
        final String password)
    {
        this.net = net;
        this.address = address;
        this.key = StunCredential.longTerm(user, REALM, password, StunCredential.ALGORITHM_MD5);
        net.place(address, this);
    }

    long allocations()
    {
        return allocations;
    }

    /** @return allocations not deleted (a Refresh with LIFETIME 0 deletes one). */
    int liveAllocations()
    {
        return byClient.size();
    }

    @Override
    public void onDatagram(final InetSocketAddress from, final InetSocketAddress to, final byte[] bytes)
    {
        if (!to.equals(address))
        {
            fromPeer(from, byRelayed.get(to), bytes);
            return;
        }
        final Allocation allocation = byClient.get(from);
        if (TurnChannelData.looksLikeChannelData(bytes, 0, bytes.length))
        {
            final int channel = TurnChannelData.channel(bytes, 0, bytes.length);
            final InetSocketAddress peer = null == allocation ? null : allocation.channels.get(channel);
            if (null != peer)
            {
                net.send(allocation.relayed, peer, Arrays.copyOfRange(bytes, 4,
                    4 + TurnChannelData.dataLength(bytes, 0)));
            }
            return;
        }
        if (message.wrap(bytes, 0, bytes.length) < 0)
        {
            return;
        }
        final int method = message.method();
        if (StunMessageType.CLASS_INDICATION == message.messageClass() && StunMessageType.METHOD_SEND == method)
        {
            final int peerIndex = message.findAttribute(StunAttributeType.XOR_PEER_ADDRESS);
            final int dataIndex = message.findAttribute(StunAttributeType.DATA);
            if (null != allocation && -1 != peerIndex && -1 != dataIndex
                && StunResult.OK == message.readAddress(peerIndex, scratch))
            {
                final InetSocketAddress peer = scratch.toInetSocketAddress();
                if (allocation.permissions.contains(peer.getAddress()))
                {
                    final int at = message.attributeValueOffset(dataIndex);
                    net.send(allocation.relayed, peer,
                        Arrays.copyOfRange(bytes, at, at + message.attributeLength(dataIndex)));
                }
            }
            return;
        }
        if (StunMessageType.CLASS_REQUEST != message.messageClass())
        {
            return;
        }
        if (StunResult.VERIFIED != message.verifyMessageIntegrity(integrity, key))
        {
            respondError(from, method, 401);
            return;
        }
        switch (method)
        {
            case StunMessageType.METHOD_ALLOCATE -> allocate(from);
            case StunMessageType.METHOD_REFRESH -> refresh(from, allocation);
            case StunMessageType.METHOD_CREATE_PERMISSION, StunMessageType.METHOD_CHANNEL_BIND ->
                permit(from, allocation, method);
            default -> respondError(from, method, 400);
        }
    }

    private void allocate(final InetSocketAddress client)
    {
        Allocation allocation = byClient.get(client);
        if (null == allocation)
        {
            final int n = nextRelay++;
            final InetSocketAddress relayed =
                new InetSocketAddress(address(((198 << 24) | (18 << 16)) + n), 50_000);
            allocation = new Allocation(client, relayed);
            byClient.put(client, allocation);
            byRelayed.put(relayed, allocation);
            net.place(relayed, this);
            allocations++;
        }
        final Allocation a = allocation;
        respond(client, StunMessageType.METHOD_ALLOCATE, w -> w
            .addAddress(StunAttributeType.XOR_RELAYED_ADDRESS, new StunAddress().set(a.relayed))
            .addAddress(StunAttributeType.XOR_MAPPED_ADDRESS, new StunAddress().set(client))
            .addU32(StunAttributeType.LIFETIME, 600));
    }

    private void refresh(final InetSocketAddress client, final Allocation allocation)
    {
        if (null == allocation)
        {
            respondError(client, StunMessageType.METHOD_REFRESH, 437);
            return;
        }
        final int index = message.findAttribute(StunAttributeType.LIFETIME);
        final int lifetime = -1 == index ? 600 : (int) message.u32Value(index);
        if (0 == lifetime)
        {
            byClient.remove(client);
            byRelayed.remove(allocation.relayed);
            net.remove(allocation.relayed);
        }
        respond(client, StunMessageType.METHOD_REFRESH, w -> w.addU32(StunAttributeType.LIFETIME, lifetime));
    }

    private void permit(final InetSocketAddress client, final Allocation allocation, final int method)
    {
        final int peerIndex = message.findAttribute(StunAttributeType.XOR_PEER_ADDRESS);
        if (null == allocation || -1 == peerIndex || StunResult.OK != message.readAddress(peerIndex, scratch))
        {
            respondError(client, method, null == allocation ? 437 : 400);
            return;
        }
        final InetSocketAddress peer = scratch.toInetSocketAddress();
        allocation.permissions.add(peer.getAddress());
        if (StunMessageType.METHOD_CHANNEL_BIND == method)
        {
            final int channel = (int) (message.u32Value(message.findAttribute(StunAttributeType.CHANNEL_NUMBER))
                >>> 16);
            allocation.channels.put(channel, peer);
        }
        respond(client, method, w -> w);
    }

    private void fromPeer(final InetSocketAddress peer, final Allocation allocation, final byte[] bytes)
    {
        if (null == allocation || !allocation.permissions.contains(peer.getAddress()))
        {
            return;
        }
        final int channel = allocation.channelOf(peer);
        final byte[] out = new byte[bytes.length + 64];
        final int length;
        if (channel > 0)
        {
            length = TurnChannelData.encode(out, 0, channel, bytes, 0, bytes.length, true);
        }
        else
        {
            length = writer.wrap(out, 0, out.length)
                .header(StunMessageType.type(StunMessageType.METHOD_DATA, StunMessageType.CLASS_INDICATION), 7, 7L)
                .addAddress(StunAttributeType.XOR_PEER_ADDRESS, new StunAddress().set(peer))
                .addBytes(StunAttributeType.DATA, bytes, 0, bytes.length)
                .length();
        }
        net.send(address, allocation.client, Arrays.copyOf(out, length));
    }

    private interface Attributes
    {
        StunMessageWriter add(StunMessageWriter writer);
    }

    private void respond(final InetSocketAddress client, final int method, final Attributes attributes)
    {
        final byte[] out = new byte[256];
        writer.wrap(out, 0, out.length)
            .header(StunMessageType.type(method, StunMessageType.CLASS_SUCCESS_RESPONSE), message);
        final int length = attributes.add(writer).addMessageIntegrity(integrity, key).addFingerprint(integrity)
            .length();
        net.send(address, client, Arrays.copyOf(out, length));
    }

    private void respondError(final InetSocketAddress client, final int method, final int code)
    {
        final byte[] out = new byte[256];
        final int length = writer.wrap(out, 0, out.length)
            .header(StunMessageType.type(method, StunMessageType.CLASS_ERROR_RESPONSE), message)
            .addErrorCode(code, "error")
            .addAscii(StunAttributeType.REALM, REALM)
            .addAscii(StunAttributeType.NONCE, "nonce-sim")
            .length();
        net.send(address, client, Arrays.copyOf(out, length));
    }

    private static InetAddress address(final int ipv4)
    {
        try
        {
            return InetAddress.getByAddress(new byte[] {(byte) (ipv4 >>> 24), (byte) (ipv4 >>> 16),
                (byte) (ipv4 >>> 8), (byte) ipv4});
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}
