package io.sipline.media.ice;

import io.sipline.media.stun.StunAddress;
import io.sipline.media.stun.StunAttributeType;
import io.sipline.media.stun.StunMessageFlyweight;
import io.sipline.media.stun.StunMessageType;
import io.sipline.media.stun.StunResult;
import io.sipline.media.turn.TurnClient;
import io.sipline.media.turn.TurnResult;

import java.net.InetSocketAddress;

/**
 * Candidate gathering of one {@link IceAgent} (RFC 8445 §5.1.1) and its TURN relays: a STUN Binding to a server
 * per host candidate for server-reflexive candidates, one {@link TurnClient} per component (RFC 8656) over the
 * component's first host socket for relayed ones. Gathering transactions are paced with the checks (§14.1, §14.2);
 * every candidate is reported when found (trickle, RFC 8838) and the end of gathering once nothing is pending.
 * The relays then carry the checks and data of relayed pairs until the agent closes or frees them (§8.3.1).
 *
 * <p>Stateless: static methods on the agent's fields (gathering cursor, TURN clients), so a session holds no object
 * of this class. Called on the agent's media thread only. Allocates its TURN clients when gathering starts and one
 * JDK address per relayed peer slot; nothing per packet.
 */
final class IceGatherer
{
    /** Peer slots per TURN client: the remote candidates a relayed candidate can reach at once. */
    static final int TURN_PEERS = 4;


    private IceGatherer()
    {
    }

    /** See {@link IceAgent#gather}. */
    static void gather(final IceAgent agent, final InetSocketAddress stun, final InetSocketAddress turnServer,
        final String turnUser, final String turnPassword)
    {
        final IceCandidates candidates = agent.candidates;
        agent.gatheringStarted = true;
        agent.gatherHosts = 0;
        agent.gatherCursor = 0;
        if (!agent.lite() && null != stun)
        {
            agent.stunServer = stun;
            agent.gatherHosts = candidates.localCount;
            for (int l = 0; l < candidates.localCount; l++)
            {
                if (IceCandidateType.HOST == candidates.locals[l].type())
                {
                    agent.pendingGathers++; // started by startDue, one per pacing turn
                }
            }
        }
        if (!agent.lite() && null != turnServer)
        {
            final int components = agent.components();
            agent.turn = new TurnClient[components + 1];
            agent.turnPeers = new InetSocketAddress[(components + 1) * TURN_PEERS];
            for (int c = 1; c <= components; c++)
            {
                final int host = candidates.firstHost(c);
                if (-1 == host)
                {
                    continue;
                }
                final int socket = candidates.localSocket[host];
                final IceAgent.Transport transport = agent.transport;
                agent.turn[c] = new TurnClient((buf, off, len, dst) -> transport.send(socket, buf, off, len, dst),
                    turnServer, turnUser, turnPassword, new Relay(agent, c), agent.context.turn, TURN_PEERS)
                    .pacer(agent.context);
                agent.pendingGathers++; // allocated by startDue
            }
        }
        startDue(agent);
        maybeComplete(agent);
    }

    /**
     * Starts the gathering transactions that are due, one per pacing turn of the thread (RFC 8445 §14.1: "During the
     * ICE gathering phase ... these transactions are paced at a rate indicated by Ta"; §14.2: all transactions of
     * all agents "MUST NOT be sent more often than once every 5 ms"): a STUN Binding per host candidate, then a TURN
     * Allocate per component. With pacing off ({@link IceContext#pacingMs(long)} 0) they all leave at once.
     */
    static void startDue(final IceAgent agent)
    {
        final int items = items(agent);
        while (agent.gatherCursor < items)
        {
            final int item = agent.gatherCursor;
            final boolean srflx = item < agent.gatherHosts;
            if (srflx ? IceCandidateType.HOST != agent.candidates.locals[item].type()
                : null == agent.turn[item - agent.gatherHosts + 1])
            {
                agent.gatherCursor++;
                continue;
            }
            if (!agent.pacingTurnFree())
            {
                return;
            }
            agent.gatherCursor++;
            if (srflx)
            {
                agent.takePacingTurn();
            }
            // the TURN client takes the (free) turn for its Allocate itself: it paces all its transactions
            final boolean sent = srflx ? IceRequests.start(agent, IceRequests.KIND_SRFLX, item, 0, false) >= 0
                : TurnResult.OK == agent.turn[item - agent.gatherHosts + 1].allocate(0, agent.now);
            if (!sent)
            {
                agent.pendingGathers--;
                maybeComplete(agent);
            }
        }
    }

