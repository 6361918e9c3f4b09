package io.sipline.media.ice;

import io.sipline.media.stun.StunAttributeType;
import io.sipline.media.stun.StunClientTransactions;
import io.sipline.media.stun.StunMessageType;
import io.sipline.media.stun.StunMessageWriter;
import io.sipline.media.stun.StunRequestSlots;

import java.net.InetSocketAddress;

/**
 * The STUN client transactions of one {@link IceAgent}: connectivity checks (RFC 8445 §7.2.2), consent checks
 * (RFC 7675) and server-reflexive gathering requests (§5.1.1.2). A request is not copied for retransmission: its
 * slot keeps the transaction id, the schedule (RFC 8489 §6.2.1: Rc 7, Rm 16) and a token that says what it is, and
 * the message is written again into the context's scratch buffer for each transmission.
 *
 * <pre>
 *   token (a long)
 *    63          26  25   24   23        16 15         8 7          0
 *   +--------------+----+----+------------+------------+------------+
 *   |      0       | CT | UC |   remote   |   local    |    kind    |
 *   +--------------+----+----+------------+------------+------------+
 *   CT: the request said ICE-CONTROLLING; UC: it carried USE-CANDIDATE
 * </pre>
 *
 * <p>Stateless: static methods on the agent's fields (its request slots), so a session holds no object of this class.
 * Called on the agent's media thread only. Nothing is allocated per transmission.
 */
final class IceRequests
{
    static final byte KIND_CHECK = 1;
    static final byte KIND_CONSENT = 2;
    static final byte KIND_SRFLX = 3;

    private static final int RC = 7;
    private static final int RM = 16;


    private IceRequests()
    {
    }

    /** Sets the initial RTO; transactions in flight are forgotten (call it before the agent runs). */
    static void rto(final IceAgent agent, final long value)
    {
        agent.rtoMs = Math.max(1, value);
        agent.requestSlots = newSlots(agent);
    }

    static StunRequestSlots newSlots(final IceAgent agent)
    {
        // In flight at once: up to 8 checks (one leaves per Ta; most are answered within a few Ta), one consent
        // check and one server-reflexive request per component.
        return new StunRequestSlots(Math.min(agent.limits.maxPairs(), 8) + 2 * agent.components(), agent.rtoMs, RC, RM);
    }

    static long token(final byte kind, final int local, final int remote, final boolean useCandidate,
        final boolean asControlling)
    {
        return kind | (local & 0xFF) << 8 | (remote & 0xFF) << 16 | (useCandidate ? 1 << 24 : 0)
            | (asControlling ? 1 << 25 : 0);
    }

    /**
     * @return whether the request of this transaction carries ICE-CONTROLLING (else ICE-CONTROLLED): the role when it
     *         started, kept for its retransmissions (RFC 8489 §6.2.1 retransmits the same request), so that a 487 to it
     *         is read against what it said (RFC 8445 §7.2.5.1).
     */
    static boolean asControllingOf(final long token)
    {
        return 0 != (token & 1 << 25);
    }

    static byte kindOf(final long token)
    {
        return (byte) token;
    }

    static int localOf(final long token)
    {
        return (int) (token >>> 8) & 0xFF;
    }

    static int remoteOf(final long token)
    {
        return (int) (token >>> 16) & 0xFF;
    }

    static boolean useCandidateOf(final long token)
    {
        return 0 != (token & 1 << 24);
    }

    /**
     * Starts a transaction and sends its first request.
     *
     * @return its slot, or -1 when no slot is free or it cannot leave now (a relayed pair waiting for its channel).
     */
    static int start(final IceAgent agent, final byte kind, final int local, final int remote,
        final boolean useCandidate)
    {
        final StunRequestSlots slots = agent.requestSlots;
        final int slot = slots.start(token(kind, local, remote, useCandidate, agent.controlling()));
        if (-1 == slot)
        {
            return -1;
        }
        if (!transmit(agent, slot))
        {
            slots.free(slot);
            return -1;
        }
        if (KIND_SRFLX != kind)
        {
            agent.checksSent++;
        }
        return slot;
    }

    /** Writes the request of a slot again (same transaction id) and sends it; schedules the next event. */
    private static boolean transmit(final IceAgent agent, final int slot)
    {
        final StunRequestSlots slots = agent.requestSlots;
        final IceContext context = agent.context;
        final long token = slots.token(slot);
        final int local = localOf(token);
        final int remote = remoteOf(token);
        final StunMessageWriter writer = context.writer.wrap(context.scratch, 0, context.scratch.length)
            .header(StunMessageType.BINDING_REQUEST, slots.tidHigh(slot), slots.tidLow(slot));
        final InetSocketAddress to;
        int turnSlot = -1;
        if (KIND_SRFLX == kindOf(token))
        {
            to = agent.stunServer;
        }
        else
        {
            to = agent.candidates.remoteAddress[remote];
            if (null == to || null == agent.credentials.remoteKey)
            {
                return false;
            }
            if (IceCandidateType.RELAYED == agent.candidates.locals[local].type())
            {
                turnSlot = IceGatherer.turnSlotFor(agent, local, to);
                if (turnSlot < 0)
                {
                    return false;
                }
            }
            writeCheck(agent, writer, local, token);
        }
        final int length = writer.addFingerprint(context.integrity).length();
        if (length < 0)
        {
            return false;
        }
        slots.sent(slot, agent.now);
        return agent.sendFrom(local, to, turnSlot, context.scratch, 0, length);
    }

