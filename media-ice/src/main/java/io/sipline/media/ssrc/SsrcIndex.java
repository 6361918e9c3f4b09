package io.sipline.media.ssrc;

import java.util.Arrays;
import java.util.Objects;

/**
 * The streams of one SRTP session found by their 32-bit SSRC: streams in flat arrays scanned with SIMD instead of
 * libsrtp's linked list, in pure Java with the JDK Vector API and a scalar fallback. The layouts are drawn on
 * {@link #ssrcs} (dense arrays) and {@link #tableKeys} (open-addressing table).
 *
 * <p>A lookup depends on the number of entries {@code N} ({@link Strategy#AUTO}): at N = 1 one compare with a copy
 * of entry 0's SSRC in a field; at N = 2 a branch-free test of two such copies; up to {@link #TABLE_UP_VECTOR} one
 * {@code IntVector} step over {@code ssrcs} ({@link SsrcVectorScan}); above it (above {@link #TABLE_UP_SCALAR}
 * without SIMD) the table, probed 16 keys at a time, with hysteresis (back to the array at half the threshold). The
 * thresholds come from {@code io.sipline.jmh.SsrcLookupBenchmark} (see {@code docs/media.md}).
 *
 * <p>Template stream: as in libsrtp, {@link #getOrTemplate(int)} returns the template for an SSRC not seen yet; the
 * caller adds the concrete stream only once a packet authenticates, so forged SSRCs cannot fill the index.
 * Lookups, {@link #remove}, {@link #clear} and {@link #add} below capacity allocate nothing (layout switches
 * included); an {@code add} at full capacity doubles the arrays.
 *
 * <p>Not threadsafe; owned by the media thread of its SRTP session, which makes every call, lookups included (no
 * memory ordering is used). Hand a session to another thread through that thread's queue.
 *
 * @param <S> the stream type; the index never looks inside a stream.
 */
public final class SsrcIndex<S>
{
    /** How an index finds an SSRC. */
    public enum Strategy
    {
        /** Choose the layout and the scan by the number of entries (the production choice). */
        AUTO,
        /** Always the dense arrays and the {@code IntVector} scan, even for one entry (tests and benchmarks). */
        VECTOR,
        /** Always the dense arrays, always a scalar loop (for tests, benchmarks and machines without SIMD). */
        SCALAR,
        /** Always the open-addressing table, even for one entry (for tests and benchmarks). */
        TABLE
    }

    /** Where lookups go at the moment. */
    public enum Layout
    {
        /** A scan of the dense SSRC array. */
        ARRAY,
        /** A probe of the open-addressing table. */
        TABLE
    }

    /** System property: {@code false} makes {@link Strategy#AUTO} scan with scalar code even where SIMD works. */
    public static final String VECTOR_PROP_NAME = "sipline.media.ssrc.vector";

    /** Default of {@link #VECTOR_PROP_NAME}. */
    public static final boolean VECTOR_DEFAULT = true;

    /** True when the Vector API is usable at all: {@code jdk.incubator.vector} is in the boot layer. */
    public static final boolean VECTOR_SUPPORTED = vectorSupported();

    /**
     * True when {@link Strategy#AUTO} scans with SIMD: supported, at least 4 int lanes in
     * {@code IntVector.SPECIES_PREFERRED}, and not switched off with {@link #VECTOR_PROP_NAME}.
     */
    public static final boolean VECTOR_PREFERRED = VECTOR_SUPPORTED && vectorLanes() >= 4 &&
        Boolean.parseBoolean(System.getProperty(VECTOR_PROP_NAME, Boolean.toString(VECTOR_DEFAULT)));

    /** The smallest length of the dense arrays. */
    static final int MIN_PAD = 4;

    /** Above this many entries {@link Strategy#AUTO} switches to the table when it scans with SIMD. */
    public static final int TABLE_UP_VECTOR = 16;

    /** Above this many entries {@link Strategy#AUTO} switches to the table when SIMD is not used. */
    public static final int TABLE_UP_SCALAR = 1;

    /** Capacity used by the constructors that take none. */
    public static final int DEFAULT_CAPACITY = 16;

