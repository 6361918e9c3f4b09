package io.sipline.sip.timer;

import java.util.Arrays;
import io.sipline.sip.collection.QuietSpells;

/**
 * A hashed timing wheel of deadlines, for RFC 3261 timers A to M and the container's timers. Time is cut into ticks
 * of {@code tickResolutionNs}; a deadline lands on the spoke of its tick modulo the number of spokes. Each spoke is a
 * flat array that grows (doubling) only when a tick gets more live timers than it ever had, so once warm, scheduling,
 * cancelling and polling ({@link #poll}) allocate nothing. Agrona's {@code DeadlineTimerWheel} is the model; this
 * one adds generations and a payload per timer.
 * <pre>
 *   spokes (ticksPerWheel, a power of two)        timer id (a positive long)
 *   +----+----+----+----+-- ... --+               63 62            40 39          24 23              0
 *   | s0 | s1 | s2 | s3 |         |               +--+---------------+--------------+-----------------+
 *   +----+----+----+----+-- ... --+               |0 |  generation   |    spoke     | position in     |
 *     |                                           |  |  (23 bits)    |  (16 bits)   | spoke (24 bits) |
 *     v  deadlines[], payloads[], generations[]   +--+---------------+--------------+-----------------+
 *   [ d | d | MAX | d | ... ]   MAX = free slot
 * </pre>
 * A new timer takes a free slot from its spoke's stack of free positions, and a timer that fires or is cancelled
 * puts its slot back there. A slot's generation is bumped each time its timer fires or is cancelled, and an id
 * carries the generation it was issued with, so a stale id cancels nothing and reads no payload. Generations wrap
 * after 2^23 reuses of one slot; an id kept that long could alias, which the transaction layer never does (it forgets
 * an id when its timer ends).
 *
 * <p>A burst grows spokes; {@link #trim} (the owner's once-a-second duty) shrinks a grown spoke back once it has
 * held at most a quarter of its slots for {@link #QUIET_TRIMS} trims in a row and no live timer sits in the part let
 * go (a live timer's id names its position, so it is never moved); while one does, the positions up there that end
 * are held back and new timers take the lower ones, so a steady trickle cannot keep the spoke large (running out of
 * lower positions gives the held-back ones back at once). A spoke that grows again after a shrink starts its
 * new slots' generations above every generation the dropped ones had issued, so a stale id never names a new timer.
 *
 * <p>Not thread-safe; owned by one shard thread, which schedules, cancels, polls and trims.
 */
public final class TimerWheel
{
    /** Never a valid timer id. */
    public static final long NULL_TIMER_ID = -1L;
    /** Deadline of a free slot; also what {@link #deadline(long)} returns for a dead id. */
    public static final long NULL_DEADLINE = Long.MAX_VALUE;
    /** Default tick: 1 ms, fine enough for SIP's T1 = 500 ms. */
    public static final long DEFAULT_TICK_RESOLUTION_NS = 1_000_000L;
    /** Default spokes: 1,024 ticks of 1 ms, about one second per rotation. */
    public static final int DEFAULT_TICKS_PER_WHEEL = 1024;
    /** Default initial slots per spoke. */
    public static final int DEFAULT_SPOKE_CAPACITY = 16;

    private static final int POSITION_BITS = 24;
    private static final int SPOKE_BITS = 16;
    private static final int GENERATION_BITS = 23;
    private static final long POSITION_MASK = (1L << POSITION_BITS) - 1;
    private static final long SPOKE_MASK = (1L << SPOKE_BITS) - 1;
    private static final int GENERATION_MASK = (1 << GENERATION_BITS) - 1;
    private static final int SPOKE_SHIFT = POSITION_BITS;
    private static final int GENERATION_SHIFT = POSITION_BITS + SPOKE_BITS;
    private static final int INSERTION_SORT_MAX = 16;
    /** Trims in a row a grown spoke must stay at a quarter of its slots or less before {@link #trim} shrinks it. */
    public static final int QUIET_TRIMS = 32;

    private final long startTimeNs;
    private final long tickResolutionNs;
    private final int tickMask;
    private final long[][] deadlines;
    private final long[][] payloads;
    private final int[][] generations;
    private final int[] spokeCounts;
    /**
     * Each spoke's free positions as a stack, {@code freeDepths[spoke]} deep: a timer takes the top one in O(1), where
     * a search from the spoke's start would walk past the live timers that fill its low positions.
     */
    private final int[][] freePositions;
    private final int[] freeDepths;
    /** Per spoke: free positions from here up are held back while a shrink waits ({@link #trim}); else MAX_VALUE. */
    private final int[] positionLimits;
    private long currentTick;
    private int timerCount;
    private long spokeGrowths;
    private long spokeShrinks;
    /** Slots a spoke starts with, and the least {@link #trim} leaves it. */
    private final int initialSpokeCapacity;
    /** Per spoke: its quiet spell, at a quarter of its slots or less, that {@link #trim} shrinks it after. */
    private final QuietSpells spells;
    /** Per spoke: the generation a slot it grows again starts with (above those of the slots a shrink dropped). */
    private final int[] generationFloors;

