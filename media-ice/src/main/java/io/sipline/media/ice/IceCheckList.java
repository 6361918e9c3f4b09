package io.sipline.media.ice;

/**
 * One check list (RFC 8445 §6.1.2) of a data stream, holding its pairs as parallel primitive arrays — pair priority,
 * local index, remote index, state, owner flags — rather than one object per pair: 12 bytes per pair slot, allocated
 * once at the configured limit.
 *
 * <p>{@link #form} runs the steps of §6.1.2 in one pass: pair every local candidate with every remote candidate of
 * the same component and address family (§6.1.2.2; a link-local IPv6 address only with a link-local one; remote FQDN
 * candidates are skipped until resolved), compute pair priorities (§6.1.2.3), replace a server-reflexive local
 * candidate by its base and drop a pair redundant with a higher-priority one — same local base, same remote
 * candidate (§6.1.2.4), keep the highest-priority pairs up to the limit (§6.1.2.5), keep them ordered by decreasing
 * priority, and set the initial states (§6.1.2.6). Forming is incremental: each candidate pair is checked for
 * redundancy against the retained ones and inserted in order, so no L×R temporary array is needed. Once the list is
 * full it stays full, so a pair dropped for the limit can only have pruned pairs that are dropped anyway.
 *
 * <p>The candidate arrays are referenced, not copied: indices point into them, and the caller must not reorder them
 * while the list lives.
 *
 * <p>Not thread-safe; owned by one media thread.
 */
public final class IceCheckList
{
    private final long[] priorities;
    private final byte[] localIndex;
    private final byte[] remoteIndex;
    private final byte[] states;
    private final byte[] flags;
    private IceCandidate[] locals;
    private IceCandidate[] remotes;
    private int count;

    /**
     * @param limits the session limits; {@link IceLimits#maxPairs()} slots are allocated.
     */
    public IceCheckList(final IceLimits limits)
    {
        final int capacity = limits.maxPairs();
        priorities = new long[capacity];
        localIndex = new byte[capacity];
        remoteIndex = new byte[capacity];
        states = new byte[capacity];
        flags = new byte[capacity];
    }

    /**
     * Forms the list (RFC 8445 §6.1.2.2-§6.1.2.6), replacing any previous content.
     *
     * @param controlling  whether the local agent is controlling (G is then the local priority).
     * @param locals       local candidates; a reflexive one's base must be set.
     * @param localCount   how many of {@code locals} to use, at most 255.
     * @param remotes      remote candidates.
     * @param remoteCount  how many of {@code remotes} to use, at most 255.
     * @param firstList    whether this is the first check list of the session (§6.1.2.6: only there are pairs
     *                     unfrozen; in the others everything starts Frozen).
     * @return the number of pairs.
     */
    public int form(final boolean controlling, final IceCandidate[] locals, final int localCount,
        final IceCandidate[] remotes, final int remoteCount, final boolean firstList)
    {
        if (localCount > 255 || remoteCount > 255)
        {
            throw new IllegalArgumentException("more than 255 candidates");
        }
        this.locals = locals;
        this.remotes = remotes;
        count = 0;
        for (int l = 0; l < localCount; l++)
        {
            for (int r = 0; r < remoteCount; r++)
            {
                pair(controlling, l, r, localCount);
            }
        }
        initialStates(firstList);
        return count;
    }

    /**
     * Adds the pairs of one candidate learnt after {@link #form} — a trickled remote candidate, a late local one, a
     * peer-reflexive remote one (RFC 8838 §11, RFC 8445 §7.3.1.4) — keeping the other pairs, their states and flags.
     * The candidate arrays are the ones given to {@link #form} (or {@link #reset}), with the new candidate appended.
     *
     * @param controlling our role.
     * @param local       the local candidate index, or -1 to pair {@code remote} with every local one.
     * @param remote      the remote candidate index, or -1 to pair {@code local} with every remote one.
     * @param localCount  local candidates in use.
     * @param remoteCount remote candidates in use.
     * @param state       the state of each new pair.
     * @return pairs added.
     */
    public int addPairs(final boolean controlling, final int local, final int remote, final int localCount,
        final int remoteCount, final byte state)
    {
        int added = 0;
        for (int l = -1 == local ? 0 : local; l < (-1 == local ? localCount : local + 1); l++)
        {
            for (int r = -1 == remote ? 0 : remote; r < (-1 == remote ? remoteCount : remote + 1); r++)
            {
                final int at = pair(controlling, l, r, localCount);
                if (at >= 0)
                {
                    states[at] = state;
                    added++;
                }
            }
        }
        return added;
    }