    /** The dense arrays' length is a multiple of this: the vector lanes, and at least {@link #MIN_PAD}. */
    static final int PAD = Math.max(MIN_PAD, VECTOR_SUPPORTED ? vectorLanes() : 1);

    /** Slots of the table per entry of capacity: the table's load factor stays at or below 1/4. */
    static final int TABLE_SLOTS_PER_ENTRY = 4;

    /** The key of an empty table slot; SSRC 0 itself is kept in a field beside the table. */
    static final int EMPTY = 0;

    /** Fibonacci hashing: 2^32 divided by the golden ratio, odd, spreads sequential SSRCs over the table. */
    private static final int GOLDEN = 0x9E3779B9;

    private static final int MODE_SCALAR = 0;
    private static final int MODE_ONE = 1;
    private static final int MODE_VECTOR = 2;
    private static final int MODE_TABLE = 3;
    /** One vector step over the dense array: at most {@link SsrcVectorScan#LANES} entries. */
    private static final int MODE_STEP = 4;
    /** One 128-bit step: at most 4 entries, when the preferred species is wider (see SsrcVectorScan). */
    private static final int MODE_STEP_4 = 5;
    /** One 256-bit step: 5 to 8 entries, where the preferred species is wider than 8 lanes. */
    private static final int MODE_STEP_8 = 6;

    /** {@link #oneKey} when the single-entry path does not apply. */
    private static final long NOT_ONE = -1L;
    private static final long UNSIGNED = 0xFFFF_FFFFL;

    private final Strategy strategy;
    /** How {@link Strategy#AUTO} scans the array layout: {@link #MODE_VECTOR} or {@link #MODE_SCALAR}. */
    private final int scanMode;
    /** Above this size the table layout is used (AUTO), {@code -1} for always (TABLE), max int for never. */
    private final int tableUp;
    /** At or below this size the array layout is used again (AUTO). */
    private final int tableDown;

    /**
     * The entries live in two dense parallel arrays; {@link #add} appends, {@link #remove} moves the last entry into
     * the hole, and lanes past {@code size} hold stale SSRCs that a scan discards by index:
     * <pre>
     *   index:     0        1        2              size-1    size  ...  capacity-1
     *            +--------+--------+--------+ ... +--------+--------+ ... +--------+
     *   ssrcs    | ssrc A | ssrc B | ssrc C |     | ssrc Z | stale  |     | stale  |   int[], length a multiple
     *            +--------+--------+--------+ ... +--------+--------+ ... +--------+   of the vector lanes
     *   streams  |   A    |   B    |   C    |     |   Z    |  null  |     |  null  |   Object[], same length
     *            +--------+--------+--------+ ... +--------+--------+ ... +--------+
     *            |&lt;-- one vector step (16 lanes with AVX-512) --&gt;|
     * </pre>
     */
    private int[] ssrcs;
    private Object[] streams;
    private int size;
    private int mode;
    private S template;
    /**
     * Entry 0's SSRC zero-extended to a long while the size is 1 ({@link Strategy#AUTO}), else {@link #NOT_ONE}: a
     * single compare both finds the entry and says whether the single-entry path applies, with no separate test of
     * the mode or of a null stream (a zero-extended SSRC is never negative, so no SSRC matches {@code NOT_ONE}).
     */
    private long oneKey = NOT_ONE;
    /** Entry 0's stream while {@link #oneKey} holds its SSRC. */
    private Object oneStream;
    /**
     * Entry 0's SSRC zero-extended while the size is 2 ({@link Strategy#AUTO}), else {@link #NOT_ONE}; the
     * streams of the pair are {@code streams[0]} and {@code streams[1]}.
     */
    private long pairKey0 = NOT_ONE;
    /** Entry 1's SSRC zero-extended while the size is 2 ({@link Strategy#AUTO}), else {@link #NOT_ONE}. */
    private long pairKey1 = NOT_ONE;

