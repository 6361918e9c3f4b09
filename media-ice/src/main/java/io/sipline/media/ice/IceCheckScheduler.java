package io.sipline.media.ice;

import static io.sipline.media.ice.IceAgent.FLAG_NOMINATED;
import static io.sipline.media.ice.IceAgent.FLAG_NOMINATE_ON_SUCCESS;
import static io.sipline.media.ice.IceAgent.FLAG_TRIGGERED;
import static io.sipline.media.ice.IceAgent.FLAG_USE_CANDIDATE;

/**
 * Which check of one {@link IceAgent} leaves next, and when (RFC 8445 §6.1.4): one check per Ta, a triggered pair
 * first (§7.3.1.4), else the highest Waiting pair, else a Frozen pair unfrozen (§6.1.4.2); the agents of one
 * {@link IceContext} together start at most one transaction per pacing interval (§14.2). Ta is the larger of ours
 * and the peer's (§14.2, RFC 8839 §5.5). The controlling agent's regular nomination (§8.1.1) is decided here too:
 * once every component has a valid pair and no better pair is still being checked (or after the nomination wait),
 * the check of the pair that generated the best valid pair is repeated with USE-CANDIDATE. With aggressive
 * nomination (RFC 5245 §8.1.1.2) every check of the controlling agent carries USE-CANDIDATE instead.
 *
 * <p>Stateless: static methods on the agent's fields (Ta, next check, nomination wait), so a session holds no object
 * of this class. Called on the agent's media thread only. Allocates nothing.
 */
final class IceCheckScheduler
{

    private IceCheckScheduler()
    {
    }

    static void localTa(final IceAgent agent, final long value)
    {
        agent.localTaMs = Math.max(5, value);
        agent.taMs = Math.max(agent.localTaMs, agent.remoteTaMs);
    }

    /** @param pacingMs the peer's {@code ice-pacing}, 0 when it sent none. */
    static void remoteTa(final IceAgent agent, final long pacingMs)
    {
        agent.remoteTaMs = 0 == pacingMs ? IceAgent.TA_DEFAULT_MS : pacingMs;
        agent.taMs = Math.max(agent.localTaMs, agent.remoteTaMs);
    }

    /** §9: a new ICE generation waits afresh before nominating. */
    static void restart(final IceAgent agent)
    {
        agent.allValidSinceMs = Long.MAX_VALUE;
    }

    /** A check waiting for something (a TURN channel) may go at the next poll. */
    static void checkNow(final IceAgent agent)
    {
        agent.nextCheckMs = agent.now;
    }

    private static boolean running(final IceAgent agent)
    {
        return !agent.lite() && null != agent.credentials.remoteKey && IceAgent.STATE_FAILED != agent.state();
    }

    /** Sends the next paced check when its time has come, nominating first when that is due. */
    static void poll(final IceAgent agent)
    {
        final long now = agent.now;
        if (!running(agent) || now - agent.nextCheckMs < 0)
        {
            return;
        }
        if (!agent.pacingTurnFree())
        {
            // §14.2: another transaction of this thread left under 5 ms ago
            agent.nextCheckMs = agent.context.nextPacedMs;
            return;
        }
        agent.nextCheckMs = now + agent.taMs;
        if (agent.controlling() && !agent.aggressive)
        {
            nominate(agent);
        }
        if (paceOneCheck(agent))
        {
            agent.takePacingTurn();
        }
    }

    /** @return the earlier of {@code next} and the next check's time. */
    static long nextDeadlineMs(final IceAgent agent, final long next)
    {
        return running(agent) ? Math.min(next, agent.nextCheckMs) : next;
    }

    /** @return whether a check left. */
    private static boolean paceOneCheck(final IceAgent agent)
    {
        // §6.1.4.2: a triggered pair first, then the highest Waiting one, then a Frozen one unfrozen. A pair that
        // cannot start now (no free slot, or a relayed pair waiting for its TURN channel) yields to the next.
        // §8.1.2: the pairs of a component whose ICE processing concluded are out of the check list and the
        // triggered-check queue (skipped here; see IceSelection.concluded), except the check of a later nomination
        // by an aggressive peer (see triggered).
        final IceCheckList list = agent.list;
        final IceSelection selection = agent.selection;
        for (int p = 0; p < list.size(); p++)
        {
            final byte flags = list.flags(p);
            if (0 != (flags & FLAG_TRIGGERED)
                && (!selection.concluded(list.local(p).componentId())
                    || 0 != (flags & FLAG_NOMINATE_ON_SUCCESS) && IcePairState.SUCCEEDED != list.state(p))
                && startCheck(agent, p))
            {
                return true;
            }
        }
        if (IceAgent.STATE_COMPLETED == agent.state())
        {
            return false; // §8.1.2: checks stop once every component is selected (consent takes over)
        }
        for (int p = 0; p < list.size(); p++)
        {
            if (IcePairState.WAITING == list.state(p) && !selection.concluded(list.local(p).componentId())
                && startCheck(agent, p))
            {
                return true;
            }
        }
        final int unfrozen = unfreezeOne(agent);
        return -1 != unfrozen && startCheck(agent, unfrozen);
    }

    private static boolean startCheck(final IceAgent agent, final int pair)
    {
        final IceCheckList list = agent.list;
        final byte flags = list.flags(pair);
        final boolean useCandidate = agent.controlling() && (agent.aggressive || 0 != (flags & FLAG_USE_CANDIDATE));
        if (IceRequests.start(agent, IceRequests.KIND_CHECK, list.localIndex(pair), list.remoteIndex(pair),
            useCandidate) < 0)
        {
            return false;
        }
        list.flags(pair, (byte) (flags & ~FLAG_TRIGGERED));
        if (IcePairState.SUCCEEDED != list.state(pair))
        {
            list.state(pair, IcePairState.IN_PROGRESS);
        }
        return true;
    }

