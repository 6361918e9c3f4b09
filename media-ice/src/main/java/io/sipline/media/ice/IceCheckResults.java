package io.sipline.media.ice;

import io.sipline.media.stun.StunAttributeType;
import io.sipline.media.stun.StunMessageFlyweight;
import io.sipline.media.stun.StunMessageType;
import io.sipline.media.stun.StunRequestSlots;
import io.sipline.media.stun.StunResult;

import java.net.InetSocketAddress;

import static io.sipline.media.ice.IceAgent.FLAG_NOMINATE_ON_SUCCESS;
import static io.sipline.media.ice.IceAgent.FLAG_TRIGGERED;
import static io.sipline.media.ice.IceAgent.FLAG_USE_CANDIDATE;
import static io.sipline.media.ice.IceAgent.FLAG_VALID;

/**
 * The outcome of one {@link IceAgent}'s own requests (RFC 8445 §7.2.5): Binding responses (to checks, consent checks
 * and gathering requests), check timeouts, and the check-list state that follows. A success answered symmetrically
 * (§7.2.5.2.1) adds a valid pair (§7.2.5.3.2; its local candidate the one equal to XOR-MAPPED-ADDRESS, learnt as
 * peer-reflexive when new, §7.2.5.3.1), unfreezes the pairs of its foundation (§7.2.5.3.3) and nominates when the
 * check did (§7.2.5.3.4, §7.3.1.5); a 487 switches role and retries (§7.2.5.1); a failure fails its pair, and a
 * failed nomination the check list (§7.2.5.3.4). Once every pair is done and a component has no valid pair, the check
 * list fails (§7.2.5.4).
 *
 * <p>Stateless: static methods on the agent. Called on the agent's media thread only. Reads the response in the
 * context's message flyweight (borrowed for the call); allocates nothing unless a peer-reflexive candidate is learnt.
 */
final class IceCheckResults
{
    private IceCheckResults()
    {
    }

    /**
     * A Binding response in the context's message arrived on local candidate {@code local} from {@code from}.
     */
    static void onResponse(final IceAgent agent, final int local, final InetSocketAddress from)
    {
        final IceContext context = agent.context;
        final StunMessageFlyweight response = context.message;
        final StunRequestSlots slots = agent.requestSlots;
        final int slot = slots.find(response);
        if (-1 == slot)
        {
            return;
        }
        final long token = slots.token(slot);
        final byte kind = IceRequests.kindOf(token);
        final int requestLocal = IceRequests.localOf(token);
        final int remote = IceRequests.remoteOf(token);
        if (IceRequests.KIND_SRFLX == kind)
        {
            slots.free(slot);
            IceGatherer.onServerReflexive(agent, requestLocal);
            return;
        }
        if (null == agent.credentials.remoteKey
            || StunResult.VERIFIED != response.verifyMessageIntegrity(context.integrity, agent.credentials.remoteKey))
        {
            return; // RFC 8489 §9.1.4: ignore; the transaction goes on
        }
        slots.free(slot);
        if (IceRequests.KIND_CONSENT == kind)
        {
            if (StunMessageType.CLASS_SUCCESS_RESPONSE == response.messageClass())
            {
                agent.selection.onConsent(agent.candidates.locals[requestLocal].componentId());
            }
            return;
        }
        final int pair = agent.list.find(requestLocal, remote);
        if (-1 == pair)
        {
            return;
        }
        final boolean useCandidate = IceRequests.useCandidateOf(token);
        if (StunMessageType.CLASS_ERROR_RESPONSE == response.messageClass())
        {
            onErrorResponse(agent, pair, token);
            return;
        }
        // §7.2.5.2.1: the response must come from where the request went, to the base it left from.
        if (requestLocal != local || !from.equals(agent.candidates.remoteAddress[remote]))
        {
            checkFailed(agent, pair, useCandidate, true);
            return;
        }
        onCheckSucceeded(agent, pair, agent.valid.add(validLocal(agent, requestLocal), remote, requestLocal),
            useCandidate);
    }