    /**
     * The table layout: {@link #PAD} longer than the table (the tail mirrors slots 0.., so that a 16-key window
     * from any home slot needs no wrap); null while the capacity cannot reach {@link #tableUp}.
     * <pre>
     *   slot:      0        1        2        3              len-1   | len ... len+PAD-1
     *            +--------+--------+--------+--------+ ... +--------+--------+ ... +--------+
     *   keys     |   0    | ssrc Q |   0    | ssrc P |     | ssrc X | copy 0 |     | copy   |
     *            +--------+--------+--------+--------+ ... +--------+--------+ ... +--------+
     *   values   |  null  |   Q    |  null  |   P    |     |   X    |
     *            +--------+--------+--------+--------+ ... +--------+
     *   keys: int[len + PAD], 0 is EMPTY, the tail repeats slots 0..; values: Object[len]; len a power of two,
     *   &gt;= 4 x capacity
     *   tableZero: the stream of SSRC 0, if any (0 is the EMPTY key, so SSRC 0 never enters the table)
     *   home slot = (ssrc * 0x9E3779B9) &gt;&gt;&gt; (32 - log2(len)); linear probing; removal shifts the rest of the
     *   run back (no tombstones, so the table never degrades under churn)
     *   lookup = one IntVector compare of the 16 keys from the home slot on (the tail lets the window wrap):
     *            a match is the slot; no match but an EMPTY lane is a miss; neither (a run of 16+) probes on scalar
     * </pre>
     */
    private int[] tableKeys;
    private Object[] tableValues;
    private int tableMask;
    private int tableShift;
    /** The stream of SSRC 0 while the table is in use: 0 is the table's EMPTY key, so it lives here instead. */
    private Object tableZero;

    /**
     * An index with {@link Strategy#AUTO} and {@link #DEFAULT_CAPACITY}.
     */
    public SsrcIndex()
    {
        this(DEFAULT_CAPACITY, Strategy.AUTO);
    }

    /**
     * An index with {@link Strategy#AUTO}.
     *
     * @param initialCapacity entries that can be added without allocating.
     */
    public SsrcIndex(final int initialCapacity)
    {
        this(initialCapacity, Strategy.AUTO);
    }

    /**
     * An index.
     *
     * @param initialCapacity entries that can be added without allocating; rounded up to a multiple of the
     *                        vector lanes.
     * @param strategy        how to find an SSRC; {@link Strategy#AUTO} outside tests and benchmarks.
     * @throws IllegalStateException if {@code strategy} is {@link Strategy#VECTOR} and the JVM was started without
     *                               {@code --add-modules jdk.incubator.vector}.
     */
    public SsrcIndex(final int initialCapacity, final Strategy strategy)
    {
        this(initialCapacity, strategy, VECTOR_PREFERRED);
    }

    /**
     * An index whose {@link Strategy#AUTO} may be told not to use SIMD, as on a machine without it (for tests).
     *
     * @param initialCapacity entries that can be added without allocating.
     * @param strategy        how to find an SSRC.
     * @param autoVector      whether {@link Strategy#AUTO} scans with SIMD; ignored by the other strategies.
     */
    SsrcIndex(final int initialCapacity, final Strategy strategy, final boolean autoVector)
    {
        if (initialCapacity < 0)
        {
            throw new IllegalArgumentException("initialCapacity < 0: " + initialCapacity);
        }
        this.strategy = Objects.requireNonNull(strategy, "strategy");
        switch (strategy)
        {
            case AUTO ->
            {
                final boolean vector = autoVector && VECTOR_SUPPORTED;
                scanMode = vector ? MODE_VECTOR : MODE_SCALAR;
                tableUp = vector ? TABLE_UP_VECTOR : TABLE_UP_SCALAR;
                tableDown = Math.max(1, tableUp / 2);
            }
            case VECTOR ->
            {
                if (!VECTOR_SUPPORTED)
                {
                    throw new IllegalStateException("Strategy.VECTOR needs --add-modules jdk.incubator.vector");
                }
                scanMode = MODE_VECTOR;
                tableUp = Integer.MAX_VALUE;
                tableDown = Integer.MAX_VALUE;
            }
            case SCALAR ->
            {
                scanMode = MODE_SCALAR;
                tableUp = Integer.MAX_VALUE;
                tableDown = Integer.MAX_VALUE;
            }
            default ->
            {
                scanMode = autoVector && VECTOR_SUPPORTED ? MODE_VECTOR : MODE_SCALAR;
                tableUp = -1;
                tableDown = -1;
            }
        }
        final int capacity = roundUpToPad(Math.max(initialCapacity, 1));
        ssrcs = new int[capacity];
        streams = new Object[capacity];
        allocateTableFor(capacity);
        updateMode();
    }

