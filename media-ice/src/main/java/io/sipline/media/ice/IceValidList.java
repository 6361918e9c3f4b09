package io.sipline.media.ice;

/**
 * The valid list of a data stream (RFC 8445 §7.2.5.3.2), kept apart from its {@link IceCheckList}: a successful check
 * produces a valid pair whose local candidate is the one whose transport address equals the mapped address of the
 * response (a host, server-reflexive, peer-reflexive or relayed candidate) and whose remote candidate is the one the
 * check was sent to. That pair may be the checked pair, another pair of the check list, or a pair on no check list
 * at all — a (server-reflexive, remote) pair, which §6.1.2.4 prunes from the check list because its base is the host.
 *
 * <p>Each entry also names the check-list pair that generated it: its remote candidate is the valid pair's (the check
 * went there), so only its local candidate index — the base the check left from, which stays put while the check
 * list is reordered — is kept. §8.1.1 nominates a valid pair by repeating the generating pair's check with
 * USE-CANDIDATE, and §7.3.1.5 finds the valid pair a nominated check-list pair generated.
 *
 * <p>One {@code int} per entry — local, remote, generating local (a byte each) and the nominated bit — allocated once
 * at {@link IceLimits#maxPairs()} entries (each check-list pair generates at most one valid pair). Entries are never
 * reordered; only a failed nomination removes one ({@link #removePair}, RFC 8445 §7.2.5.3.4), which moves the later
 * ones down, so an entry index is good until the next such removal or {@link #reset}, never across calls. Pair
 * priorities are not stored: {@link #priority} computes them from the candidates (§6.1.2.3), so a role change needs
 * no recomputation.
 *
 * <p>Not thread-safe; owned by one media thread.
 */
public final class IceValidList
{
    private static final int NOMINATED = 1 << 24;

    private final int[] entries;
    private IceCandidate[] locals;
    private IceCandidate[] remotes;
    private int count;

    /**
     * @param limits the session limits; {@link IceLimits#maxPairs()} entries are allocated.
     */
    public IceValidList(final IceLimits limits)
    {
        entries = new int[limits.maxPairs()];
    }

    /**
     * Empties the list and points it at (new) candidate arrays, as {@link IceCheckList#reset} does: on an ICE restart
     * (§9) the valid pairs go with the check list.
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
     * Adds a valid pair unless it is already in the list (§7.2.5.3.2: a pair is added once; the first generating pair
     * is kept).
     *
     * @param local            the valid pair's local candidate index (the one equal to the mapped address).
     * @param remote           its remote candidate index (where the check was sent).
     * @param generatingLocal  the local candidate index of the check-list pair whose check succeeded (its base);
     *                         that pair's remote candidate is {@code remote}.
     * @return the entry's index, or -1 when the list is full.
     */
    public int add(final int local, final int remote, final int generatingLocal)
    {
        final int existing = find(local, remote);
        if (-1 != existing)
        {
            return existing;
        }
        if (count == entries.length)
        {
            return -1;
        }
        entries[count] = local & 0xFF | (remote & 0xFF) << 8 | (generatingLocal & 0xFF) << 16;
        return count++;
    }

    /**
     * @param local  local candidate index.
     * @param remote remote candidate index.
     * @return the entry of the valid pair (local, remote), or -1.
     */
    public int find(final int local, final int remote)
    {
        for (int i = 0; i < count; i++)
        {
            if (localIndex(i) == local && remoteIndex(i) == remote)
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * @param generatingLocal  local candidate index of a check-list pair.
     * @param generatingRemote remote candidate index of that pair.
     * @return the first valid pair that check-list pair generated, or -1.
     */
    public int findGenerated(final int generatingLocal, final int generatingRemote)
    {
        for (int i = 0; i < count; i++)
        {
            if (generatingLocal(i) == generatingLocal && remoteIndex(i) == generatingRemote)
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * RFC 8445 §7.2.5.3.4: "If the request fails (Section 7.2.5.2), the agent MUST remove the candidate pair from the
     * valid list". The check of a nomination is sent on a check-list pair, so what leaves the list is the valid pair
     * that check-list pair generated (the (srflx, R) pair behind a NAT) and the check-list pair itself if it is in the
     * list as a valid pair. Later entries move down by one; the order of the others is kept.
     *
     * @param local  local candidate index of the check-list pair whose nominating check failed.
     * @param remote remote candidate index of that pair.
     * @return how many entries were removed.
     */
    public int removePair(final int local, final int remote)
    {
        int kept = 0;
        for (int i = 0; i < count; i++)
        {
            final boolean generatedBy = generatingLocal(i) == local && remoteIndex(i) == remote;
            final boolean same = localIndex(i) == local && remoteIndex(i) == remote;
            if (!generatedBy && !same)
            {
                entries[kept++] = entries[i];
            }
        }
        final int removed = count - kept;
        count = kept;
        return removed;
    }

    public int size()
    {
        return count;
    }

    public int capacity()
    {
        return entries.length;
    }

    public int localIndex(final int entry)
    {
        return entries[entry] & 0xFF;
    }

    public int remoteIndex(final int entry)
    {
        return entries[entry] >>> 8 & 0xFF;
    }

    /**
     * @return the local candidate index of the check-list pair that generated this valid pair: the base the check
     *         left from, whose socket (or relay) sends the pair's media and consent checks.
     */
    public int generatingLocal(final int entry)
    {
        return entries[entry] >>> 16 & 0xFF;
    }

    public IceCandidate local(final int entry)
    {
        return locals[localIndex(entry)];
    }

    public IceCandidate remote(final int entry)
    {
        return remotes[remoteIndex(entry)];
    }

    /**
     * §6.1.2.3 computed from the valid pair's own candidates (a server-reflexive local candidate ranks with its own
     * priority, not its base's).
     *
     * @param entry       the entry.
     * @param controlling our current role.
     * @return the pair priority.
     */
    public long priority(final int entry, final boolean controlling)
    {
        return IcePriority.pair(controlling, local(entry).priority(), remote(entry).priority());
    }

    /** @return the valid pair's nominated flag (§7.2.5.3.4, §7.3.1.5). */
    public boolean nominated(final int entry)
    {
        return 0 != (entries[entry] & NOMINATED);
    }

    /** Sets the valid pair's nominated flag. */
    public void nominate(final int entry)
    {
        entries[entry] |= NOMINATED;
    }
}
