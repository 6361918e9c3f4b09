package io.sipline.media.ice;

/**
 * Size limits of one ICE session, fixed when it is created so that its arrays are allocated once.
 *
 * <p>Reference values from PJNATH ({@code pjnath/config.h}):
 * {@code PJ_ICE_ST_MAX_CAND} 8 candidates per component, {@code PJ_ICE_MAX_CAND} 16 per session,
 * {@code PJ_ICE_MAX_CHECKS} 32, {@code PJ_ICE_COMP_BITS} 1 (two components); tuned: 4, 8, 16, one component.
 * RFC 8445 §6.1.2.5 recommends a pair limit of 100.
 *
 * <p>Immutable; thread-safe.
 */
public final class IceLimits
{
    /** PJNATH's default candidate limits (16 local, 16 remote, 2 components) with RFC 8445's 100 pairs. */
    public static final IceLimits DEFAULT = new IceLimits(16, 16, 100, 2);
    /** PJNATH's defaults throughout: 16 candidates, 32 checks, 2 components. */
    public static final IceLimits PJNATH = new IceLimits(16, 16, 32, 2);
    /** PJNATH's values tuned down for memory: 8 candidates, 16 checks, 2 components kept. */
    public static final IceLimits PJNATH_TUNED = new IceLimits(8, 8, 16, 2);

    private final int maxLocalCandidates;
    private final int maxRemoteCandidates;
    private final int maxPairs;
    private final int maxComponents;

    /**
     * @param maxLocalCandidates  1..255, over all components.
     * @param maxRemoteCandidates 1..255, over all components.
     * @param maxPairs            1..65535 pairs in a check list.
     * @param maxComponents       1..256.
     */
    public IceLimits(final int maxLocalCandidates, final int maxRemoteCandidates, final int maxPairs,
        final int maxComponents)
    {
        if (maxLocalCandidates < 1 || maxLocalCandidates > 255 || maxRemoteCandidates < 1
            || maxRemoteCandidates > 255 || maxPairs < 1 || maxPairs > 65535 || maxComponents < 1
            || maxComponents > 256)
        {
            throw new IllegalArgumentException("ICE limits out of range");
        }
        this.maxLocalCandidates = maxLocalCandidates;
        this.maxRemoteCandidates = maxRemoteCandidates;
        this.maxPairs = maxPairs;
        this.maxComponents = maxComponents;
    }

    public int maxLocalCandidates()
    {
        return maxLocalCandidates;
    }

    public int maxRemoteCandidates()
    {
        return maxRemoteCandidates;
    }

    public int maxPairs()
    {
        return maxPairs;
    }

    public int maxComponents()
    {
        return maxComponents;
    }
}
