package io.sipline.media.ice;

/**
 * RFC 8445 §7.3.1.1: what an agent does when a Binding request shows both agents claim the same role.
 *
 * <p>Stateless; thread-safe; no allocation.
 */
public final class IceRoleConflict
{
    /** No conflict: process the request normally. */
    public static final int NONE = 0;
    /** Keep the role and answer 487 (Role Conflict). */
    public static final int REPLY_487 = 1;
    /** Switch role (controlling to controlled or back), recompute pair priorities, then process the request. */
    public static final int SWITCH_ROLE = 2;

    private IceRoleConflict()
    {
    }

    /**
     * Decides a conflict. Tie-breakers are 64-bit unsigned values (RFC 8445 §16.1).
     *
     * @param localControlling          whether this agent is controlling.
     * @param localTieBreaker           this agent's tie-breaker.
     * @param requestControlling        the request carries ICE-CONTROLLING (otherwise ICE-CONTROLLED).
     * @param requestTieBreaker         the tie-breaker in that attribute.
     * @return {@link #NONE}, {@link #REPLY_487} or {@link #SWITCH_ROLE}.
     */
    public static int resolve(final boolean localControlling, final long localTieBreaker,
        final boolean requestControlling, final long requestTieBreaker)
    {
        if (localControlling != requestControlling)
        {
            return NONE;
        }
        final boolean localWins = Long.compareUnsigned(localTieBreaker, requestTieBreaker) >= 0;
        if (localControlling)
        {
            // Both controlling: the larger tie-breaker stays controlling.
            return localWins ? REPLY_487 : SWITCH_ROLE;
        }
        // Both controlled: the larger tie-breaker becomes controlling.
        return localWins ? SWITCH_ROLE : REPLY_487;
    }
}
