package io.sipline.sip.transaction;

import java.util.Arrays;

/**
 * One shard's transaction objects: the registry that finds a transaction by its index ({@link Transaction#index},
 * the number its timers carry) and a free list of each of the four machines, linked through
 * {@link Transaction#nextFree}. An acquire takes the head of its kind's list, or makes an object (a counted miss);
 * a terminated transaction goes back to the head. In steady state nothing is made and nothing let go.
 *
 * <p><b>Following recent use.</b> Once a second ({@link #trim}, from the layer's duty cycle) each kind keeps as many
 * free objects as it acquired over the window, at least its floor (the configured initial size, and
 * {@link #MIN_KEPT}); the rest leave the registry and go to the collector. The window is twice a transaction's
 * longest life (Timer D: 32 s, or 64*T1 when T1 is larger, RFC 3261 §17.1.1.2), 64 s by default: a transaction
 * goes back to the pool up to one life after its acquire, so a steady load that pauses for up to one life still finds
 * its objects when it resumes (the free ones never outnumber the acquires of the window), while the objects a flood
 * made are gone about a minute after it. A steady load acquires as many as it frees and nothing goes.
 *
 * <p><b>Indices.</b> A released object's index becomes a hole: its registry slot is null and a bitmap marks it. A new
 * object takes the lowest hole (else the next index), so the registry stays compact; the holes at its top are given
 * back at once ({@link #limit()} shrinks), and a chunk of {@link #CHUNK} slots left with no object is dropped. When
 * the objects are spread over more chunks than they fill (a burst's kept ones), a trim moves free objects down into
 * the lowest holes ({@link #compact}), so that the chunks above empty. A
 * timer can carry the index of a released object, or of a hole taken since by another object, only if it outlived
 * its transaction, which {@link TransactionLayer#terminate} never lets happen (it cancels both timers first); the
 * layer still acts on a fired timer only when the object at its index holds that very timer id (the wheel's ids carry
 * a generation), so such a timer would find null or a stranger and do nothing. Ids ({@link Transaction#id}) keep
 * rising across reuse, so a handle kept by a user ({@code tx}, {@code id}) or a peer scan's id bound stays exact.
 *
 * <p>Buffers: none (a free transaction holds none). Not thread-safe; owned by one shard, whose thread runs every
 * method. Allocates only on a miss, on the registry's growth, and when a dropped chunk is needed again.
 */
final class TransactionPool
{
    /** How often {@link #trim} looks at the free lists. */
    static final long TRIM_PERIOD_NS = 1_000_000_000L;
    /** Trims over which the acquires are counted, at the least. */
    static final int MIN_WINDOW = 10;
    /** Free objects of each kind a trim always leaves. */
    static final int MIN_KEPT = 64;
    /** Transactions per chunk of the registry (a power of two). */
    private static final int CHUNK_BITS = 10;
    static final int CHUNK = 1 << CHUNK_BITS;

    private final TransactionLayer layer;
    /** Free objects of each kind a trim leaves whatever the recent use. */
    private final int floor;
    /**
     * Every object held, by index, in chunks of {@link #CHUNK}: growing adds a chunk and, rarely, copies the small
     * outer array, never every transaction (one copy of a 400,000-entry array held a shard for milliseconds).
     */
    private Transaction[][] registry;
    /** Objects in each chunk; a chunk that reaches 0 is dropped. */
    private int[] chunkObjects;
    /** Bit i set: index i, below {@link #limit}, has no object. */
    private long[] holes;
    private int holeCount;
    /** No hole below this index. */
    private int lowestHole;
    /** Every object's index is below it: the bound of a registry walk. */
    private int limit;
    private int objects;
    private final Transaction[] free = new Transaction[TransactionLayer.KINDS];
    private final int[] freeCount = new int[TransactionLayer.KINDS];
    private final long[] acquiresOf = new long[TransactionLayer.KINDS];
    /** {@link #acquiresOf} at each of the last {@link #window()} trims (a ring). */
    private final long[][] acquiredAtTrims;
    private int trims;
    private long nextTrimNs;
    private long nextId = 1;
    private long acquires;
    private long misses;
    private long releases;
    private long trimmed;