    /** §6.1.4.2: the highest Frozen pair whose foundation no Waiting/In-Progress pair shares becomes Waiting. */
    private static int unfreezeOne(final IceAgent agent)
    {
        final IceCheckList list = agent.list;
        for (int p = 0; p < list.size(); p++)
        {
            if (IcePairState.FROZEN != list.state(p) || agent.selection.concluded(list.local(p).componentId()))
            {
                continue;
            }
            boolean busy = false;
            for (int q = 0; q < list.size() && !busy; q++)
            {
                final byte s = list.state(q);
                busy = q != p && (IcePairState.WAITING == s || IcePairState.IN_PROGRESS == s)
                    && list.sameFoundation(p, q);
            }
            if (!busy)
            {
                list.state(p, IcePairState.WAITING);
                return p;
            }
        }
        return -1;
    }

    /**
     * §8.1.1: once each component has a valid pair and nothing better is pending, nominate the best valid pair of
     * each component by repeating, with USE-CANDIDATE, the check of the check-list pair that generated it.
     */
    private static void nominate(final IceAgent agent)
    {
        if (IceAgent.STATE_COMPLETED == agent.state())
        {
            return;
        }
        boolean betterPending = false;
        for (int c = 1; c <= agent.components(); c++)
        {
            final int best = bestValid(agent, c);
            if (-1 == best)
            {
                return;
            }
            betterPending |= betterPending(agent, c, agent.valid.priority(best, agent.controlling()));
        }
        final long now = agent.now;
        if (Long.MAX_VALUE == agent.allValidSinceMs)
        {
            agent.allValidSinceMs = now;
        }
        if (betterPending && now - agent.allValidSinceMs < agent.nominationWaitMs)
        {
            return;
        }
        final IceCheckList list = agent.list;
        for (int c = 1; c <= agent.components(); c++)
        {
            final int best = bestValid(agent, c);
            final int generating = list.find(agent.valid.generatingLocal(best), agent.valid.remoteIndex(best));
            final byte flags = list.flags(generating);
            if (0 == (flags & (FLAG_USE_CANDIDATE | FLAG_NOMINATED)))
            {
                list.flags(generating, (byte) (flags | FLAG_USE_CANDIDATE | FLAG_TRIGGERED));
            }
        }
    }

    /** @return whether a check-list pair of the component still to be checked ranks above {@code bestPriority}. */
    private static boolean betterPending(final IceAgent agent, final int component, final long bestPriority)
    {
        final IceCheckList list = agent.list;
        for (int p = 0; p < list.size() && list.priority(p) > bestPriority; p++)
        {
            final byte s = list.state(p);
            if (list.local(p).componentId() == component
                && (IcePairState.WAITING == s || IcePairState.IN_PROGRESS == s || IcePairState.FROZEN == s))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * The valid pair of a component with the highest priority (§6.1.2.3, from its own candidates) whose generating
     * pair is still in the check list (the pair the nominating check is sent on), or -1.
     */
    private static int bestValid(final IceAgent agent, final int component)
    {
        final IceValidList valid = agent.valid;
        int best = -1;
        long bestPriority = 0;
        for (int v = 0; v < valid.size(); v++)
        {
            if (valid.local(v).componentId() != component
                || -1 == agent.list.find(valid.generatingLocal(v), valid.remoteIndex(v)))
            {
                continue;
            }
            final long priority = valid.priority(v, agent.controlling());
            if (-1 == best || priority > bestPriority)
            {
                best = v;
                bestPriority = priority;
            }
        }
        return best;
    }

    /**
     * §7.3.1.4: schedule a triggered check, unless the pair already succeeded. §8.1.2: nothing more is checked for a
     * concluded component, with one exception, for a controlled agent and a peer that nominates aggressively (RFC
     * 5245; an RFC 8445 controlling agent nominates one pair per component, §8.1.1): a nomination of another pair of a
     * concluded component still gets its triggered check, and the valid pair it generates is nominated (§7.3.1.5:
     * "once the check is sent and if it generates a successful response, and generates a valid pair, the agent sets
     * the nominated flag of the pair to true"), and selected if its priority is higher (RFC 5245 §8.1.2: the
     * highest-priority nominated pair is used). §8.3.1's three seconds before candidates are freed exist because
     * "the selected pairs can quickly change after ICE has completed" with aggressive nomination, so the agent
     * follows such nominations until it frees the candidates. The check's failure fails only its pair (the
     * exemption of §7.2.5.3.4, see {@link IceCheckResults#checkFailed}).
     *
     * @param pair       the pair.
     * @param nomination whether the request that triggers it nominates (USE-CANDIDATE, and we are controlled).
     */
    static void triggered(final IceAgent agent, final int pair, final boolean nomination)
    {
        final IceCheckList list = agent.list;
        final byte state = list.state(pair);
        if (IcePairState.SUCCEEDED == state || !nomination
            && (IceAgent.STATE_COMPLETED == agent.state() || agent.selection.concluded(list.local(pair).componentId())))
        {
            return; // §8.1.2: nothing more is checked for a concluded component
        }
        if (IcePairState.IN_PROGRESS == state)
        {
            IceRequests.cancelPairChecks(agent, list.localIndex(pair), list.remoteIndex(pair));
        }
        list.state(pair, IcePairState.WAITING);
        list.flags(pair, (byte) (list.flags(pair) | FLAG_TRIGGERED));
    }
}
