package io.sipline.media.ice;

import io.sipline.media.stun.StunAttributeType;
import io.sipline.media.stun.StunMessageFlyweight;
import io.sipline.media.stun.StunMessageType;
import io.sipline.media.stun.StunMessageWriter;
import io.sipline.media.stun.StunResult;

import java.net.InetSocketAddress;

import static io.sipline.media.ice.IceAgent.FLAG_NOMINATE_ON_SUCCESS;
import static io.sipline.media.ice.IceAgent.FLAG_VALID;

/**
 * The peer's checks arriving at one {@link IceAgent} (RFC 8445 §7.3): FINGERPRINT, USERNAME and MESSAGE-INTEGRITY
 * with our password (RFC 8489 §9.1.3: 401 otherwise, 420 for an unknown comprehension-required attribute), role
 * conflicts by {@link IceRoleConflict} (§7.3.1.1: 487 or switch), then a success response with XOR-MAPPED-ADDRESS,
 * a peer-reflexive remote candidate learnt from the source (§7.3.1.3), a triggered check (§7.3.1.4) and, when the
 * peer nominates, the nomination of the pair (§7.3.1.5). A lite agent, which sends no checks, makes the pair a
 * check arrives on valid, and selects it when nominated. Once unused candidates are freed (§8.3.1) only the selected
 * pairs are answered.
 *
 * <p>Stateless: static methods on the agent. Called on the agent's media thread only. Reads the request in the
 * context's message flyweight and writes the response into the context's scratch buffer; allocates nothing unless a
 * candidate is learnt.
 */
final class IceIncomingChecks
{
    private IceIncomingChecks()
    {
    }

    /**
     * A Binding request in the context's message arrived on local candidate {@code local} from {@code from}.
     *
     * @param turnSlot the TURN peer slot it came through, or -1.
     * @param wrap     what wrapping the message returned.
     */
    static void onRequest(final IceAgent agent, final int local, final InetSocketAddress from, final int turnSlot,
        final int wrap)
    {
        final StunMessageFlyweight request = agent.context.message;
        if (StunResult.VERIFIED != request.verifyFingerprint(agent.context.integrity))
        {
            return; // §7.3: ICE requests carry FINGERPRINT; anything else is not for us
        }
        if (agent.selection.freed && !agent.selection.isSelectedPair(local, from))
        {
            return; // §8.3.1: "cease responding to checks ... on that candidate" once freed
        }
        if (!authenticated(agent, local, from, turnSlot, wrap) || !roleResolved(agent, local, from, turnSlot))
        {
            return;
        }
        final long priority = request.priority();
        final boolean useCandidate = request.useCandidate();
        respondSuccess(agent, local, from, turnSlot);
        agent.checksAnswered++;
        if (agent.selection.freed)
        {
            return; // §8.3.1: a check on a selected pair (the peer's consent) is answered; nothing is triggered
        }
        if (null == agent.credentials.remoteKey && !agent.lite())
        {
            return; // no remote credentials yet: the pair is learnt when the description arrives (§7.3.1.4 note)
        }
        final int remote = remoteOf(agent, local, from, priority);
        final int pair = -1 == remote ? -1 : pairOf(agent, local, remote);
        if (-1 == pair)
        {
            return;
        }
        if (agent.lite())
        {
            onLiteCheck(agent, pair, local, remote, useCandidate);
            return;
        }
        final boolean nomination = useCandidate && !agent.controlling();
        IceCheckScheduler.triggered(agent, pair, nomination);
        if (nomination)
        {
            // §7.3.1.5: if the pair succeeded, the valid pair it generated is nominated now; else the valid pair its
            // triggered check generates is, when it succeeds.
            final int entry = agent.valid.findGenerated(local, remote);
            if (-1 != entry)
            {
                agent.selection.nominated(pair, entry);
            }
            else
            {
                agent.list.flags(pair, (byte) (agent.list.flags(pair) | FLAG_NOMINATE_ON_SUCCESS));
            }
        }
    }

    /** RFC 8489 §9.1.3: USERNAME starts with our ufrag and MESSAGE-INTEGRITY verifies; else an error is sent. */
    private static boolean authenticated(final IceAgent agent, final int local, final InetSocketAddress from,
        final int turnSlot, final int wrap)
    {
        final StunMessageFlyweight request = agent.context.message;
        final int username = request.findAttribute(StunAttributeType.USERNAME);
        if (StunResult.UNKNOWN_COMPREHENSION_REQUIRED == wrap)
        {
            respondError(agent, local, from, turnSlot, 420, false);
            return false;
        }
        final IceCredentials credentials = agent.credentials;
        if (-1 == username || !request.valueStartsWith(username, credentials.localUsernamePrefix)
            || StunResult.VERIFIED != request.verifyMessageIntegrity(agent.context.integrity, credentials.localKey))
        {
            respondError(agent, local, from, turnSlot, 401, false);
            return false;
        }
        return true;
    }