    /**
     * @param layer   the owner of the machines made here.
     * @param perKind objects of each kind made now, and the floor of each kind's free list.
     * @param lifeNs  the longest life of a transaction from its acquire (the window is twice that).
     */
    TransactionPool(final TransactionLayer layer, final int perKind, final long lifeNs)
    {
        this.layer = layer;
        this.floor = Math.max(MIN_KEPT, perKind);
        final long window = (2 * lifeNs + TRIM_PERIOD_NS - 1) / TRIM_PERIOD_NS;
        this.acquiredAtTrims = new long[(int)Math.max(MIN_WINDOW, window)][TransactionLayer.KINDS];
        final int chunks = Math.max(1, (perKind * TransactionLayer.KINDS + CHUNK - 1) / CHUNK);
        registry = new Transaction[chunks][];
        chunkObjects = new int[chunks];
        holes = new long[chunks * (CHUNK / Long.SIZE)];
        for (int kind = 0; kind < TransactionLayer.KINDS; kind++)
        {
            for (int i = 0; i < perKind; i++)
            {
                push(make(kind));
            }
        }
    }

    /** A reset transaction of {@code kind} with a fresh id: the head of its free list, or a new one (a miss). */
    Transaction acquire(final int kind)
    {
        acquires++;
        acquiresOf[kind]++;
        Transaction tx = free[kind];
        if (null != tx)
        {
            free[kind] = tx.nextFree;
            tx.nextFree = null;
            freeCount[kind]--;
        }
        else
        {
            misses++;
            tx = make(kind); // a miss: allocate, counted; kept while recent use needs it
        }
        tx.id = nextId++;
        return tx;
    }

    /** A terminated, reset transaction back to its free list. */
    void release(final Transaction tx)
    {
        releases++;
        push(tx);
    }

    /**
     * Once a second (earlier calls return at once): lets go of the free objects of each kind beyond what the last
     * {@link #window()} trims acquired, keeping at least the floor. Allocates nothing.
     *
     * @param nowNs the shard's monotonic clock.
     * @return the objects let go.
     */
    int trim(final long nowNs)
    {
        if (trims > 0 && nowNs - nextTrimNs < 0)
        {
            return 0;
        }
        nextTrimNs = nowNs + TRIM_PERIOD_NS;
        // the ring's slot holds the counts of a window ago (0 before the ring is full: all acquires count)
        final long[] then = acquiredAtTrims[trims % acquiredAtTrims.length];
        trims++;
        int released = 0;
        for (int kind = 0; kind < TransactionLayer.KINDS; kind++)
        {
            final long keep = Math.max(floor, acquiresOf[kind] - then[kind]);
            then[kind] = acquiresOf[kind];
            while (freeCount[kind] > keep)
            {
                final Transaction tx = free[kind];
                free[kind] = tx.nextFree;
                tx.nextFree = null;
                freeCount[kind]--;
                forget(tx);
                released++;
            }
        }
        trimmed += released;
        if (chunks() > (objects + CHUNK - 1) / CHUNK)
        {
            compact(); // the objects kept are spread over more chunks than they fill
        }
        shrink();
        return released;
    }

    /** The transaction at {@code index} of the registry ({@link Transaction#index}), or null for a hole. */
    Transaction registered(final int index)
    {
        final Transaction[] chunk = registry[index >>> CHUNK_BITS];
        return null == chunk ? null : chunk[index & (CHUNK - 1)];
    }

    /** Trims done so far: a caller sees a trim happen when this changes. */
    int trims()
    {
        return trims;
    }

    /** Trims over which the acquires are counted. */
    int window()
    {
        return acquiredAtTrims.length;
    }

    /** Every object's index is below this: where a walk of the registry ends (holes on the way read null). */
    int limit()
    {
        return limit;
    }

    /** The id the next transaction acquired gets: every transaction live now has a lower one. */
    long nextId()
    {
        return nextId;
    }

    /** Objects held, in use and free. */
    int objects()
    {
        return objects;
    }

    /** Free objects, the four kinds together. */
    int freeObjects()
    {
        int n = 0;
        for (int kind = 0; kind < TransactionLayer.KINDS; kind++)
        {
            n += freeCount[kind];
        }
        return n;
    }

    /** Free objects of one kind. */
    int freeObjects(final int kind)
    {
        return freeCount[kind];
    }

    /** Indices below {@link #limit()} with no object. */
    int holes()
    {
        return holeCount;
    }

    /** Chunks of the registry allocated now. */
    int chunks()
    {
        int n = 0;
        for (final Transaction[] chunk : registry)
        {
            n += null == chunk ? 0 : 1;
        }
        return n;
    }