    /** §7.2.2: the attributes of a check, signed with the peer's password (§7.2.3). */
    private static void writeCheck(final IceAgent agent, final StunMessageWriter writer, final int local,
        final long token)
    {
        final IceCredentials credentials = agent.credentials;
        final IceCandidate candidate = agent.candidates.locals[local];
        // §7.2.2: PRIORITY is what a peer-reflexive candidate from this base would get (§5.1.2.1).
        final int localPreference = (candidate.priority() >>> 8) & 0xFFFF;
        writer.addBytes(StunAttributeType.USERNAME, credentials.checkUsername, 0, credentials.checkUsername.length)
            .addU32(StunAttributeType.PRIORITY, IcePriority.candidate(IceCandidateType.PEER_REFLEXIVE,
                localPreference, candidate.componentId()))
            .addU64(asControllingOf(token) ? StunAttributeType.ICE_CONTROLLING : StunAttributeType.ICE_CONTROLLED,
                agent.tieBreaker());
        if (useCandidateOf(token))
        {
            writer.addEmpty(StunAttributeType.USE_CANDIDATE);
        }
        writer.addMessageIntegrity(agent.context.integrity, credentials.remoteKey);
    }

    /** Retransmits what is due; a transaction out of retransmissions times out (§7.2.5.2.3 for a check). */
    static void poll(final IceAgent agent)
    {
        final StunRequestSlots slots = agent.requestSlots;
        final long now = agent.now;
        for (int slot = slots.due(0, now); slot >= 0; slot = slots.due(slot + 1, now))
        {
            if (slots.shouldRetransmit(slot))
            {
                transmit(agent, slot);
                continue;
            }
            final long token = slots.token(slot);
            final boolean cancelled = slots.cancelled(slot);
            slots.free(slot);
            if (KIND_CHECK == kindOf(token) && !cancelled)
            {
                final int pair = agent.list.find(localOf(token), remoteOf(token));
                if (pair >= 0)
                {
                    IceCheckResults.checkFailed(agent, pair, useCandidateOf(token), false);
                }
            }
            else if (KIND_SRFLX == kindOf(token))
            {
                IceGatherer.onServerReflexiveTimeout(agent);
            }
        }
    }

    /** §9: the checks of the forgotten generation end (their pairs are gone). */
    static void freeChecks(final IceAgent agent)
    {
        final StunRequestSlots slots = agent.requestSlots;
        for (int slot = 0; slot < slots.capacity(); slot++)
        {
            if (slots.busy(slot) && KIND_CHECK == kindOf(slots.token(slot)))
            {
                slots.free(slot);
            }
        }
    }

    /**
     * §8.1.2: "If the state of a pair is In-Progress, the agent cancels the In-Progress transaction" — no more
     * retransmissions, no failure when it times out, a late answer still counts.
     */
    static void cancelChecks(final IceAgent agent, final int component)
    {
        final StunRequestSlots slots = agent.requestSlots;
        final IceCandidate[] locals = agent.candidates.locals;
        for (int slot = 0; slot < slots.capacity(); slot++)
        {
            final long token = slots.token(slot);
            if (slots.busy(slot) && KIND_CHECK == kindOf(token)
                && locals[localOf(token)].componentId() == component && !slots.cancelled(slot))
            {
                slots.cancel(slot, agent.now);
            }
        }
    }

    /** §7.3.1.4: the In-Progress check of a pair is cancelled — no more retransmissions; a late answer counts. */
    static void cancelPairChecks(final IceAgent agent, final int local, final int remote)
    {
        final StunRequestSlots slots = agent.requestSlots;
        for (int slot = 0; slot < slots.capacity(); slot++)
        {
            final long token = slots.token(slot);
            if (slots.busy(slot) && KIND_CHECK == kindOf(token) && localOf(token) == local
                && remoteOf(token) == remote)
            {
                slots.cancel(slot, agent.now);
            }
        }
    }

    /**
     * §8.3.1: follows the renumbering of freed candidates; checks end (cancelled at nomination, §8.1.2), as does
     * any transaction whose candidate was freed.
     */
    static void renumber(final IceAgent agent, final int[] localMap, final int[] remoteMap)
    {
        final StunRequestSlots slots = agent.requestSlots;
        for (int slot = 0; slot < slots.capacity(); slot++)
        {
            if (!slots.busy(slot))
            {
                continue;
            }
            final long token = slots.token(slot);
            final int local = localMap[localOf(token)];
            final int remote = KIND_SRFLX == kindOf(token) ? 0 : remoteMap[remoteOf(token)];
            if (KIND_CHECK == kindOf(token) || -1 == local || -1 == remote)
            {
                slots.free(slot);
                continue;
            }
            slots.retoken(slot, token & ~0xFF_FF00L | (local & 0xFF) << 8 | (remote & 0xFF) << 16);
        }
    }
}