    /** §7.3.1.1: a role conflict is answered with 487 (false) or resolved by switching role. */
    private static boolean roleResolved(final IceAgent agent, final int local, final InetSocketAddress from,
        final int turnSlot)
    {
        final StunMessageFlyweight request = agent.context.message;
        final int controllingIndex = request.findAttribute(StunAttributeType.ICE_CONTROLLING);
        final int controlledIndex = request.findAttribute(StunAttributeType.ICE_CONTROLLED);
        if (-1 == controllingIndex && -1 == controlledIndex)
        {
            return true;
        }
        final boolean theyControl = -1 != controllingIndex;
        final long theirTieBreaker = request.u64Value(theyControl ? controllingIndex : controlledIndex);
        final int decision = IceRoleConflict.resolve(agent.controlling(), agent.tieBreaker(), theyControl,
            theirTieBreaker);
        if (IceRoleConflict.REPLY_487 == decision)
        {
            respondError(agent, local, from, turnSlot, 487, true);
            return false;
        }
        if (IceRoleConflict.SWITCH_ROLE == decision)
        {
            agent.setRole(!agent.controlling());
        }
        return true;
    }

    /** @return the remote candidate at {@code from}, learnt as peer-reflexive when new (§7.3.1.3), or -1. */
    private static int remoteOf(final IceAgent agent, final int local, final InetSocketAddress from,
        final long priority)
    {
        final int remote = agent.candidates.remoteIndexOf(from);
        return -1 != remote ? remote : agent.candidates.learnPeerReflexive(local, from, priority);
    }

    /** @return the check-list pair of {@code local} and {@code remote}, added Waiting when new (§7.3.1.4), or -1. */
    private static int pairOf(final IceAgent agent, final int local, final int remote)
    {
        final IceCheckList list = agent.list;
        final int pair = list.find(local, remote);
        if (-1 != pair)
        {
            return pair;
        }
        final IceCandidates candidates = agent.candidates;
        list.addPairs(agent.controlling(), local, remote, candidates.localCount, candidates.remoteCount,
            IcePairState.WAITING);
        return list.find(local, remote);
    }

    /**
     * A lite agent does no checks (§2.5: host candidates only): a check that arrives makes its pair valid, as its own
     * valid pair; USE-CANDIDATE selects it.
     */
    private static void onLiteCheck(final IceAgent agent, final int pair, final int local, final int remote,
        final boolean useCandidate)
    {
        final IceCheckList list = agent.list;
        list.state(pair, IcePairState.SUCCEEDED);
        list.flags(pair, (byte) (list.flags(pair) | FLAG_VALID));
        final int entry = agent.valid.add(local, remote, local);
        if (useCandidate && -1 != entry)
        {
            agent.selection.nominated(pair, entry);
        }
    }

    private static void respondSuccess(final IceAgent agent, final int local, final InetSocketAddress from,
        final int turnSlot)
    {
        final IceContext context = agent.context;
        final StunMessageFlyweight request = context.message;
        context.address.set(from);
        final int length = context.writer.wrap(context.scratch, 0, context.scratch.length)
            .header(StunMessageType.BINDING_SUCCESS_RESPONSE, request)
            .addAddress(StunAttributeType.XOR_MAPPED_ADDRESS, context.address)
            .addMessageIntegrity(context.integrity, agent.credentials.localKey)
            .addFingerprint(context.integrity)
            .length();
        if (length > 0)
        {
            agent.sendFrom(local, from, turnSlot, context.scratch, 0, length);
        }
    }

    private static void respondError(final IceAgent agent, final int local, final InetSocketAddress from,
        final int turnSlot, final int code, final boolean withIntegrity)
    {
        final IceContext context = agent.context;
        final StunMessageWriter writer = context.writer.wrap(context.scratch, 0, context.scratch.length)
            .header(StunMessageType.BINDING_ERROR_RESPONSE, context.message)
            .addErrorCode(code, 487 == code ? "Role Conflict" : 401 == code ? "Unauthenticated" : "Unknown Attribute");
        if (420 == code)
        {
            writer.addUnknownAttributes(context.message);
        }
        if (withIntegrity)
        {
            writer.addMessageIntegrity(context.integrity, agent.credentials.localKey);
        }
        final int length = writer.addFingerprint(context.integrity).length();
        if (length > 0)
        {
            agent.sendFrom(local, from, turnSlot, context.scratch, 0, length);
        }
    }
}