    private static void onErrorResponse(final IceAgent agent, final int pair, final long token)
    {
        final StunMessageFlyweight response = agent.context.message;
        final int errorIndex = response.findAttribute(StunAttributeType.ERROR_CODE);
        if (-1 != errorIndex && 487 == response.errorCode(errorIndex))
        {
            // §7.2.5.1: "If the agent included an ICE-CONTROLLING attribute in the request, the agent MUST switch
            // to the controlled role" (and the reverse) — not a toggle: a request of ours may have switched us
            // already while this answer was on its way. Then the pair is checked again, and "The agent MUST
            // change the tiebreaker value."
            agent.setRole(!IceRequests.asControllingOf(token));
            agent.newTieBreaker();
            final IceCheckList list = agent.list;
            final int again = list.find(IceRequests.localOf(token), IceRequests.remoteOf(token));
            list.state(again, IcePairState.WAITING);
            list.flags(again, (byte) (list.flags(again) | FLAG_TRIGGERED));
            return;
        }
        // §7.2.5.2.4: an unrecoverable error response (e.g. 400)
        checkFailed(agent, pair, IceRequests.useCandidateOf(token), true);
    }

    /**
     * §7.2.5.3.2: the local candidate of the valid pair a successful check from {@code base} produces (see
     * {@link IceCandidates#validLocal}); the base itself when the response has no mapped address.
     */
    private static int validLocal(final IceAgent agent, final int base)
    {
        final IceContext context = agent.context;
        final StunMessageFlyweight response = context.message;
        final int index = response.findAttribute(StunAttributeType.XOR_MAPPED_ADDRESS);
        if (-1 == index || StunResult.OK != response.readAddress(index, context.address))
        {
            return base;
        }
        return agent.candidates.validLocal(base, context.address);
    }

    /**
     * The check of {@code pair} succeeded and produced valid pair {@code entry} (-1 if the valid list is full).
     */
    private static void onCheckSucceeded(final IceAgent agent, final int pair, final int entry,
        final boolean useCandidate)
    {
        final IceCheckList list = agent.list;
        list.state(pair, IcePairState.SUCCEEDED);
        final byte flags = list.flags(pair);
        list.flags(pair, (byte) (flags | FLAG_VALID)); // it generated a valid pair
        // §7.2.5.3.3: unfreeze the pairs of the same foundation.
        for (int p = 0; p < list.size(); p++)
        {
            if (IcePairState.FROZEN == list.state(p) && list.sameFoundation(p, pair))
            {
                list.state(p, IcePairState.WAITING);
            }
        }
        // §7.2.5.3.4 (our USE-CANDIDATE check succeeded), §7.3.1.5 (the peer nominated this pair while it was
        // being checked).
        final boolean controlling = agent.controlling();
        if (-1 != entry
            && (controlling && useCandidate || !controlling && 0 != (flags & FLAG_NOMINATE_ON_SUCCESS)))
        {
            agent.selection.nominated(pair, entry);
        }
    }

