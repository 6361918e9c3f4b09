package io.sipline.sip.collection;

/**
 * A primitive open-addressing map from a 64-bit key (a hash, or an id's random bits) to values, with linear probing
 * and backward-shift deletion (no tombstones), that grows without a stall. It serves a shard's transaction table, its
 * dialog indexes and the container's sessions by dialog: several values may share a key (a CANCEL and its INVITE under
 * RFC 2543 matching, the dialogs of one dialog set, or a collision), so the caller walks the values under a key with
 * {@link #first} and {@link #next} and compares its own bytes on each; no key object, no boxing, no iterator, no
 * entry object is ever made.
 *
 * <pre>
 *   keys[]:   | k0 | 0 | k2 | k3 | 0 | ...      slot = mix(key) &amp; mask; a run ends at the first empty slot
 *   values[]: | v0 |   | v2 | v3 |   | ...
 * </pre>
 *
 * <p>A probe reads the keys only, until it finds its key: a slot whose key is 0 is empty, unless a value was ever put
 * under key 0 ({@link #zeroKeys}), when its value says. The tables outgrow the caches (a shard holds hundreds of
 * thousands of transactions), so a lookup that finds nothing, and an insert, touch one array instead of two.
 *
 * <p>Growth doubles at half load and moves the old slots a few per {@link #put} ({@link #previousKeys} says how and
 * why); what stays per growth is the allocation of the new arrays (the JVM zeroes them). The owner's once-a-second
 * {@link #trim} shrinks an index that a burst grew, once its size has stayed at an eighth of its slots or less for as
 * many trims as the owner asks, back towards its initial capacity, by the same migration; in steady state a trim
 * compares a few integers and allocates nothing.
 *
 * <p>Not thread-safe; owned by one shard.
 *
 * @param <V> the values; compared by identity
 */
public final class LongHashIndex<V>
{
    /** Slots of the previous table moved by each put while a growth is under way. */
    public static final int MIGRATE_PER_PUT = 8;
    /** Slots of the previous table a {@link #trim} moves, besides those the puts move. */
    public static final int MIGRATE_PER_TRIM = 16_384;
    /** A cursor bit: the slot is in the previous table. Tables stay below 2^30 slots. */
    private static final int IN_PREVIOUS = 1 << 30;
    /** Left in a previous table's slot whose value has moved: keeps the probe runs through it unbroken. */
    private static final Object MOVED = new Object();

    private final int migratePerPut;
    private long[] keys;
    private Object[] values;
    private int mask;
    /**
     * At half load the index doubles without rehashing everything at once: a shard that jumps from a few hundred to
     * several thousand calls per second holds hundreds of thousands of transactions (each lives up to 64*T1 = 32 s,
     * RFC 3261 §17), and rehashing all of them in one go would hold the shard for milliseconds; held calls fill the
     * dialog and session indexes the same way. Instead the old arrays stay beside the new ones as this previous
     * table, and every {@link #put} moves the values of a few of its slots ({@link #MIGRATE_PER_PUT}) into the new
     * one, leaving {@link #MOVED} behind so that the previous table's probe runs stay whole. Lookups walk the current
     * table, then the previous one; removal takes a value out of whichever holds it. The previous table holds at most
     * a quarter of the new capacity in half as many slots, so it is empty long before the new table reaches half
     * load (a migration takes capacity/16 puts, the next growth at least capacity/4); its arrays are then dropped.
     * A shrink ({@link #trim}) makes the previous table the larger one, holding at most a quarter of the new
     * capacity; the trims move {@link #MIGRATE_PER_TRIM} of its slots each besides the puts', so that an idle index
     * lets go of it too, and a growth that comes first moves what is left at once.
     */
    private long[] previousKeys;
    private Object[] previousValues;
    private int previousMask;
    /** Slots of the previous table below this one have been moved. */
    private int migrated;
    private int size;
    private long growths;
    private long shrinks;
    private final int initialCapacity;
    /** The quiet spell, at an eighth of the slots or less, that {@link #trim} shrinks the index after. */
    private final QuietSpells spell;
    /**
     * Whether a value was ever put under key 0: from then on a slot whose key is 0 may hold one, and its value (null
     * or not) tells whether it is empty. Hash keys are 0 once in 2^64, so this stays false but for a test.
     */
    private boolean zeroKeys;

    /** An index of at least {@code initialCapacity} slots (a power of two, 16 or more) that grows a little per put. */
    public LongHashIndex(final int initialCapacity)
    {
        this(initialCapacity, MIGRATE_PER_PUT);
    }