    /**
     * @return the strategy given at construction.
     */
    public Strategy strategy()
    {
        return strategy;
    }

    /**
     * @return the layout lookups use now.
     */
    public Layout layout()
    {
        return MODE_TABLE == mode ? Layout.TABLE : Layout.ARRAY;
    }

    /**
     * @return the number of concrete streams (the template is not counted).
     */
    public int size()
    {
        return size;
    }

    /**
     * @return true if there is no concrete stream.
     */
    public boolean isEmpty()
    {
        return 0 == size;
    }

    /**
     * @return how many entries fit before {@link #add} allocates.
     */
    public int capacity()
    {
        return ssrcs.length;
    }

    /**
     * @return the template stream, or null if there is none.
     */
    public S template()
    {
        return template;
    }

    /**
     * Sets the template (wildcard) stream that {@link #getOrTemplate(int)} returns for SSRCs not in the index.
     *
     * @param template the template, or null for none.
     * @return this index.
     */
    public SsrcIndex<S> template(final S template)
    {
        this.template = template;
        return this;
    }

    /**
     * Finds the concrete stream of an SSRC. Allocates nothing.
     *
     * @param ssrc any 32-bit SSRC, 0 and negative values included.
     * @return its stream, or null if it has none (the template is not consulted).
     */
    public S get(final int ssrc)
    {
        return find(ssrc, null);
    }

    /**
     * Finds the stream of an SSRC, falling back to the template: the lookup of the packet path. Allocates nothing.
     *
     * @param ssrc any 32-bit SSRC.
     * @return its concrete stream; else the template (see the class javadoc for what the caller does then); else
     * null.
     */
    public S getOrTemplate(final int ssrc)
    {
        return find(ssrc, template);
    }

    /**
     * {@link #get(int)} for a caller that keeps its own single-entry path and asks the index only when that does not
     * apply (SRTP's {@code SrtpContext}, through its {@code SsrcIndexStreamLookup}): the same answer at every size,
     * without the single-entry test that such a caller has already made. Allocates nothing.
     *
     * @param ssrc any 32-bit SSRC.
     * @return its stream, or null if it has none (the template is not consulted).
     */
    public S getBeyondOne(final int ssrc)
    {
        return findBeyondOne(ssrc & UNSIGNED, ssrc, null);
    }

    /**
     * @param ssrc any 32-bit SSRC.
     * @return true if it has a concrete stream.
     */
    public boolean contains(final int ssrc)
    {
        return null != find(ssrc, null);
    }

    /**
     * Adds the concrete stream of an SSRC. Allocates nothing while {@code size() < capacity()}.
     *
     * @param ssrc   any 32-bit SSRC.
     * @param stream its stream, not null.
     * @return true if added; false (and nothing changed) if the SSRC already has a stream.
     */
    public boolean add(final int ssrc, final S stream)
    {
        Objects.requireNonNull(stream, "stream");
        if (null != find(ssrc, null))
        {
            return false;
        }
        if (size == ssrcs.length)
        {
            grow();
        }
        final int index = size;
        ssrcs[index] = ssrc;
        streams[index] = stream;
        size = index + 1;
        if (MODE_TABLE == mode)
        {
            tableInsert(ssrc, stream);
        }
        updateMode();
        return true;
    }

    /**
     * Removes the stream of an SSRC; the last entry moves into its place. Allocates nothing.
     *
     * @param ssrc any 32-bit SSRC.
     * @return the removed stream, or null if the SSRC had none.
     */
    public S remove(final int ssrc)
    {
        final int index = MODE_VECTOR == scanMode ?
            SsrcVectorScan.indexOf(ssrcs, size, ssrc) : scalarIndexOf(ssrcs, size, ssrc);
        if (index < 0)
        {
            return null;
        }
        final S removed = streamAt(index);
        final int last = size - 1;
        ssrcs[index] = ssrcs[last];
        streams[index] = streams[last];
        streams[last] = null;
        size = last;
        if (MODE_TABLE == mode)
        {
            tableRemove(ssrc);
        }
        updateMode();
        return removed;
    }

