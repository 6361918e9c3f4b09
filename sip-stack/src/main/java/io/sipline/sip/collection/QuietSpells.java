package io.sipline.sip.collection;

/**
 * When to shrink what a burst grew, for each of a fixed number of arrays of slots (a timing wheel's spokes, a table's
 * slots): the owner's once-a-second trim asks {@link #trim}, which counts the trims in a row (a spell) at which the
 * array's use stayed at a share of its slots or less ({@code capacity >> shareShift}) and, once the spell is long
 * enough, answers the size to shrink to: the smallest power of two of at least four times the most slots in use over
 * the spell (never below the array's least size), so that the next growth is two doublings of that use away. The
 * owner notes its use as it rises ({@link #use}) and starts a new spell after it shrinks ({@link #restart}); an owner
 * that cannot shrink yet (a slot in use up there, a migration under way) does nothing, the spell goes on and the next
 * trim answers again. A spell whose most needs every slot starts a new one, so that the next spell sizes the array by
 * what it holds after the burst, not by the burst's tail. An array grows only when full, so the trim after a growth
 * always ends the spell.
 *
 * <p>Not thread-safe; owned by the thread that owns the arrays. Allocates nothing after construction.
 */
public final class QuietSpells
{
    /** {@link #trim}'s answer when there is nothing to do: the spell goes on, or the array is at its least size. */
    public static final int KEEP = 0;
    /** {@link #trim}'s answer when the use went above the share since the last trim: a new spell starts. */
    public static final int BUSY = -1;

    private final int shareShift;
    private final int leastCapacity;
    /** Per array: the most slots in use since its spell started. */
    private final int[] peaks;
    /** Per array: trims in a row its use stayed at the share or less (at most the spell length asked). */
    private final int[] quietTrims;

    /**
     * @param arrays        how many arrays this follows, numbered from 0.
     * @param shareShift    a trim is quiet when the use stayed at {@code capacity >> shareShift} or less (2: quarter).
     * @param leastCapacity the size an array starts with, and the least a shrink leaves it (at least 1).
     */
    public QuietSpells(final int arrays, final int shareShift, final int leastCapacity)
    {
        if (arrays < 1 || shareShift < 1 || shareShift > 30 || leastCapacity < 1)
        {
            throw new IllegalArgumentException(
                "need arrays >= 1, 1 <= shareShift <= 30, leastCapacity >= 1: " + arrays + ", " + shareShift + ", "
                    + leastCapacity);
        }
        this.shareShift = shareShift;
        this.leastCapacity = leastCapacity;
        this.peaks = new int[arrays];
        this.quietTrims = new int[arrays];
    }

    /** Notes that {@code inUse} slots of {@code array} are in use (call it when the use rises). */
    public void use(final int array, final int inUse)
    {
        if (inUse > peaks[array])
        {
            peaks[array] = inUse;
        }
    }

    /**
     * The owner's trim of {@code array}: {@link #BUSY} when its use went above the share since the spell started
     * (a new spell starts), the size to shrink it to once {@code spellTrims} trims in a row were quiet, else
     * {@link #KEEP}. The owner that shrinks calls {@link #restart}.
     *
     * @param capacity   the array's slots now.
     * @param inUse      its slots in use now (a new spell starts from them).
     * @param spellTrims the quiet trims in a row a shrink waits for (at least 1).
     */
    public int trim(final int array, final int capacity, final int inUse, final int spellTrims)
    {
        if (capacity <= leastCapacity)
        {
            restart(array, inUse);
            return KEEP;
        }
        if (peaks[array] > capacity >> shareShift)
        {
            restart(array, inUse);
            return BUSY;
        }
        final int quiet = Math.min(quietTrims[array] + 1, Math.max(1, spellTrims));
        quietTrims[array] = quiet;
        if (quiet < spellTrims)
        {
            return KEEP;
        }
        final long wanted = (long)Math.max(1, peaks[array]) << 2;
        final long target = Math.max(leastCapacity, Long.highestOneBit(wanted - 1) << 1);
        if (target >= capacity)
        {
            // the spell's most needs every slot: a new spell measures the use from now on, not the burst's tail
            restart(array, inUse);
            return KEEP;
        }
        return (int)target;
    }

    /** Starts a new spell of {@code array} from {@code inUse} slots in use (after a shrink). */
    public void restart(final int array, final int inUse)
    {
        quietTrims[array] = 0;
        peaks[array] = inUse;
    }

    /** The most slots of {@code array} in use since its spell started. */
    public int peak(final int array)
    {
        return peaks[array];
    }

    /** The quiet trims in a row of {@code array}'s spell so far. */
    public int quietTrims(final int array)
    {
        return quietTrims[array];
    }
}