    /**
     * @param migratePerPut slots of the previous table moved per put while growing; {@link Integer#MAX_VALUE} moves
     *     them all in the put that grows the index (a rehash at once: the baseline the benchmark measures against).
     */
    public LongHashIndex(final int initialCapacity, final int migratePerPut)
    {
        if (migratePerPut < 1)
        {
            throw new IllegalArgumentException("migratePerPut must be at least 1: " + migratePerPut);
        }
        if (initialCapacity > (1 << 29))
        {
            throw new IllegalArgumentException("initialCapacity over 2^29 slots: " + initialCapacity);
        }
        final int capacity = Math.max(16, Integer.highestOneBit(Math.max(1, initialCapacity - 1)) << 1);
        this.migratePerPut = migratePerPut;
        this.initialCapacity = capacity;
        this.spell = new QuietSpells(1, 3, capacity);
        keys = new long[capacity];
        values = new Object[capacity];
        mask = capacity - 1;
    }

    /** Values held, in both tables. */
    public int size()
    {
        return size;
    }

    /** Slots of the current table. */
    public int capacity()
    {
        return values.length;
    }

    /** How many times the index has doubled. */
    public long growths()
    {
        return growths;
    }

    /** How many times a {@link #trim} has shrunk the index. */
    public long shrinks()
    {
        return shrinks;
    }

    /** Whether a growth or a shrink is under way: some values are still in the previous table. */
    public boolean migrating()
    {
        return null != previousValues;
    }

    /** Cursor of the first value under {@code key}, or -1 when there is none. */
    public int first(final long key)
    {
        final int i = match(keys, values, mask, slot(key, mask), key, zeroKeys);
        return i >= 0 ? i : firstInPrevious(key);
    }

    /** Cursor of the next value under {@code key} after {@code cursor} (of {@link #first} or this), or -1. */
    public int next(final int cursor, final long key)
    {
        if (0 == (cursor & IN_PREVIOUS))
        {
            final int i = match(keys, values, mask, (cursor + 1) & mask, key, zeroKeys);
            return i >= 0 ? i : firstInPrevious(key);
        }
        final int i = match(previousKeys, previousValues, previousMask, ((cursor & ~IN_PREVIOUS) + 1) & previousMask,
            key, zeroKeys);
        return i < 0 ? -1 : i | IN_PREVIOUS;
    }

    /** The value at a cursor of {@link #first} or {@link #next}. */
    @SuppressWarnings("unchecked")
    public V valueAt(final int cursor)
    {
        return (V)(0 == (cursor & IN_PREVIOUS) ? values[cursor] : previousValues[cursor & ~IN_PREVIOUS]);
    }

    /** Puts {@code value} in place of the value at a cursor of {@link #first} or {@link #next}, under the same key. */
    public void setAt(final int cursor, final V value)
    {
        if (null == value)
        {
            throw new NullPointerException("value");
        }
        if (0 == (cursor & IN_PREVIOUS))
        {
            values[cursor] = value;
        }
        else
        {
            previousValues[cursor & ~IN_PREVIOUS] = value;
        }
    }

    /** Adds {@code value} under {@code key}, beside any others there; moves a few slots when a growth is under way. */
    public void put(final long key, final V value)
    {
        if (null == value)
        {
            throw new NullPointerException("value");
        }
        if ((size + 1) * 2 > values.length)
        {
            if (null != previousValues)
            {
                migrate(Integer.MAX_VALUE); // only when a load comes back during a shrink: two tables at most
            }
            grow();
        }
        if (null != previousValues)
        {
            migrate(migratePerPut);
        }
        if (0 == key)
        {
            zeroKeys = true;
        }
        insert(key, value);
        spell.use(0, ++size);
    }

    /**
     * The owner's periodic duty (once a second): moves up to {@link #MIGRATE_PER_TRIM} slots of a previous table,
     * and, when the index has held at most an eighth of its slots at every moment of the last {@code quietTrims}
     * trims, starts a shrink to the smallest power of two of at least four times the largest size seen over them
     * (never below the initial capacity), so that the next growth is two doublings of the load away. Allocates only
     * when it starts a shrink. Call it between operations: a cursor does not survive it.
     *
     * @param quietTrims trims in a row the index must stay that sparse for (at least 1).
     * @return true when this trim started a shrink.
     */
    public boolean trim(final int quietTrims)
    {
        if (null != previousValues)
        {
            migrate(MIGRATE_PER_TRIM);
        }
        final int target = spell.trim(0, values.length, size, Math.max(1, quietTrims));
        if (target <= QuietSpells.KEEP || null != previousValues)
        {
            return false; // not quiet long enough, or a migration under way: the next trim asks again
        }
        spell.restart(0, size);
        previousKeys = keys;
        previousValues = values;
        previousMask = mask;
        migrated = 0;
        values = new Object[target];
        keys = new long[target];
        mask = target - 1;
        shrinks++;
        migrate(MIGRATE_PER_TRIM);
        return true;
    }