    /**
     * Removes every concrete stream (the template stays). Allocates nothing; keeps the capacity.
     */
    public void clear()
    {
        Arrays.fill(streams, 0, size, null);
        size = 0;
        if (null != tableKeys)
        {
            Arrays.fill(tableKeys, EMPTY);
            Arrays.fill(tableValues, null);
        }
        tableZero = null;
        updateMode();
    }

    /**
     * The SSRC at a dense index, for iteration without an iterator: {@code for (int i = 0; i < size(); i++)}.
     * The order is that of the adds, disturbed by removes.
     *
     * @param index in {@code [0, size())}.
     * @return the SSRC there.
     */
    public int ssrcAt(final int index)
    {
        Objects.checkIndex(index, size);
        return ssrcs[index];
    }

    /**
     * The stream at a dense index, the partner of {@link #ssrcAt(int)}.
     *
     * @param index in {@code [0, size())}.
     * @return the stream there, never null.
     */
    @SuppressWarnings("unchecked")
    public S streamAt(final int index)
    {
        Objects.checkIndex(index, size);
        return (S)streams[index];
    }

    /**
     * What {@link Strategy#AUTO} scans the dense arrays with in this JVM, for the server's start-up line:
     * {@code "vector, N int lanes"}, or {@code "scalar: "} and why SIMD is not used.
     *
     * @return the scan and, for the scalar one, its reason.
     */
    public static String autoScan()
    {
        if (VECTOR_PREFERRED)
        {
            return "vector, " + vectorLanes() + " int lanes";
        }
        if (!VECTOR_SUPPORTED)
        {
            return "scalar: the JVM was started without --add-modules jdk.incubator.vector";
        }
        if (vectorLanes() < 4)
        {
            return "scalar: this machine's vectors hold " + vectorLanes() + " int lanes, fewer than 4";
        }
        return "scalar: -D" + VECTOR_PROP_NAME + "=false";
    }

    @Override
    public String toString()
    {
        return "SsrcIndex{strategy=" + strategy + ", layout=" + layout() + ", size=" + size +
            ", capacity=" + ssrcs.length + ", lanes=" + (VECTOR_SUPPORTED ? vectorLanes() : 0) + '}';
    }

    // The hot path: a dispatch on the mode, then one small method per path, each inlined by C2 where it is hot.
    // The cast to S is erased: it costs nothing here, the caller's checkcast is profiled and cheap.
    @SuppressWarnings("unchecked")
    private S find(final int ssrc, final S miss)
    {
        // One SSRC, the commonest session of all: one compare against a copy in a field, like a list of one. The
        // compare of the zero-extended SSRC with oneKey is the whole test on a hit (no mode or null check before it).
        final long u = ssrc & UNSIGNED;
        final long key = oneKey;
        if (u == key)
        {
            return (S)oneStream;
        }
        if (key >= 0)
        {
            return miss;
        }
        return findBeyondOne(u, ssrc, miss);
    }

