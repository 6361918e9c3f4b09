package io.sipline.media.ice;

/**
 * Candidate and pair priorities.
 *
 * <p>Stateless; thread-safe; no allocation.
 */
public final class IcePriority
{
    /** RFC 8445 §5.1.2.1: the local preference of a single-homed agent. */
    public static final int DEFAULT_LOCAL_PREFERENCE = 65535;

    private IcePriority()
    {
    }

    /**
     * RFC 8445 §5.1.2.1: priority = (2^24)*(type preference) + (2^8)*(local preference) + (256 - component ID).
     *
     * @param typePreference  0..126 (§5.1.2.2 recommends 126 host, 110 prflx, 100 srflx, 0 relay).
     * @param localPreference 0..65535.
     * @param componentId     1..256.
     * @return the priority, at most 2^31-1.
     * @throws IllegalArgumentException if an argument is out of range (a programming error, not input).
     */
    public static int candidate(final int typePreference, final int localPreference, final int componentId)
    {
        if (typePreference < 0 || typePreference > 126 || localPreference < 0 || localPreference > 65535
            || componentId < 1 || componentId > 256)
        {
            throw new IllegalArgumentException("priority inputs out of range: type " + typePreference + ", local "
                + localPreference + ", component " + componentId);
        }
        return (typePreference << 24) + (localPreference << 8) + (256 - componentId);
    }

    /**
     * {@link #candidate(int, int, int)} with the type's recommended preference.
     */
    public static int candidate(final IceCandidateType type, final int localPreference, final int componentId)
    {
        return candidate(type.recommendedTypePreference(), localPreference, componentId);
    }

    /**
     * RFC 8445 §6.1.2.3: pair priority = 2^32*MIN(G,D) + 2*MAX(G,D) + (G&gt;D?1:0), where G is the priority of the
     * controlling agent's candidate and D the controlled agent's. Both are below 2^31, so the result fits a signed
     * long and compares with {@link Long#compare}.
     *
     * @param controllingPriority G.
     * @param controlledPriority  D.
     * @return the pair priority.
     */
    public static long pair(final int controllingPriority, final int controlledPriority)
    {
        final long g = Integer.toUnsignedLong(controllingPriority);
        final long d = Integer.toUnsignedLong(controlledPriority);
        return (Math.min(g, d) << 32) + 2 * Math.max(g, d) + (g > d ? 1 : 0);
    }

    /**
     * The pair priority seen from one agent.
     *
     * @param controlling    whether this agent is controlling.
     * @param localPriority  the local candidate's priority.
     * @param remotePriority the remote candidate's priority.
     * @return {@link #pair(int, int)} with G and D chosen by role.
     */
    public static long pair(final boolean controlling, final int localPriority, final int remotePriority)
    {
        return controlling ? pair(localPriority, remotePriority) : pair(remotePriority, localPriority);
    }
}