    /** Scratch for one poll: the due ids of the current spoke and their deadlines, sorted together. */
    private long[] dueIds;
    private long[] dueDeadlines;

    /** A wheel with 1 ms ticks, 1,024 spokes and 16 initial slots per spoke. */
    public TimerWheel(final long startTimeNs)
    {
        this(startTimeNs, DEFAULT_TICK_RESOLUTION_NS, DEFAULT_TICKS_PER_WHEEL, DEFAULT_SPOKE_CAPACITY);
    }

    /**
     * @param startTimeNs      the clock's reading at tick 0 (deadlines before it fire on the first poll).
     * @param tickResolutionNs length of a tick; timers fire up to one tick late, never early.
     * @param ticksPerWheel    number of spokes, a power of two up to 65,536.
     * @param spokeCapacity    initial slots per spoke, a power of two; a spoke doubles when full.
     */
    public TimerWheel(
        final long startTimeNs, final long tickResolutionNs, final int ticksPerWheel, final int spokeCapacity)
    {
        if (tickResolutionNs <= 0)
        {
            throw new IllegalArgumentException("tickResolutionNs must be positive: " + tickResolutionNs);
        }
        if (Integer.bitCount(ticksPerWheel) != 1 || ticksPerWheel > (1 << SPOKE_BITS))
        {
            throw new IllegalArgumentException("ticksPerWheel must be a power of two <= 65536: " + ticksPerWheel);
        }
        if (Integer.bitCount(spokeCapacity) != 1 || spokeCapacity > (1 << POSITION_BITS))
        {
            throw new IllegalArgumentException("spokeCapacity must be a power of two: " + spokeCapacity);
        }
        this.startTimeNs = startTimeNs;
        this.tickResolutionNs = tickResolutionNs;
        this.tickMask = ticksPerWheel - 1;
        this.deadlines = new long[ticksPerWheel][];
        this.payloads = new long[ticksPerWheel][];
        this.generations = new int[ticksPerWheel][];
        this.spokeCounts = new int[ticksPerWheel];
        this.freePositions = new int[ticksPerWheel][];
        this.freeDepths = new int[ticksPerWheel];
        this.positionLimits = new int[ticksPerWheel];
        Arrays.fill(positionLimits, Integer.MAX_VALUE);
        Arrays.fill(freeDepths, spokeCapacity);
        this.initialSpokeCapacity = spokeCapacity;
        this.spells = new QuietSpells(ticksPerWheel, 2, spokeCapacity);
        this.generationFloors = new int[ticksPerWheel];
        for (int i = 0; i < ticksPerWheel; i++)
        {
            final long[] d = new long[spokeCapacity];
            Arrays.fill(d, NULL_DEADLINE);
            deadlines[i] = d;
            payloads[i] = new long[spokeCapacity];
            generations[i] = new int[spokeCapacity];
            freePositions[i] = new int[spokeCapacity];
            pushFree(freePositions[i], 0, spokeCapacity);
        }
        dueIds = new long[spokeCapacity];
        dueDeadlines = new long[spokeCapacity];
    }

    /** Schedules a timer with payload 0. */
    public long schedule(final long deadlineNs)
    {
        return schedule(deadlineNs, 0L);
    }

    /**
     * Schedules a timer.
     *
     * @param deadlineNs when it is due, on the clock the wheel was started with.
     * @param payload    a value kept with the timer and readable by {@link #payload(long)} while it lives (the
     *                   transaction layer stores which transaction and which RFC 3261 timer).
     * @return the timer id, never {@link #NULL_TIMER_ID}.
     */
    public long schedule(final long deadlineNs, final long payload)
    {
        final long tick = Math.max(tickOf(deadlineNs), currentTick);
        final int spoke = (int)(tick & tickMask);
        long[] d = deadlines[spoke];
        int depth = freeDepths[spoke];
        if (0 == depth && spokeCounts[spoke] < d.length)
        {
            giveBackHeld(spoke); // the lower positions ran out: the shrink waits for another quiet spell
            depth = freeDepths[spoke];
        }
        final int position;
        if (depth > 0)
        {
            position = freePositions[spoke][--depth];
            freeDepths[spoke] = depth;
        }
        else
        {
            position = d.length;
            d = grow(spoke);
        }
        d[position] = deadlineNs;
        payloads[spoke][position] = payload;
        spells.use(spoke, ++spokeCounts[spoke]);
        timerCount++;
        return ((long)generations[spoke][position] << GENERATION_SHIFT) | ((long)spoke << SPOKE_SHIFT) | position;
    }