    /** {@link #find} past the single-entry test: right at every size (at one entry, a scalar compare). */
    @SuppressWarnings("unchecked")
    private S findBeyondOne(final long u, final int ssrc, final S miss)
    {
        final long second = pairKey1;
        if (second >= 0)
        {
            // Two SSRCs, with no branch that depends on which entry is hit (real traffic alternates between them at
            // random; a compare per entry, as a list does, mispredicted half the hits: 5.7 ns against 1.4 for a
            // miss). Both keys and u are zero-extended, so each XOR is in [0, 2^32) and zero only on a match; their
            // product is below 2^64, so it is zero exactly when one of them is. The entry is 1 when u is the second
            // key ((d1 - 1) is negative only for d1 == 0), else 0.
            final long d0 = u ^ pairKey0;
            final long d1 = u ^ second;
            if (0 == d0 * d1)
            {
                return (S)streams[(int)((d1 - 1) >>> 63)];
            }
            return miss;
        }
        final int m = mode;
        if (MODE_STEP_4 == m)
        {
            // One 128-bit step (at most 4 entries): as the full-width step below, on a narrower vector.
            final int lane = SsrcVectorScan.firstLaneOf4(ssrcs, ssrc);
            return lane < size ? (S)streams[lane] : miss;
        }
        if (MODE_STEP_8 == m)
        {
            final int lane = SsrcVectorScan.firstLaneOf8(ssrcs, ssrc);
            return lane < size ? (S)streams[lane] : miss;
        }
        if (MODE_STEP == m)
        {
            // One vector step, 2 to LANES entries (the mode says so: no test of the size against the lanes here).
            // The lowest matching lane is a live entry if it is below size; a stale lane or LANES (no match) is not.
            final int lane = SsrcVectorScan.firstLane(ssrcs, ssrc);
            return lane < size ? (S)streams[lane] : miss;
        }
        if (MODE_TABLE == m)
        {
            return tableFind(ssrc, miss);
        }
        final int index = MODE_VECTOR == m ?
            SsrcVectorScan.indexOf(ssrcs, size, ssrc) : scalarIndexOf(ssrcs, size, ssrc);
        return index >= 0 ? (S)streams[index] : miss;
    }

    private static int scalarIndexOf(final int[] keys, final int size, final int ssrc)
    {
        for (int i = 0; i < size; i++)
        {
            if (keys[i] == ssrc)
            {
                return i;
            }
        }
        return -1;
    }

    @SuppressWarnings("unchecked")
    private S tableFind(final int ssrc, final S miss)
    {
        if (EMPTY == ssrc)
        {
            final Object zero = tableZero;
            return null != zero ? (S)zero : miss;
        }
        final int[] keys = tableKeys;
        final Object[] values = tableValues;
        final int mask = tableMask;
        int slot = (ssrc * GOLDEN) >>> tableShift;
        if (MODE_VECTOR == scanMode)
        {
            // One compare of the 16 slots from home on: a hit anywhere in them costs the same, so collisions do not
            // turn into mispredicted probe-loop exits. Only a run longer than the window goes on below.
            final int lane = SsrcVectorScan.probe(keys, slot, ssrc);
            if (lane >= 0)
            {
                return lane < SsrcVectorScan.LANES ? (S)values[(slot + lane) & mask] : miss;
            }
            slot = (slot + SsrcVectorScan.LANES) & mask;
        }
        Object value;
        while (null != (value = values[slot]))
        {
            if (keys[slot] == ssrc)
            {
                return (S)value;
            }
            slot = (slot + 1) & mask;
        }
        return miss;
    }

    private void tableInsert(final int ssrc, final Object stream)
    {
        if (EMPTY == ssrc)
        {
            tableZero = stream;
            return;
        }
        final Object[] values = tableValues;
        final int mask = tableMask;
        int slot = (ssrc * GOLDEN) >>> tableShift;
        while (null != values[slot])
        {
            slot = (slot + 1) & mask;
        }
        setKey(slot, ssrc);
        values[slot] = stream;
    }

    /** Deletes by shifting later members of the probe run back into the hole, so no tombstone is ever needed. */
    private void tableRemove(final int ssrc)
    {
        if (EMPTY == ssrc)
        {
            tableZero = null;
            return;
        }
        final int[] keys = tableKeys;
        final Object[] values = tableValues;
        final int mask = tableMask;
        int hole = (ssrc * GOLDEN) >>> tableShift;
        while (keys[hole] != ssrc)
        {
            hole = (hole + 1) & mask;
        }
        int slot = hole;
        while (true)
        {
            slot = (slot + 1) & mask;
            if (null == values[slot])
            {
                break;
            }
            final int home = (keys[slot] * GOLDEN) >>> tableShift;
            // The entry may move back only if the hole lies on its probe path, from home to where it is now.
            if (((slot - home) & mask) >= ((slot - hole) & mask))
            {
                setKey(hole, keys[slot]);
                values[hole] = values[slot];
                hole = slot;
            }
        }
        setKey(hole, EMPTY);
        values[hole] = null;
    }

