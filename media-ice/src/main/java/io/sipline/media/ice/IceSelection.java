package io.sipline.media.ice;

import io.sipline.media.stun.StunMessageType;

import java.net.InetSocketAddress;

/**
 * The selected pairs of one {@link IceAgent}, one per component, and what keeps them: nomination (RFC 8445
 * §7.2.5.3.4, §7.3.1.5: the highest-priority nominated valid pair is used), data sent on them, consent freshness
 * (RFC 7675: a full agent checks each selected pair every 5 s ± 20 % and stops when none was answered for 30 s), the
 * keepalive of a lite agent (§11: a Binding Indication after Tr = 15 s without traffic), and freeing the candidates
 * no selected pair uses three seconds after completion (§8.3.1).
 *
 * <p>A selected pair is the valid pair, as reported (its local candidate is the one the peer sees); its data and
 * consent checks leave from its base, the generating pair's local candidate (same socket, or the relay of a relayed
 * base).
 *
 * <p>Not thread-safe; owned by the agent's media thread. Nothing is allocated per data packet or consent check;
 * freeing allocates two small index maps, once.
 */
final class IceSelection
{
    private final IceAgent agent;
    /** {@link #pairIndices} per component: the selected pair's base (the generating pair's local candidate). */
    private static final int BASE = 0;
    /** {@link #pairIndices} per component: the selected (valid) pair's local candidate, as reported (§7.2.5.3.2). */
    private static final int LOCAL = 1;
    /** {@link #pairIndices} per component: the TURN peer slot of a relayed base, else -1. */
    private static final int TURN_SLOT = 2;
    /** {@link #pairValues} per component: the selected pair's priority; 0 until nominated in this ICE generation. */
    private static final int PRIORITY = 0;
    /** {@link #pairValues} per component: when consent was last answered. */
    private static final int CONSENT_LAST_MS = 1;
    /**
     * {@link #pairValues} per component: when the next consent check is due (full agent), or when a keepalive is due
     * if nothing is sent before (lite agent, §11).
     */
    private static final int CONSENT_NEXT_MS = 2;
    /** Entries per component in each of the two arrays. */
    private static final int STRIDE = 3;

    /** Per component, at {@link #at}: BASE, LOCAL and TURN_SLOT (one array, not three, for a small session). */
    private final int[] pairIndices;
    /** Per component, at {@link #at}: PRIORITY, CONSENT_LAST_MS and CONSENT_NEXT_MS. */
    private final long[] pairValues;
    private final InetSocketAddress[] selectedRemote;
    /** §8.3.1: when the candidates of no selected pair are freed (3 s after completion), or never. */
    private long freeAtMs = Long.MAX_VALUE;
    /** §8.3.1: the candidates of no selected pair are freed; only the selected pairs are answered. */
    boolean freed;

    IceSelection(final IceAgent agent, final int components)
    {
        this.agent = agent;
        pairIndices = new int[components * STRIDE];
        pairValues = new long[components * STRIDE];
        selectedRemote = new InetSocketAddress[components + 1];
        for (int c = 1; c <= components; c++)
        {
            pairIndices[at(c, BASE)] = -1;
            pairIndices[at(c, LOCAL)] = -1;
        }
    }

    boolean hasSelected(final int component)
    {
        return -1 != baseOf(component);
    }

    /** @return whether every component has a selected pair (possibly of an earlier ICE generation). */
    boolean allSelected()
    {
        for (int c = 1; c <= agent.components(); c++)
        {
            if (-1 == baseOf(c))
            {
                return false;
            }
        }
        return true;
    }

    IceCandidate local(final int component)
    {
        return -1 == baseOf(component) ? null : agent.candidates.locals[localOf(component)];
    }

    long priority(final int component)
    {
        return -1 == baseOf(component) ? 0 : priorityOf(component);
    }

    InetSocketAddress remote(final int component)
    {
        return selectedRemote[component];
    }