    long acquires()
    {
        return acquires;
    }

    long misses()
    {
        return misses;
    }

    long releases()
    {
        return releases;
    }

    /** Free objects let go by {@link #trim}. */
    long trimmed()
    {
        return trimmed;
    }

    private void push(final Transaction tx)
    {
        final int kind = tx.kind;
        tx.nextFree = free[kind];
        free[kind] = tx;
        freeCount[kind]++;
    }

    /** A new object of {@code kind}, registered at the lowest hole, else at the next index. */
    private Transaction make(final int kind)
    {
        final int index = holeCount > 0 ? takeLowestHole() : limit++;
        final Transaction tx = switch (kind)
        {
            case TransactionLayer.KIND_INVITE_CLIENT -> new InviteClientTransaction(layer, index);
            case TransactionLayer.KIND_NON_INVITE_CLIENT -> new NonInviteClientTransaction(layer, index);
            case TransactionLayer.KIND_INVITE_SERVER -> new InviteServerTransaction(layer, index);
            default -> new NonInviteServerTransaction(layer, index);
        };
        tx.reset();
        register(tx, index);
        return tx;
    }

    /** Puts {@code tx} at {@code index} of the registry (taken from the holes or the top by the caller). */
    private void register(final Transaction tx, final int index)
    {
        final int chunk = index >>> CHUNK_BITS;
        if (chunk == registry.length)
        {
            // the outer array, a slot per chunk, and what follows its size: rare, and small
            registry = Arrays.copyOf(registry, registry.length * 2);
            chunkObjects = Arrays.copyOf(chunkObjects, registry.length);
            holes = Arrays.copyOf(holes, registry.length * (CHUNK / Long.SIZE));
        }
        if (null == registry[chunk])
        {
            registry[chunk] = new Transaction[CHUNK];
        }
        tx.index = index;
        registry[chunk][index & (CHUNK - 1)] = tx;
        chunkObjects[chunk]++;
        objects++;
    }

    /**
     * Moves free objects above the lowest hole down into the holes, so that the chunks above them empty and go: after
     * a burst the objects kept are those released first, at any index, and a few of them would hold every chunk the
     * burst made. A free object has no timer (the layer cancels both before releasing it), so no payload carries its
     * index. Allocates only when a hole's chunk was dropped (the chunks it empties go).
     */
    private void compact()
    {
        for (int kind = 0; kind < TransactionLayer.KINDS; kind++)
        {
            for (Transaction tx = free[kind]; null != tx && holeCount > 0; tx = tx.nextFree)
            {
                if (lowestHoleIndex() < tx.index)
                {
                    forget(tx); // its index becomes a hole above the lowest: the one taken next is below it
                    register(tx, takeLowestHole());
                }
            }
        }
    }

    /** The lowest hole's index, not taken; there must be one. */
    private int lowestHoleIndex()
    {
        int word = lowestHole >>> 6;
        while (0 == holes[word])
        {
            word++;
        }
        return (word << 6) + Long.numberOfTrailingZeros(holes[word]);
    }

    private int takeLowestHole()
    {
        int word = lowestHole >>> 6;
        while (0 == holes[word])
        {
            word++;
        }
        final int index = (word << 6) + Long.numberOfTrailingZeros(holes[word]);
        holes[word] &= ~(1L << index);
        holeCount--;
        lowestHole = index + 1;
        return index;
    }

    /** A free object out of the registry: its index becomes a hole, its chunk goes once empty. */
    private void forget(final Transaction tx)
    {
        final int index = tx.index;
        final int chunk = index >>> CHUNK_BITS;
        registry[chunk][index & (CHUNK - 1)] = null;
        holes[index >>> 6] |= 1L << index;
        holeCount++;
        lowestHole = Math.min(lowestHole, index);
        objects--;
        if (0 == --chunkObjects[chunk])
        {
            registry[chunk] = null; // no object left in it: the next one made there allocates it again
        }
    }

    /** Gives back the holes at the top of the registry: the next index made is right after the highest object. */
    private void shrink()
    {
        while (limit > 0 && 0 != (holes[(limit - 1) >>> 6] & (1L << (limit - 1))))
        {
            limit--;
            holes[limit >>> 6] &= ~(1L << limit);
            holeCount--;
        }
    }
}