    /** Writes a table key, and its mirror past the end that lets a vector window starting near the end wrap. */
    private void setKey(final int slot, final int key)
    {
        tableKeys[slot] = key;
        if (slot < PAD)
        {
            tableKeys[slot + tableMask + 1] = key;
        }
    }

    private void tableRebuild()
    {
        Arrays.fill(tableKeys, EMPTY);
        Arrays.fill(tableValues, null);
        tableZero = null;
        for (int i = 0; i < size; i++)
        {
            tableInsert(ssrcs[i], streams[i]);
        }
    }

    private void allocateTableFor(final int capacity)
    {
        if (capacity > tableUp)
        {
            final int length = Integer.highestOneBit(capacity * TABLE_SLOTS_PER_ENTRY - 1) << 1;
            tableKeys = new int[length + PAD];
            tableValues = new Object[length];
            tableMask = length - 1;
            tableShift = Integer.numberOfLeadingZeros(length) + 1;
        }
    }

    private void grow()
    {
        final int capacity = ssrcs.length;
        if (capacity > (Integer.MAX_VALUE - 8) / 4)
        {
            throw new IllegalStateException("SSRC index full: " + capacity);
        }
        final int newCapacity = roundUpToPad(capacity * 2);
        ssrcs = Arrays.copyOf(ssrcs, newCapacity);
        streams = Arrays.copyOf(streams, newCapacity);
        allocateTableFor(newCapacity);
        if (MODE_TABLE == mode)
        {
            tableRebuild();
        }
    }

    /** Chooses the lookup for the current size; builds the table when the layout switches up. */
    private void updateMode()
    {
        final boolean table = MODE_TABLE == mode ? size > tableDown : size > tableUp;
        if (table)
        {
            if (MODE_TABLE != mode)
            {
                mode = MODE_TABLE;
                tableRebuild();
            }
        }
        else if (Strategy.AUTO == strategy && 1 == size)
        {
            mode = MODE_ONE;
        }
        else if (Strategy.AUTO == strategy && 0 == size)
        {
            // Empty: the scalar loop runs no iteration, so an add's duplicate check (the only lookup an empty index
            // usually gets) touches no vector; a vector step here was the one use of the 4-lane path in the
            // remove/add churn of a single-stream index, whose allocation test saw it uncompiled once in CI.
            mode = MODE_SCALAR;
        }
        else
        {
            mode = MODE_VECTOR == scanMode && size <= SsrcVectorScan.LANES ? stepMode(size) : scanMode;
        }
        if (MODE_ONE == mode)
        {
            oneStream = streams[0];
            oneKey = ssrcs[0] & UNSIGNED;
        }
        else
        {
            oneKey = NOT_ONE;
            oneStream = null;
        }
        if (Strategy.AUTO == strategy && 2 == size)
        {
            pairKey0 = ssrcs[0] & UNSIGNED;
            pairKey1 = ssrcs[1] & UNSIGNED;
        }
        else
        {
            pairKey0 = NOT_ONE;
            pairKey1 = NOT_ONE;
        }
        if (MODE_TABLE != mode)
        {
            tableZero = null;
        }
    }

    private static int roundUpToPad(final int n)
    {
        return (n + PAD - 1) / PAD * PAD;
    }

    /**
     * The one-step mode for {@code size} entries (at most {@link SsrcVectorScan#LANES}): the narrowest vector that
     * holds them, 4 or 8 lanes, when it is narrower than the preferred one; else the preferred one. Vector machines
     * only.
     */
    private static int stepMode(final int size)
    {
        final int lanes = SsrcVectorScan.LANES;
        if (size <= 4 && lanes > 4)
        {
            return MODE_STEP_4;
        }
        return size <= 8 && lanes > 8 ? MODE_STEP_8 : MODE_STEP;
    }

    private static boolean vectorSupported()
    {
        if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty())
        {
            return false;
        }
        try
        {
            return SsrcVectorScan.LANES >= 2;
        }
        catch (final LinkageError ex)
        {
            return false;
        }
    }

    private static int vectorLanes()
    {
        return SsrcVectorScan.LANES;
    }
}