    /**
     * Whether a component's ICE processing concluded in this ICE generation: a nominated pair is selected
     * (§7.2.5.3.4: "Once the nominated flag is set for a component of a data stream, it concludes the ICE processing
     * for that component"). Its other pairs then count as removed (§8.1.2: "the ICE agent MUST remove all candidate
     * pairs for the same component from the checklist and from the triggered-check queue"): they get no more
     * checks, ordinary or triggered, and do not hold up §7.2.5.4. They stay in the arrays, so a Binding request that
     * still arrives on one is answered (§8.1.2: "an agent MUST continue to respond to any Binding request") without
     * re-adding it. An ICE restart clears the selected priorities, and with it this.
     */
    boolean concluded(final int component)
    {
        return 0 != priorityOf(component);
    }

    /**
     * §7.2.5.3.4, §7.3.1.5: a valid pair is nominated — its nominated flag and its generating pair's are set — and it
     * becomes the component's selected pair unless a higher-priority one already is (§8.1.1 lets the controlling
     * agent nominate one pair per component; with aggressive nomination several are, and the best one is used).
     *
     * @param generating the check-list pair that generated {@code entry}.
     * @param entry      the valid pair.
     */
    void nominated(final int generating, final int entry)
    {
        final IceValidList valid = agent.valid;
        agent.list.flags(generating, (byte) (agent.list.flags(generating) | IceAgent.FLAG_NOMINATED));
        valid.nominate(entry);
        final int local = valid.localIndex(entry);
        final int base = valid.generatingLocal(entry);
        final int remote = valid.remoteIndex(entry);
        final int component = agent.candidates.locals[local].componentId();
        final long priority = valid.priority(entry, agent.controlling());
        if (-1 != baseOf(component) && priorityOf(component) >= priority)
        {
            return;
        }
        select(component, base, local, remote, priority);
        IceRequests.cancelChecks(agent, component);
        agent.listener.onSelected(agent, component);
        for (int c = 1; c <= agent.components(); c++)
        {
            if (0 == priorityOf(c))
            {
                return;
            }
        }
        agent.setState(IceAgent.STATE_COMPLETED);
    }

    private void select(final int component, final int base, final int local, final int remote, final long priority)
    {
        final long now = agent.now;
        final InetSocketAddress remoteAddress = agent.candidates.remoteAddress[remote];
        pairIndices[at(component, BASE)] = base;
        pairIndices[at(component, LOCAL)] = local;
        selectedRemote[component] = remoteAddress;
        pairValues[at(component, PRIORITY)] = priority;
        pairIndices[at(component, TURN_SLOT)] = IceCandidateType.RELAYED == agent.candidates.locals[base].type()
            ? IceGatherer.peerSlot(agent, component, remoteAddress) : -1;
        pairValues[at(component, CONSENT_LAST_MS)] = now;
        pairValues[at(component, CONSENT_NEXT_MS)] =
            now + (agent.lite() ? IceAgent.KEEPALIVE_TR_MS : consentInterval());
        if (IceAgent.STATE_COMPLETED == agent.state() && !freed)
        {
            freeAtMs = now + IceAgent.FREE_DELAY_MS; // §8.3.1: an aggressive peer changed the selection; 3 s more
        }
    }

    /** The agent completed: §8.3.1's three seconds before freeing start. */
    void onCompleted()
    {
        if (!freed)
        {
            freeAtMs = agent.now + IceAgent.FREE_DELAY_MS;
        }
    }

    /** §9: a new ICE generation; the selected pairs stay in use until new ones are selected. */
    void restart()
    {
        freeAtMs = Long.MAX_VALUE;
        freed = false; // §9: the restart checks every pair of what is left (the hosts and the selected candidates)
        for (int c = 1; c <= agent.components(); c++)
        {
            pairValues[at(c, PRIORITY)] = 0;
        }
    }