    /**
     * Cancels a live timer in O(1).
     *
     * @return true when the id named a live timer; false for a stale, fired, cancelled or null id.
     */
    public boolean cancel(final long timerId)
    {
        if (!isLive(timerId))
        {
            return false;
        }
        free(spokeOf(timerId), positionOf(timerId));
        return true;
    }

    /** True while the timer is scheduled (not yet fired nor cancelled). */
    public boolean isLive(final long timerId)
    {
        if (timerId < 0)
        {
            return false;
        }
        final int spoke = spokeOf(timerId);
        final int position = positionOf(timerId);
        if (spoke > tickMask || position >= deadlines[spoke].length)
        {
            return false;
        }
        return NULL_DEADLINE != deadlines[spoke][position] && generations[spoke][position] == generationOf(timerId);
    }

    /** The deadline of a live timer, else {@link #NULL_DEADLINE}. */
    public long deadline(final long timerId)
    {
        return isLive(timerId) ? deadlines[spokeOf(timerId)][positionOf(timerId)] : NULL_DEADLINE;
    }

    /** The payload of a live timer (also inside {@link TimerHandler#onTimer}), else 0. */
    public long payload(final long timerId)
    {
        return isLive(timerId) ? payloads[spokeOf(timerId)][positionOf(timerId)] : 0L;
    }

    /**
     * Fires the timers due at {@code nowNs}: ticks in order, and within a tick in deadline order (ties in slot
     * order). A deadline already in the past when scheduled fires on the next poll.
     *
     * @param nowNs   the current time.
     * @param handler called for each due timer; a timer is removed when it returns true (it may schedule and cancel
     *                other timers meanwhile); false stops the poll and leaves the timer to fire again.
     * @param limit   the most timers to fire in this call; the rest wait for the next poll.
     * @return the number of timers fired.
     */
    public int poll(final long nowNs, final TimerHandler handler, final int limit)
    {
        int fired = 0;
        final long nowTick = tickOf(nowNs);
        while (fired < limit)
        {
            if (0 == timerCount)
            {
                if (nowTick > currentTick)
                {
                    currentTick = nowTick;
                }
                break;
            }
            final int spoke = (int)(currentTick & tickMask);
            if (spokeCounts[spoke] > 0)
            {
                final int due = collectDue(spoke, nowNs);
                for (int i = 0; i < due; i++)
                {
                    if (fired >= limit)
                    {
                        return fired;
                    }
                    final long timerId = dueIds[i];
                    if (!isLive(timerId))
                    {
                        continue; // cancelled by an earlier handler in this poll
                    }
                    if (!handler.onTimer(timerId, nowNs))
                    {
                        return fired;
                    }
                    if (isLive(timerId))
                    {
                        free(spoke, positionOf(timerId));
                    }
                    fired++;
                }
            }
            if (currentTick >= nowTick)
            {
                break;
            }
            currentTick++;
        }
        return fired;
    }

    /** Number of live timers. */
    public int timerCount()
    {
        return timerCount;
    }

    /** The tick the wheel has polled up to. */
    public long currentTick()
    {
        return currentTick;
    }

    public long tickResolutionNs()
    {
        return tickResolutionNs;
    }

    public int ticksPerWheel()
    {
        return tickMask + 1;
    }

    /** How many times a spoke had to grow (each growth allocates; steady state should add none). */
    public long spokeGrowths()
    {
        return spokeGrowths;
    }

    /** How many times {@link #trim} shrank a spoke. */
    public long spokeShrinks()
    {
        return spokeShrinks;
    }

    /** Slots of the largest spoke. */
    public int maxSpokeCapacity()
    {
        return dueIds.length;
    }

    /** Slots of all the spokes together. */
    public long totalSlots()
    {
        long n = 0;
        for (final long[] d : deadlines)
        {
            n += d.length;
        }
        return n;
    }