    private static int items(final IceAgent agent)
    {
        return agent.gatherHosts + (null == agent.turn ? 0 : agent.components());
    }

    /** @return whether gathering transactions are still to start. */
    static boolean hasDue(final IceAgent agent)
    {
        return agent.gatherCursor < items(agent);
    }

    /** The answer to the STUN Binding from host {@code host} is in the context's message. */
    static void onServerReflexive(final IceAgent agent, final int host)
    {
        agent.pendingGathers--;
        final IceContext context = agent.context;
        final StunMessageFlyweight response = context.message;
        final int index = response.findAttribute(StunAttributeType.XOR_MAPPED_ADDRESS);
        if (StunMessageType.CLASS_SUCCESS_RESPONSE == response.messageClass() && -1 != index
            && StunResult.OK == response.readAddress(index, context.address))
        {
            agent.candidates.addReflexive(host, context.address, agent.stunServer);
        }
        maybeComplete(agent);
    }

    /** A STUN Binding to the server went unanswered. */
    static void onServerReflexiveTimeout(final IceAgent agent)
    {
        agent.pendingGathers--;
        maybeComplete(agent);
    }

    private static void maybeComplete(final IceAgent agent)
    {
        if (agent.gatheringStarted && 0 == agent.pendingGathers && !agent.gatheringComplete)
        {
            agent.gatheringComplete = true;
            agent.listener.onGatheringComplete(agent);
        }
    }

    /** @return whether a datagram from {@code from} on {@code component}'s host socket was TURN traffic, consumed. */
    static boolean onServerDatagram(final IceAgent agent, final int component, final InetSocketAddress from,
        final byte[] buf, final int offset, final int length)
    {
        // Anything else from the server (a Binding response to our STUN gathering) goes on to the agent.
        return null != agent.turn && null != agent.turn[component] && from.equals(agent.turn[component].server())
            && agent.turn[component].onDatagram(buf, offset, length, agent.now);
    }

    /** Refreshes and retransmissions of the TURN clients. */
    static void poll(final IceAgent agent)
    {
        if (null != agent.turn)
        {
            for (int c = 1; c <= agent.components(); c++)
            {
                if (null != agent.turn[c])
                {
                    agent.turn[c].poll(agent.now);
                }
            }
        }
    }

    /** @return the earlier of {@code next} and the TURN clients' next deadline. */
    static long nextDeadlineMs(final IceAgent agent, final long next)
    {
        long earliest = next;
        if (null != agent.turn)
        {
            for (int c = 1; c <= agent.components(); c++)
            {
                if (null != agent.turn[c])
                {
                    earliest = Math.min(earliest, agent.turn[c].nextDeadlineMs());
                }
            }
        }
        return earliest;
    }

    /** Deletes every allocation (RFC 8656 §7: a Refresh with a zero lifetime). */
    static void close(final IceAgent agent)
    {
        if (null != agent.turn)
        {
            for (int c = 1; c <= agent.components(); c++)
            {
                if (null != agent.turn[c] && TurnClient.STATE_ALLOCATED == agent.turn[c].state())
                {
                    agent.turn[c].deallocate(agent.now);
                }
            }
        }
    }

    /** @return the TURN client of a component, or null. */
    static TurnClient client(final IceAgent agent, final int component)
    {
        return null == agent.turn ? null : agent.turn[component];
    }

    /**
     * The TURN peer slot to reach {@code to} from relayed candidate {@code local}, binding a channel first when
     * there is none (RFC 8656 §11: checks from a relayed candidate need a permission); -1 while that is under way.
     */
    static int turnSlotFor(final IceAgent agent, final int local, final InetSocketAddress to)
    {
        final IceContext context = agent.context;
        final TurnClient client = agent.turn[agent.candidates.locals[local].componentId()];
        context.address.set(to);
        final int slot = client.peerSlot(context.address);
        if (slot >= 0 && client.hasPermission(slot))
        {
            return slot;
        }
        client.bindChannel(context.address, agent.now);
        return -1;
    }