    /** RFC 7675: a consent check of a component was answered. */
    void onConsent(final int component)
    {
        pairValues[at(component, CONSENT_LAST_MS)] = agent.now;
    }

    /** See {@link IceAgent#send}. */
    boolean send(final int component, final byte[] buf, final int offset, final int length)
    {
        if (component < 1 || component > agent.components() || -1 == baseOf(component)
            || IceAgent.STATE_FAILED == agent.state())
        {
            return false;
        }
        if (agent.lite())
        {
            // §11: data keeps the bindings alive
            pairValues[at(component, CONSENT_NEXT_MS)] = agent.now + IceAgent.KEEPALIVE_TR_MS;
        }
        return agent.sendFrom(baseOf(component), selectedRemote[component], turnSlotOf(component), buf,
            offset, length);
    }

    /** Consent or keepalives once completed, and the freeing of §8.3.1 when due. */
    void poll()
    {
        if (IceAgent.STATE_COMPLETED == agent.state())
        {
            if (agent.lite())
            {
                keepalive();
            }
            else
            {
                consent();
            }
            if (!freed && agent.now - freeAtMs >= 0 && agent.gatheringComplete)
            {
                freeUnselected();
            }
        }
        if (freed)
        {
            IceGatherer.dropClosedRelays(agent);
        }
    }

    /** @return the earlier of {@code next} and the next consent, keepalive or freeing. */
    long nextDeadlineMs(final long next)
    {
        long earliest = next;
        if (IceAgent.STATE_COMPLETED == agent.state())
        {
            for (int c = 1; c <= agent.components(); c++)
            {
                if (-1 != baseOf(c))
                {
                    earliest = Math.min(earliest, consentNextMsOf(c));
                }
            }
            if (!freed && agent.gatheringComplete)
            {
                earliest = Math.min(earliest, freeAtMs);
            }
        }
        return earliest;
    }

    private long consentInterval()
    {
        // RFC 7675 §5.1: uniformly random between 0.8 and 1.2 times the 5 s interval.
        return IceAgent.CONSENT_INTERVAL_MS * 4 / 5
            + agent.context.random.nextLong(IceAgent.CONSENT_INTERVAL_MS * 2 / 5 + 1);
    }

    private void consent()
    {
        final long now = agent.now;
        for (int c = 1; c <= agent.components(); c++)
        {
            final int local = baseOf(c);
            if (-1 == local)
            {
                continue;
            }
            if (now - consentLastMsOf(c) >= IceAgent.CONSENT_TIMEOUT_MS)
            {
                pairIndices[at(c, BASE)] = -1;
                agent.setState(IceAgent.STATE_FAILED);
                agent.listener.onConsentLost(agent, c);
                return;
            }
            if (now - consentNextMsOf(c) >= 0)
            {
                if (!agent.pacingTurnFree())
                {
                    // §14.2: a consent check is a transaction too
                    pairValues[at(c, CONSENT_NEXT_MS)] = agent.context.nextPacedMs;
                    continue;
                }
                pairValues[at(c, CONSENT_NEXT_MS)] = now + consentInterval();
                final int remote = agent.candidates.remoteIndexOf(selectedRemote[c]);
                if (remote >= 0 && IceRequests.start(agent, IceRequests.KIND_CONSENT, local, remote, false) >= 0)
                {
                    agent.takePacingTurn();
                }
            }
        }
    }