    /**
     * Empties the list and points it at (new) candidate arrays, for an ICE restart or a list built only by
     * {@link #addPairs}.
     *
     * @param locals  local candidates.
     * @param remotes remote candidates.
     */
    public void reset(final IceCandidate[] locals, final IceCandidate[] remotes)
    {
        this.locals = locals;
        this.remotes = remotes;
        count = 0;
    }

    /**
     * @param local  local candidate index.
     * @param remote remote candidate index.
     * @return the pair's index, or -1.
     */
    public int find(final int local, final int remote)
    {
        for (int i = 0; i < count; i++)
        {
            if ((localIndex[i] & 0xFF) == local && (remoteIndex[i] & 0xFF) == remote)
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * @return the owner's per-pair bits (valid, nominated, ...), kept with the pair as the list is reordered.
     */
    public byte flags(final int pair)
    {
        return flags[pair];
    }

    public void flags(final int pair, final byte value)
    {
        flags[pair] = value;
    }

    /** Pairs local {@code l} with remote {@code r} if §6.1.2.2 allows it; the new pair's index, or -1. */
    private int pair(final boolean controlling, final int l, final int r, final int localCount)
    {
        final IceCandidate local = locals[l];
        if (local.type() == IceCandidateType.PEER_REFLEXIVE)
        {
            return -1; // §6.1.2.2: peer-reflexive local candidates are never paired.
        }
        final int effectiveLocal = local.type() == IceCandidateType.SERVER_REFLEXIVE ? baseOf(l, localCount) : l;
        final IceCandidate remote = remotes[r];
        if (remote.componentId() != local.componentId() || remote.family() != local.family()
            || remote.family() == IceCandidate.FAMILY_FQDN
            || remote.isLinkLocalIpv6() != local.isLinkLocalIpv6() || -1 != find(effectiveLocal, r))
        {
            return -1;
        }
        final long priority = IcePriority.pair(controlling, locals[effectiveLocal].priority(), remote.priority());
        return add(effectiveLocal, r, priority);
    }

    /**
     * Recomputes every pair priority after a role change (RFC 8445 §7.3.1.1) and reorders the list.
     *
     * @param controlling the new role.
     */
    public void recomputePriorities(final boolean controlling)
    {
        for (int i = 0; i < count; i++)
        {
            priorities[i] = IcePriority.pair(controlling, locals[localIndex[i] & 0xFF].priority(),
                remotes[remoteIndex[i] & 0xFF].priority());
        }
        // Insertion sort: at most maxPairs entries, no allocation.
        for (int i = 1; i < count; i++)
        {
            final long p = priorities[i];
            final byte li = localIndex[i];
            final byte ri = remoteIndex[i];
            final byte s = states[i];
            final byte f = flags[i];
            int j = i - 1;
            while (j >= 0 && before(p, li, ri, j))
            {
                move(j, j + 1);
                j--;
            }
            priorities[j + 1] = p;
            localIndex[j + 1] = li;
            remoteIndex[j + 1] = ri;
            states[j + 1] = s;
            flags[j + 1] = f;
        }
    }

    public int size()
    {
        return count;
    }

    public int capacity()
    {
        return priorities.length;
    }

    public long priority(final int pair)
    {
        return priorities[pair];
    }

    public int localIndex(final int pair)
    {
        return localIndex[pair] & 0xFF;
    }

    public int remoteIndex(final int pair)
    {
        return remoteIndex[pair] & 0xFF;
    }

    public IceCandidate local(final int pair)
    {
        return locals[localIndex[pair] & 0xFF];
    }

    public IceCandidate remote(final int pair)
    {
        return remotes[remoteIndex[pair] & 0xFF];
    }

    /**
     * @return one of the {@link IcePairState} constants.
     */
    public byte state(final int pair)
    {
        return states[pair];
    }

    public void state(final int pair, final byte state)
    {
        states[pair] = state;
    }

    /**
     * RFC 8445 §6.1.2.6: a pair's foundation is the local and the remote foundation together.
     *
     * @return whether two pairs share a foundation.
     */
    public boolean sameFoundation(final int a, final int b)
    {
        return local(a).foundation().equals(local(b).foundation())
            && remote(a).foundation().equals(remote(b).foundation());
    }

    private int add(final int local, final int remote, final long priority)
    {
        final IceCandidate localCandidate = locals[local];
        final IceCandidate remoteCandidate = remotes[remote];
        // §6.1.2.4: redundant if same local base and same remote candidate; keep the higher priority.
        for (int i = 0; i < count; i++)
        {
            final IceCandidate other = remotes[remoteIndex[i] & 0xFF];
            final boolean sameRemote = (remoteIndex[i] & 0xFF) == remote
                || other.sameTransportAddress(remoteCandidate) && other.componentId() == remoteCandidate.componentId();
            if (sameRemote && locals[localIndex[i] & 0xFF].sameBase(localCandidate))
            {
                if (!before(priority, (byte) local, (byte) remote, i))
                {
                    return -1;
                }
                remove(i);
                break;
            }
        }
        // §6.1.2.5: keep at most capacity pairs, the highest priority ones.
        if (count == priorities.length)
        {
            if (!before(priority, (byte) local, (byte) remote, count - 1))
            {
                return -1;
            }
            count--;
        }
        int at = count;
        while (at > 0 && before(priority, (byte) local, (byte) remote, at - 1))
        {
            move(at - 1, at);
            at--;
        }
        priorities[at] = priority;
        localIndex[at] = (byte) local;
        remoteIndex[at] = (byte) remote;
        states[at] = IcePairState.FROZEN;
        flags[at] = 0;
        count++;
        return at;
    }

    /** Whether a pair (priority, local, remote) sorts before the pair at {@code index}: higher priority first. */
    private boolean before(final long priority, final byte local, final byte remote, final int index)
    {
        if (priority != priorities[index])
        {
            return priority > priorities[index];
        }
        // Deterministic tie-break: lower local index, then lower remote index.
        if (local != localIndex[index])
        {
            return (local & 0xFF) < (localIndex[index] & 0xFF);
        }
        return (remote & 0xFF) < (remoteIndex[index] & 0xFF);
    }

    private void move(final int from, final int to)
    {
        priorities[to] = priorities[from];
        localIndex[to] = localIndex[from];
        remoteIndex[to] = remoteIndex[from];
        states[to] = states[from];
        flags[to] = flags[from];
    }

    private void remove(final int index)
    {
        for (int i = index; i < count - 1; i++)
        {
            move(i + 1, i);
        }
        count--;
    }

    /** §6.1.2.4: the local host candidate whose address is a reflexive candidate's base, or itself if none. */
    private int baseOf(final int reflexive, final int localCount)
    {
        final IceCandidate candidate = locals[reflexive];
        for (int i = 0; i < localCount; i++)
        {
            final IceCandidate other = locals[i];
            if (other.type() == IceCandidateType.HOST && other.componentId() == candidate.componentId()
                && other.family() == candidate.baseFamily() && other.addressHi() == candidate.baseHi()
                && other.addressLo() == candidate.baseLo() && other.port() == candidate.basePort())
            {
                return i;
            }
        }
        return reflexive;
    }

    /**
     * §6.1.2.6: all pairs Frozen; then, in the first check list, for each pair foundation, the first pair by lowest
     * component id and then highest priority is set to Waiting.
     */
    private void initialStates(final boolean firstList)
    {
        for (int i = 0; i < count; i++)
        {
            states[i] = IcePairState.FROZEN;
        }
        if (!firstList)
        {
            return;
        }
        for (int i = 0; i < count; i++)
        {
            boolean first = true;
            final int component = local(i).componentId();
            for (int j = 0; j < count && first; j++)
            {
                if (j != i && sameFoundation(i, j))
                {
                    final int other = local(j).componentId();
                    first = other > component || other == component && j > i;
                }
            }
            if (first)
            {
                states[i] = IcePairState.WAITING;
            }
        }
    }
}