    /**
     * §7.2.5.2: the check of {@code pair} failed — it timed out ({@code answered} false), got an unrecoverable error
     * response, or its response was not symmetric.
     *
     * <p>If that check was a nomination, §7.2.5.3.4 applies: "If the request fails (Section 7.2.5.2), the agent MUST
     * remove the candidate pair from the valid list, set the candidate pair state to Failed, and set the checklist
     * state to Failed", for the controlling agent's USE-CANDIDATE check and for the controlled agent's check
     * "triggered by a received Binding request with the USE-CANDIDATE attribute set". The controlling agent
     * nominates a component once (§8.1.1: another nomination "requires an ICE restart"), so the check list cannot
     * complete after that.
     *
     * <p>What counts as a nomination here: our controlling check that carried USE-CANDIDATE because the scheduler
     * picked the pair (regular nomination), and, when controlled, a check of a pair the peer nominated before it
     * succeeded ({@code FLAG_NOMINATE_ON_SUCCESS}, §7.3.1.5). Two cases keep the RFC 5245 behaviour, where a failed
     * check fails only its pair: aggressive nomination (RFC 5245 §8.1.1.2; every check carries USE-CANDIDATE, so one
     * unreachable pair would otherwise fail the whole list), and, when controlled, a nomination for a component whose
     * ICE processing already concluded (§7.2.5.3.4) — only a peer nominating several pairs (aggressive, RFC 5245)
     * sends one then. Either way the pair leaves the valid list and is Failed.
     *
     * @param pair         the check-list pair.
     * @param useCandidate whether the failed request carried USE-CANDIDATE.
     * @param answered     whether a response arrived (error or non-symmetric) rather than none.
     */
    static void checkFailed(final IceAgent agent, final int pair, final boolean useCandidate, final boolean answered)
    {
        final IceCheckList list = agent.list;
        final boolean controlling = agent.controlling();
        final byte flags = list.flags(pair);
        final boolean nomination = useCandidate && 0 != (flags & FLAG_USE_CANDIDATE)
            || !controlling && 0 != (flags & FLAG_NOMINATE_ON_SUCCESS);
        if (!nomination)
        {
            // A timeout fails only a pair still In-Progress (a Succeeded pair keeps what its first check showed);
            // an error or non-symmetric response fails the pair it answers.
            if (answered || IcePairState.IN_PROGRESS == list.state(pair))
            {
                list.state(pair, IcePairState.FAILED);
            }
            return;
        }
        final int component = list.local(pair).componentId();
        list.state(pair, IcePairState.FAILED);
        list.flags(pair, (byte) (flags & ~(FLAG_VALID | FLAG_USE_CANDIDATE | FLAG_NOMINATE_ON_SUCCESS
            | FLAG_TRIGGERED)));
        agent.valid.removePair(list.localIndex(pair), list.remoteIndex(pair));
        if (controlling || !agent.selection.concluded(component))
        {
            failCheckList(agent);
        }
    }

    /**
     * §7.2.5.4: "if all of the candidate pairs are in either Failed or Succeeded state, and if there is not a valid
     * pair in the valid list for each component of the data stream associated with the checklist, the state of the
     * checklist is set to Failed" — with trickle ICE only once both sides have gathered everything (RFC 8838 §8:
     * our gathering complete, the peer's end-of-candidates received), since a late candidate makes new pairs.
     */
    static void checkFailure(final IceAgent agent)
    {
        final IceCheckList list = agent.list;
        if (IceAgent.STATE_RUNNING != agent.state() || !agent.remoteEndOfCandidates || !agent.gatheringComplete
            || 0 == list.size())
        {
            return;
        }
        for (int p = 0; p < list.size(); p++)
        {
            final byte s = list.state(p);
            if (IcePairState.FAILED != s && IcePairState.SUCCEEDED != s
                && !agent.selection.concluded(list.local(p).componentId()))
            {
                return;
            }
        }
        for (int c = 1; c <= agent.components(); c++)
        {
            if (!hasValidPair(agent, c))
            {
                failCheckList(agent);
                return;
            }
        }
    }

    private static boolean hasValidPair(final IceAgent agent, final int component)
    {
        final IceValidList valid = agent.valid;
        for (int v = 0; v < valid.size(); v++)
        {
            if (valid.local(v).componentId() == component)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * The check list is Failed (§7.2.5.4, §7.2.5.3.4). The agent serves one data stream, so its check list is the
     * whole check-list set and the ICE session fails with it (§8.1.2): checks stop and the owner hears
     * {@link IceAgent#STATE_FAILED}. The one exception is a failed ICE restart while every component still has the
     * pair selected before it: data keeps flowing there (§9) and the agent stays where it is.
     */
    private static void failCheckList(final IceAgent agent)
    {
        if (!agent.selection.allSelected())
        {
            agent.setState(IceAgent.STATE_FAILED);
        }
    }
}