    /**
     * The owner's periodic duty (once a second; never from inside {@link #poll}): shrinks each grown spoke that has
     * held at most a quarter of its slots for {@link #QUIET_TRIMS} trims in a row to four times the most timers it held
     * over them (at least its initial capacity), when no live timer sits in the part let go. A spell whose most needs
     * every slot (a quarter exactly) starts a new spell, so the next one sizes the spoke by what it holds after the
     * burst. Allocates only when it shrinks.
     *
     * @return the number of spokes shrunk.
     */
    public int trim()
    {
        int shrunk = 0;
        int longest = initialSpokeCapacity;
        for (int spoke = 0; spoke <= tickMask; spoke++)
        {
            final int target = spells.trim(spoke, deadlines[spoke].length, spokeCounts[spoke], QUIET_TRIMS);
            if (QuietSpells.BUSY == target)
            {
                giveBackHeld(spoke);
            }
            else if (QuietSpells.KEEP != target)
            {
                shrunk += shrink(spoke, target) ? 1 : 0;
            }
            longest = Math.max(longest, deadlines[spoke].length);
        }
        if (dueIds.length > longest)
        {
            dueIds = new long[longest];
            dueDeadlines = new long[longest];
        }
        return shrunk;
    }

    /** Shrinks a quiet spoke to {@code target} slots when none of its live timers sits at or above it. */
    private boolean shrink(final int spoke, final int target)
    {
        final int length = deadlines[spoke].length;
        final long[] d = deadlines[spoke];
        final int[] g = generations[spoke];
        int floor = generationFloors[spoke];
        for (int i = target; i < length; i++)
        {
            if (NULL_DEADLINE != d[i])
            {
                holdBack(spoke, target); // a live timer up there: new timers take lower positions until it ends
                return false;
            }
            floor = Math.max(floor, g[i]);
        }
        generationFloors[spoke] = floor;
        deadlines[spoke] = Arrays.copyOf(d, target);
        payloads[spoke] = Arrays.copyOf(payloads[spoke], target);
        generations[spoke] = Arrays.copyOf(g, target);
        final int[] stack = new int[target];
        int depth = 0;
        for (int i = target - 1; i >= 0; i--)
        {
            if (NULL_DEADLINE == d[i])
            {
                stack[depth++] = i; // the lowest free position ends on top
            }
        }
        freePositions[spoke] = stack;
        freeDepths[spoke] = depth;
        positionLimits[spoke] = Integer.MAX_VALUE;
        spells.restart(spoke, spokeCounts[spoke]);
        spokeShrinks++;
        return true;
    }

    private long tickOf(final long timeNs)
    {
        final long elapsed = timeNs - startTimeNs;
        return elapsed <= 0 ? 0 : elapsed / tickResolutionNs;
    }

    private int collectDue(final int spoke, final long nowNs)
    {
        final long[] d = deadlines[spoke];
        final int[] g = generations[spoke];
        final long[] ids = dueIds;
        final long[] keys = dueDeadlines;
        int n = 0;
        for (int i = 0; i < d.length; i++)
        {
            final long deadline = d[i];
            if (deadline <= nowNs)
            {
                ids[n] = ((long)g[i] << GENERATION_SHIFT) | ((long)spoke << SPOKE_SHIFT) | i;
                keys[n] = deadline;
                n++;
            }
        }
        if (n > 1)
        {
            sort(ids, keys, n);
        }
        return n;
    }

    /** Sorts ids by deadline (then by id); insertion sort for short runs, in-place heap sort beyond. */
    private static void sort(final long[] ids, final long[] keys, final int n)
    {
        if (n <= INSERTION_SORT_MAX)
        {
            for (int i = 1; i < n; i++)
            {
                final long id = ids[i];
                final long key = keys[i];
                int j = i - 1;
                while (j >= 0 && (keys[j] > key || (keys[j] == key && ids[j] > id)))
                {
                    ids[j + 1] = ids[j];
                    keys[j + 1] = keys[j];
                    j--;
                }
                ids[j + 1] = id;
                keys[j + 1] = key;
            }
            return;
        }
        for (int i = n / 2 - 1; i >= 0; i--)
        {
            siftDown(ids, keys, i, n);
        }
        for (int end = n - 1; end > 0; end--)
        {
            swap(ids, keys, 0, end);
            siftDown(ids, keys, 0, end);
        }
    }

    private static void siftDown(final long[] ids, final long[] keys, final int from, final int n)
    {
        int i = from;
        while (true)
        {
            final int left = 2 * i + 1;
            if (left >= n)
            {
                return;
            }
            int largest = left;
            final int right = left + 1;
            if (right < n && greater(ids, keys, right, left))
            {
                largest = right;
            }
            if (!greater(ids, keys, largest, i))
            {
                return;
            }
            swap(ids, keys, i, largest);
            i = largest;
        }
    }