    /** Removes exactly {@code value} (by identity) from under {@code key}; false when it is not there. */
    public boolean remove(final long key, final V value)
    {
        final int i = indexOf(keys, values, mask, key, value, zeroKeys);
        if (i >= 0)
        {
            removeAt(i);
        }
        else
        {
            // In the previous table: marked moved, so that the run through its slot stays whole.
            final int j = null == previousValues ? -1 : indexOf(previousKeys, previousValues, previousMask, key, value,
                zeroKeys);
            if (j < 0)
            {
                return false;
            }
            previousValues[j] = MOVED;
        }
        size--;
        return true;
    }

    /**
     * Points the entry that holds {@code old} (by identity) under {@code key} at {@code replacement}; false if absent.
     */
    public boolean replace(final long key, final V old, final V replacement)
    {
        for (int c = first(key); c >= 0; c = next(c, key))
        {
            if (valueAt(c) == old)
            {
                setAt(c, replacement);
                return true;
            }
        }
        return false;
    }

    /** Backward-shift deletion (Knuth 6.4, algorithm R): pulls later members of the run into the hole. */
    private void removeAt(final int i)
    {
        int hole = i;
        int j = (i + 1) & mask;
        while (occupied(keys, values, j, zeroKeys))
        {
            final int home = slot(keys[j], mask);
            // the value at j may move into the hole when its home is not cyclically within (hole, j]
            final boolean movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
            if (movable)
            {
                values[hole] = values[j];
                keys[hole] = keys[j];
                hole = j;
            }
            j = (j + 1) & mask;
        }
        values[hole] = null;
        keys[hole] = 0;
    }

    /** The slot of {@code value} along the run of {@code key}, or -1. */
    private static int indexOf(final long[] keys, final Object[] values, final int mask, final long key,
        final Object value, final boolean zeroKeys)
    {
        for (int i = slot(key, mask); occupied(keys, values, i, zeroKeys); i = (i + 1) & mask)
        {
            if (keys[i] == key && values[i] == value)
            {
                return i;
            }
        }
        return -1;
    }

    /** Whether slot {@code i} holds a value (or, in a previous table, {@link #MOVED}): its key says, but for key 0. */
    private static boolean occupied(final long[] keys, final Object[] values, final int i, final boolean zeroKeys)
    {
        return 0 != keys[i] || (zeroKeys && null != values[i]);
    }

    private int firstInPrevious(final long key)
    {
        if (null == previousValues)
        {
            return -1;
        }
        final int i = match(previousKeys, previousValues, previousMask, slot(key, previousMask), key, zeroKeys);
        return i < 0 ? -1 : i | IN_PREVIOUS;
    }

    /**
     * From slot {@code from} along its run: the first slot holding a value under {@code key}, else -1. The values
     * array is read only where the key matches (or is 0 while {@link #zeroKeys}).
     */
    private static int match(final long[] keys, final Object[] values, final int mask, final int from, final long key,
        final boolean zeroKeys)
    {
        for (int i = from; ; i = (i + 1) & mask)
        {
            final long k = keys[i];
            if (k == key)
            {
                final Object v = values[i];
                if (null == v)
                {
                    return -1; // key 0 on an empty slot
                }
                if (v != MOVED)
                {
                    return i;
                }
            }
            else if (0 == k && (!zeroKeys || null == values[i]))
            {
                return -1;
            }
        }
    }

    private void insert(final long key, final Object value)
    {
        int i = slot(key, mask);
        while (occupied(keys, values, i, zeroKeys))
        {
            i = (i + 1) & mask;
        }
        values[i] = value;
        keys[i] = key;
    }

    /** Starts a growth: the current arrays become the previous table, emptied by {@link #migrate}. */
    private void grow()
    {
        previousKeys = keys;
        previousValues = values;
        previousMask = mask;
        migrated = 0;
        values = new Object[previousValues.length * 2];
        keys = new long[previousValues.length * 2];
        mask = values.length - 1;
        growths++;
    }

    /** Moves the values of up to {@code slots} slots of the previous table; drops it once every slot is done. */
    private void migrate(final int slots)
    {
        final Object[] from = previousValues;
        final long[] fromKeys = previousKeys;
        final int end = (int)Math.min(from.length, (long)migrated + slots);
        for (int i = migrated; i < end; i++)
        {
            final Object v = from[i];
            if (null != v && v != MOVED)
            {
                insert(fromKeys[i], v);
                from[i] = MOVED;
            }
        }
        migrated = end;
        if (end == from.length)
        {
            previousValues = null;
            previousKeys = null;
        }
    }

    /** The home slot of a key: its bits mixed (MurmurHash3's finaliser), so that keys with few varying bits spread. */
    private static int slot(final long key, final int mask)
    {
        long h = key;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return (int)h & mask;
    }
}