    /**
     * RFC 8445 §11 for a lite agent, which sends no consent checks: "An agent MUST send a keepalive on each candidate
     * pair that is used for sending data if no packet has been sent on that pair in the last Tr seconds"; "a STUN
     * Binding Indication is used ... The Indication MUST NOT utilize any authentication mechanism. It SHOULD contain
     * the FINGERPRINT attribute to aid in demultiplexing, but it SHOULD NOT contain any other attributes." It leaves
     * from the selected pair's base to its remote candidate, like the data.
     */
    private void keepalive()
    {
        final IceContext context = agent.context;
        for (int c = 1; c <= agent.components(); c++)
        {
            if (-1 == baseOf(c) || agent.now - consentNextMsOf(c) < 0)
            {
                continue;
            }
            pairValues[at(c, CONSENT_NEXT_MS)] = agent.now + IceAgent.KEEPALIVE_TR_MS;
            final int length = context.writer.wrap(context.scratch, 0, context.scratch.length)
                .header(StunMessageType.BINDING_INDICATION, context.random.nextInt(), context.random.nextLong())
                .addFingerprint(context.integrity)
                .length();
            if (length > 0)
            {
                agent.sendFrom(baseOf(c), selectedRemote[c], turnSlotOf(c), context.scratch, 0, length);
            }
        }
    }

    /**
     * RFC 8445 §8.3.1, three seconds after completion: frees every candidate that no selected pair uses, ours and the
     * peer's (the host candidates stay: they are the owner's sockets and receive everything), empties the check and
     * valid lists (the selected pairs stay here), and deletes the TURN allocations of the components whose selected
     * pair is not relayed. Candidates are renumbered: every index the agent keeps (selected pairs, transaction
     * tokens, relayed candidates) follows.
     */
    private void freeUnselected()
    {
        freed = true;
        freeAtMs = Long.MAX_VALUE;
        final IceCandidates candidates = agent.candidates;
        final int[] localMap = candidates.compactLocals(this);
        final int[] remoteMap = candidates.compactRemotes(this);
        for (int c = 1; c <= agent.components(); c++)
        {
            if (-1 != baseOf(c))
            {
                pairIndices[at(c, BASE)] = localMap[baseOf(c)];
                pairIndices[at(c, LOCAL)] = localMap[localOf(c)];
            }
        }
        IceRequests.renumber(agent, localMap, remoteMap);
        agent.list.reset(candidates.locals, candidates.remotes);
        agent.valid.reset(candidates.locals, candidates.remotes);
        IceGatherer.free(agent, localMap);
    }

    /** §8.3.1: whether a selected pair of some component uses local candidate {@code l} (as base or as its local). */
    boolean uses(final int l)
    {
        for (int c = 1; c <= agent.components(); c++)
        {
            if (-1 != baseOf(c) && (baseOf(c) == l || localOf(c) == l))
            {
                return true;
            }
        }
        return false;
    }

    /** §8.3.1: whether a selected pair of some component has its remote candidate at {@code address}. */
    boolean usesRemote(final InetSocketAddress address)
    {
        for (int c = 1; c <= agent.components(); c++)
        {
            if (-1 != baseOf(c) && address.equals(selectedRemote[c]))
            {
                return true;
            }
        }
        return false;
    }

    /** Whether a request received on local candidate {@code local} from {@code from} is on a selected pair. */
    boolean isSelectedPair(final int local, final InetSocketAddress from)
    {
        final int component = agent.candidates.locals[local].componentId();
        return baseOf(component) == local && from.equals(selectedRemote[component]);
    }

    /** @return where {@code field} of {@code component} (1-based) is in {@link #pairIndices} or {@link #pairValues}. */
    private static int at(final int component, final int field)
    {
        return (component - 1) * STRIDE + field;
    }

    private int baseOf(final int component)
    {
        return pairIndices[at(component, BASE)];
    }

    private int localOf(final int component)
    {
        return pairIndices[at(component, LOCAL)];
    }

    private int turnSlotOf(final int component)
    {
        return pairIndices[at(component, TURN_SLOT)];
    }

    private long priorityOf(final int component)
    {
        return pairValues[at(component, PRIORITY)];
    }

    private long consentLastMsOf(final int component)
    {
        return pairValues[at(component, CONSENT_LAST_MS)];
    }

    private long consentNextMsOf(final int component)
    {
        return pairValues[at(component, CONSENT_NEXT_MS)];
    }
}