    private static boolean greater(final long[] ids, final long[] keys, final int a, final int b)
    {
        return keys[a] > keys[b] || (keys[a] == keys[b] && ids[a] > ids[b]);
    }

    private static void swap(final long[] ids, final long[] keys, final int a, final int b)
    {
        final long id = ids[a];
        ids[a] = ids[b];
        ids[b] = id;
        final long key = keys[a];
        keys[a] = keys[b];
        keys[b] = key;
    }

    /** From now on the spoke's free positions from {@code limit} up are held back: new timers take lower ones. */
    private void holdBack(final int spoke, final int limit)
    {
        if (positionLimits[spoke] == limit)
        {
            return;
        }
        positionLimits[spoke] = limit;
        final int[] stack = freePositions[spoke];
        final int depth = freeDepths[spoke];
        int kept = 0;
        for (int i = 0; i < depth; i++)
        {
            if (stack[i] < limit)
            {
                stack[kept++] = stack[i];
            }
        }
        freeDepths[spoke] = kept;
    }

    /** Ends {@link #holdBack}: the spoke's free positions held back go back on its stack. Allocates nothing. */
    private void giveBackHeld(final int spoke)
    {
        final int limit = positionLimits[spoke];
        if (Integer.MAX_VALUE == limit)
        {
            return;
        }
        final long[] d = deadlines[spoke];
        final int[] stack = freePositions[spoke];
        int depth = freeDepths[spoke];
        for (int i = d.length - 1; i >= limit; i--)
        {
            if (NULL_DEADLINE == d[i])
            {
                stack[depth++] = i;
            }
        }
        freeDepths[spoke] = depth;
        positionLimits[spoke] = Integer.MAX_VALUE;
    }

    private void free(final int spoke, final int position)
    {
        if (position < positionLimits[spoke])
        {
            freePositions[spoke][freeDepths[spoke]++] = position;
        }
        deadlines[spoke][position] = NULL_DEADLINE;
        payloads[spoke][position] = 0L;
        generations[spoke][position] = (generations[spoke][position] + 1) & GENERATION_MASK;
        spokeCounts[spoke]--;
        timerCount--;
    }

    /** Doubles one spoke (rare: a tick got more timers than it ever had); the only allocation after construction. */
    private long[] grow(final int spoke)
    {
        final int oldLength = deadlines[spoke].length;
        final int newLength = oldLength << 1;
        if (newLength > (1 << POSITION_BITS))
        {
            throw new IllegalStateException("too many timers in one tick: " + oldLength);
        }
        final long[] d = Arrays.copyOf(deadlines[spoke], newLength);
        Arrays.fill(d, oldLength, newLength, NULL_DEADLINE);
        deadlines[spoke] = d;
        payloads[spoke] = Arrays.copyOf(payloads[spoke], newLength);
        generations[spoke] = Arrays.copyOf(generations[spoke], newLength);
        // a slot dropped by a shrink may have issued ids still held: its new generations start above them
        Arrays.fill(generations[spoke], oldLength, newLength, generationFloors[spoke]);
        // every old position is live (a spoke grows only when full): the free ones are the new half
        freePositions[spoke] = new int[newLength];
        pushFree(freePositions[spoke], oldLength, newLength);
        freeDepths[spoke] = newLength - oldLength - 1; // the caller takes the lowest new position, on top
        positionLimits[spoke] = Integer.MAX_VALUE; // a spoke that fills up is busy: no shrink waits on it
        if (dueIds.length < newLength)
        {
            // A handler may schedule into the spoke being polled: keep the ids collected so far.
            dueIds = Arrays.copyOf(dueIds, newLength);
            dueDeadlines = Arrays.copyOf(dueDeadlines, newLength);
        }
        spokeGrowths++;
        return d;
    }

    /**
     * Puts positions {@code [from, to)} on an empty free stack, the lowest on top: a fresh spoke fills from its start,
     * in the order its timers are scheduled.
     */
    private static void pushFree(final int[] stack, final int from, final int to)
    {
        for (int i = 0; i < to - from; i++)
        {
            stack[i] = to - 1 - i;
        }
    }

    private static int spokeOf(final long timerId)
    {
        return (int)((timerId >>> SPOKE_SHIFT) & SPOKE_MASK);
    }

    private static int positionOf(final long timerId)
    {
        return (int)(timerId & POSITION_MASK);
    }

    private static int generationOf(final long timerId)
    {
        return (int)(timerId >>> GENERATION_SHIFT) & GENERATION_MASK;
    }
}
