package io.sipline.media.ice;

import io.sipline.media.stun.StunMessageType;

import java.net.InetSocketAddress;
import java.util.Arrays;

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
    /** Per component: the selected pair's base (the generating pair's local candidate), which sends its data. */
    private final int[] selectedBase;
    /** Per component: the selected (valid) pair's local candidate, as reported (§7.2.5.3.2). */
    private final int[] selectedLocal;
    private final InetSocketAddress[] selectedRemote;
    private final int[] selectedTurnSlot;
    /** Per component: the selected pair's priority; 0 until a pair is nominated in this ICE generation. */
    private final long[] selectedPriority;
    private final long[] consentLastMs;
    /**
     * Per component: when the next consent check is due (full agent), or when a keepalive is due if nothing is sent
     * before (lite agent, §11).
     */
    private final long[] consentNextMs;
    /** §8.3.1: when the candidates of no selected pair are freed (3 s after completion), or never. */
    private long freeAtMs = Long.MAX_VALUE;
    /** §8.3.1: the candidates of no selected pair are freed; only the selected pairs are answered. */
    boolean freed;

    IceSelection(final IceAgent agent, final int components)
    {
        this.agent = agent;
        selectedBase = new int[components + 1];
        selectedLocal = new int[components + 1];
        selectedRemote = new InetSocketAddress[components + 1];
        selectedTurnSlot = new int[components + 1];
        selectedPriority = new long[components + 1];
        consentLastMs = new long[components + 1];
        consentNextMs = new long[components + 1];
        Arrays.fill(selectedBase, -1);
        Arrays.fill(selectedLocal, -1);
    }

    boolean hasSelected(final int component)
    {
        return -1 != selectedBase[component];
    }

    /** @return whether every component has a selected pair (possibly of an earlier ICE generation). */
    boolean allSelected()
    {
        for (int c = 1; c <= agent.components(); c++)
        {
            if (-1 == selectedBase[c])
            {
                return false;
            }
        }
        return true;
    }

    IceCandidate local(final int component)
    {
        return -1 == selectedBase[component] ? null : agent.candidates.locals[selectedLocal[component]];
    }

    long priority(final int component)
    {
        return -1 == selectedBase[component] ? 0 : selectedPriority[component];
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
     * re-adding it. An ICE restart clears {@code selectedPriority}, and with it this.
     */
    boolean concluded(final int component)
    {
        return 0 != selectedPriority[component];
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
        if (-1 != selectedBase[component] && selectedPriority[component] >= priority)
        {
            return;
        }
        select(component, base, local, remote, priority);
        IceRequests.cancelChecks(agent, component);
        agent.listener.onSelected(agent, component);
        for (int c = 1; c <= agent.components(); c++)
        {
            if (0 == selectedPriority[c])
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
        selectedBase[component] = base;
        selectedLocal[component] = local;
        selectedRemote[component] = remoteAddress;
        selectedPriority[component] = priority;
        selectedTurnSlot[component] = IceCandidateType.RELAYED == agent.candidates.locals[base].type()
            ? IceGatherer.peerSlot(agent, component, remoteAddress) : -1;
        consentLastMs[component] = now;
        consentNextMs[component] = now + (agent.lite() ? IceAgent.KEEPALIVE_TR_MS : consentInterval());
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
        Arrays.fill(selectedPriority, 0);
    }

    /** RFC 7675: a consent check of a component was answered. */
    void onConsent(final int component)
    {
        consentLastMs[component] = agent.now;
    }

    /** See {@link IceAgent#send}. */
    boolean send(final int component, final byte[] buf, final int offset, final int length)
    {
        if (component < 1 || component > agent.components() || -1 == selectedBase[component]
            || IceAgent.STATE_FAILED == agent.state())
        {
            return false;
        }
        if (agent.lite())
        {
            consentNextMs[component] = agent.now + IceAgent.KEEPALIVE_TR_MS; // §11: data keeps the bindings alive
        }
        return agent.sendFrom(selectedBase[component], selectedRemote[component], selectedTurnSlot[component], buf,
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
                if (-1 != selectedBase[c])
                {
                    earliest = Math.min(earliest, consentNextMs[c]);
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
            final int local = selectedBase[c];
            if (-1 == local)
            {
                continue;
            }
            if (now - consentLastMs[c] >= IceAgent.CONSENT_TIMEOUT_MS)
            {
                selectedBase[c] = -1;
                agent.setState(IceAgent.STATE_FAILED);
                agent.listener.onConsentLost(agent, c);
                return;
            }
            if (now - consentNextMs[c] >= 0)
            {
                if (!agent.pacingTurnFree())
                {
                    consentNextMs[c] = agent.context.nextPacedMs; // §14.2: a consent check is a transaction too
                    continue;
                }
                consentNextMs[c] = now + consentInterval();
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
            if (-1 == selectedBase[c] || agent.now - consentNextMs[c] < 0)
            {
                continue;
            }
            consentNextMs[c] = agent.now + IceAgent.KEEPALIVE_TR_MS;
            final int length = context.writer.wrap(context.scratch, 0, context.scratch.length)
                .header(StunMessageType.BINDING_INDICATION, context.random.nextInt(), context.random.nextLong())
                .addFingerprint(context.integrity)
                .length();
            if (length > 0)
            {
                agent.sendFrom(selectedBase[c], selectedRemote[c], selectedTurnSlot[c], context.scratch, 0, length);
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
            if (-1 != selectedBase[c])
            {
                selectedBase[c] = localMap[selectedBase[c]];
                selectedLocal[c] = localMap[selectedLocal[c]];
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
            if (-1 != selectedBase[c] && (selectedBase[c] == l || selectedLocal[c] == l))
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
            if (-1 != selectedBase[c] && address.equals(selectedRemote[c]))
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
        return selectedBase[component] == local && from.equals(selectedRemote[component]);
    }
}
