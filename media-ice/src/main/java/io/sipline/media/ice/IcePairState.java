package io.sipline.media.ice;

/**
 * Candidate pair states (RFC 8445 §6.1.2.6), stored as bytes in {@link IceCheckList}.
 *
 * <p>Constants; thread-safe.
 */
public final class IcePairState
{
    public static final byte FROZEN = 0;
    public static final byte WAITING = 1;
    public static final byte IN_PROGRESS = 2;
    public static final byte SUCCEEDED = 3;
    public static final byte FAILED = 4;

    private IcePairState()
    {
    }

    /**
     * @return the state's name, for diagnostics.
     */
    public static String name(final int state)
    {
        switch (state)
        {
            case FROZEN:
                return "Frozen";
            case WAITING:
                return "Waiting";
            case IN_PROGRESS:
                return "In-Progress";
            case SUCCEEDED:
                return "Succeeded";
            case FAILED:
                return "Failed";
            default:
                return "?" + state;
        }
    }
}
