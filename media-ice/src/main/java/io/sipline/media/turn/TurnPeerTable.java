package io.sipline.media.turn;

import io.sipline.media.stun.StunAddress;

/**
 * The peers of one {@link TurnClient} allocation and what the server installed for each: a permission (RFC 8656 §9,
 * 5 minutes) and a channel (§11, 10 minutes, numbers from 0x4000), each with the time its refresh is due (a minute
 * before it ends). A slot keeps its address for the life of the client, so a slot number names one peer.
 *
 * <p>Not thread-safe; owned by the client's media thread. Allocated once at the client's peer limit; nothing after.
 */
final class TurnPeerTable
{
    /** Nothing installed or asked. */
    static final byte NONE = 0;
    /** A request is in flight. */
    static final byte PENDING = 1;
    /** The server confirmed it (a refresh may be in flight). */
    static final byte INSTALLED = 2;

    final StunAddress[] peers;
    final byte[] permissionState;
    final long[] permissionRefreshAtMs;
    final char[] channels;
    final byte[] channelState;
    final long[] channelRefreshAtMs;
    private int nextChannel = TurnChannelData.MIN_CHANNEL;

    TurnPeerTable(final int maxPeers)
    {
        peers = new StunAddress[maxPeers];
        for (int i = 0; i < maxPeers; i++)
        {
            peers[i] = new StunAddress();
        }
        permissionState = new byte[maxPeers];
        permissionRefreshAtMs = new long[maxPeers];
        channels = new char[maxPeers];
        channelState = new byte[maxPeers];
        channelRefreshAtMs = new long[maxPeers];
    }

    int size()
    {
        return peers.length;
    }

    /** @return the slot of {@code peer}, or -1. */
    int slot(final StunAddress peer)
    {
        for (int slot = 0; slot < peers.length; slot++)
        {
            if (peers[slot].sameAs(peer))
            {
                return slot;
            }
        }
        return -1;
    }

    /** @return the slot of {@code peer} (copied into a free slot when new), or {@link TurnResult#NO_PEER_SLOT}. */
    int slotOrAdd(final StunAddress peer)
    {
        final int existing = slot(peer);
        if (existing >= 0)
        {
            return existing;
        }
        for (int slot = 0; slot < peers.length; slot++)
        {
            if (0 == peers[slot].family())
            {
                peers[slot].copyFrom(peer);
                return slot;
            }
        }
        return TurnResult.NO_PEER_SLOT;
    }

    /** @return the slot whose channel (asked or installed) is {@code channel}, or -1. */
    int channelSlot(final int channel)
    {
        for (int slot = 0; slot < peers.length; slot++)
        {
            if (channels[slot] == channel && NONE != channelState[slot])
            {
                return slot;
            }
        }
        return -1;
    }

    /** Gives a slot a channel number unless it has one. @return {@link TurnResult#OK} or {@code NO_CHANNEL}. */
    int assignChannel(final int slot)
    {
        if (0 == channels[slot])
        {
            if (nextChannel > TurnChannelData.MAX_CHANNEL)
            {
                return TurnResult.NO_CHANNEL;
            }
            channels[slot] = (char) nextChannel++;
        }
        return TurnResult.OK;
    }

    void permissionInstalled(final int slot, final long nowMs)
    {
        permissionState[slot] = INSTALLED;
        permissionRefreshAtMs[slot] = nowMs + TurnClient.PERMISSION_LIFETIME_MS - TurnClient.REFRESH_MARGIN_MS;
    }

    /** §11: a channel binding installs or refreshes a permission too. @return whether the channel is new. */
    boolean channelInstalled(final int slot, final long nowMs)
    {
        final boolean first = INSTALLED != channelState[slot];
        channelState[slot] = INSTALLED;
        channelRefreshAtMs[slot] = nowMs + TurnClient.CHANNEL_LIFETIME_MS - TurnClient.REFRESH_MARGIN_MS;
        permissionInstalled(slot, nowMs);
        return first;
    }

    /** The allocation is gone: nothing is installed any more. */
    void clear()
    {
        for (int slot = 0; slot < peers.length; slot++)
        {
            permissionState[slot] = NONE;
            channelState[slot] = NONE;
        }
    }

    /** @return the earlier of {@code next} and the next channel or permission refresh. */
    long nextDeadlineMs(final long next)
    {
        long earliest = next;
        for (int slot = 0; slot < peers.length; slot++)
        {
            if (INSTALLED == channelState[slot])
            {
                earliest = Math.min(earliest, channelRefreshAtMs[slot]);
            }
            else if (INSTALLED == permissionState[slot])
            {
                earliest = Math.min(earliest, permissionRefreshAtMs[slot]);
            }
        }
        return earliest;
    }
}