    /** @return the peer slot of {@code to} on a component's relay, or -1. */
    static int peerSlot(final IceAgent agent, final int component, final InetSocketAddress to)
    {
        agent.context.address.set(to);
        return agent.turn[component].peerSlot(agent.context.address);
    }

    /**
     * §8.3.1: follows the renumbering of freed candidates, and deletes the allocations of components whose selected
     * pair is not relayed: "Freeing of server-reflexive candidates is never explicit; it happens by lack of a
     * keepalive", while a relayed candidate is freed by a Refresh with LIFETIME 0 (RFC 8656 §7, §8).
     */
    static void free(final IceAgent agent, final int[] localMap)
    {
        if (null != agent.turn)
        {
            for (int c = 1; c <= agent.components(); c++)
            {
                if (null == agent.turn[c])
                {
                    continue;
                }
                final Relay relay = (Relay) agent.turn[c].listener();
                relay.relayedLocal = -1 == relay.relayedLocal ? -1 : localMap[relay.relayedLocal];
                if (-1 == relay.relayedLocal && TurnClient.STATE_ALLOCATED == agent.turn[c].state())
                {
                    agent.turn[c].deallocate(agent.now); // RFC 8656 §7: "a Refresh transaction with a zero lifetime"
                }
            }
        }
        dropClosedRelays(agent);
    }

    /** Forgets the TURN clients that are closed and serve no selected pair (their allocation is deleted). */
    static void dropClosedRelays(final IceAgent agent)
    {
        if (null == agent.turn)
        {
            return;
        }
        boolean any = false;
        for (int c = 1; c <= agent.components(); c++)
        {
            if (null != agent.turn[c] && TurnClient.STATE_CLOSED == agent.turn[c].state()
                && -1 == ((Relay) agent.turn[c].listener()).relayedLocal)
            {
                agent.turn[c] = null;
            }
            any |= null != agent.turn[c];
        }
        if (!any)
        {
            agent.turn = null;
            agent.turnPeers = null;
        }
    }

    /** Receives what one component's TURN client reports. */
    private static final class Relay implements TurnClient.Listener
    {
        private final IceAgent agent;
        private final int component;
        private int relayedLocal = -1;

        Relay(final IceAgent agent, final int component)
        {
            this.agent = agent;
            this.component = component;
        }

        @Override
        public void onAllocated(final TurnClient client, final StunAddress relayed, final StunAddress mapped,
            final int lifetimeSeconds)
        {
            agent.pendingGathers--;
            final IceCandidates candidates = agent.candidates;
            final int host = candidates.firstHost(component);
            if (0 != mapped.family())
            {
                candidates.addReflexive(host, mapped, client.server());
            }
            final int added = candidates.addRelayed(component, host, relayed, mapped, client.server());
            if (-1 != added)
            {
                relayedLocal = added;
            }
            maybeComplete(agent);
        }

        @Override
        public void onFailure(final TurnClient client, final int request, final int peerSlot, final int result)
        {
            if (TurnClient.REQUEST_ALLOCATE == request)
            {
                agent.pendingGathers--;
                maybeComplete(agent);
            }
        }

        @Override
        public void onChannelBound(final TurnClient client, final int peerSlot, final int channel)
        {
            IceCheckScheduler.checkNow(agent); // a relayed check was waiting for this channel
        }

        @Override
        public void onData(final TurnClient client, final int peerSlot, final StunAddress peer, final byte[] buf,
            final int offset, final int length)
        {
            if (-1 == relayedLocal || peerSlot < 0 || peerSlot >= TURN_PEERS)
            {
                return;
            }
            // A TURN client never reuses a peer slot for another address: one JDK address per slot, made once.
            final int key = component * TURN_PEERS + peerSlot;
            if (null == agent.turnPeers[key])
            {
                agent.turnPeers[key] = peer.toInetSocketAddress();
            }
            agent.onPeerDatagram(relayedLocal, agent.turnPeers[key], peerSlot, buf, offset, length);
        }
    }
}
