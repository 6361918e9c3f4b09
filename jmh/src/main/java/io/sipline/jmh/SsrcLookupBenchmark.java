package io.sipline.jmh;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.sipline.media.srtp.SrtpContext;
import io.sipline.media.srtp.SrtpCryptoSuite;
import io.sipline.media.srtp.SrtpPolicy;
import io.sipline.media.srtp.SrtpStream;
import io.sipline.media.srtp.SrtpStreamLookup;
import io.sipline.media.srtp.SsrcIndexStreamLookup;
import io.sipline.media.ssrc.SsrcIndex;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Nanoseconds per SSRC lookup, hit and miss, in one SRTP session of {@code n} streams: the lookup of SRTP's packet
 * path ({@link SrtpContext#stream(int)}, {@code context*}: the context's own single-stream fields, then its
 * {@link SsrcIndexStreamLookup}), that lookup object alone ({@code srtp*}), the generic {@link SsrcIndex} with each
 * strategy ({@code index*}), against libsrtp 2.x's singly linked list of stream contexts (walked from its session,
 * {@code sessionList*}, or from a head in this state, {@code linkedList*}), {@code HashMap<Integer, …>} and a
 * primitive open-addressing int map, all in the same run. The like-for-like pair is {@code contextHit} against
 * {@code sessionListHit}: both callers hold a session and load a field of it, as each packet path does.
 *
 * <p>Each invocation looks up the next of {@value #QUERIES} precomputed SSRCs and returns the result, so that the JIT
 * cannot hoist the structure's loads out of a loop. The queries are a million long so that the branch predictor
 * cannot learn them. {@link #floor} measures the harness alone. The streams are {@link StreamContext}s of about the
 * size of libsrtp's {@code srtp_stream_ctx_t}, allocated back to back (the list's best case); the list is intrusive
 * as in libsrtp. At N = 1 the figures differ by fractions of a nanosecond: run it with several forks, and
 * {@link #skew} moves the structures in memory to tell placement from code.
 *
 * <pre>
 * java -jar jmh/target/benchmarks.jar SsrcLookupBenchmark -f 1 -wi 3 -w 500ms -i 5 -r 500ms -prof gc
 * </pre>
 *
 * <p>Not threadsafe; each fork's single benchmark thread owns the state, as a media shard owns its sessions.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = "--add-modules=jdk.incubator.vector")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class SsrcLookupBenchmark
{
    /** Queries cycled through; a power of two. */
    static final int QUERIES = 1 << 20;

    @Param({"1", "2", "3", "5", "10", "20", "30", "50", "100", "200", "1000"})
    int n;

    /**
     * Octets allocated (one {@code byte[]}) just before the streams and structures, to move all of them relative to
     * cache lines and 4 KiB pages. 0 by default; a few values show how much of a difference at N = 1 is placement.
     */
    @Param({"0"})
    int skew;

    /** Keeps the skew array reachable, so that the objects after it stay where they were allocated. */
    private byte[] skewArray;

    /** The index under test in this fork, built with the strategy the benchmark's name says. */
    private SsrcIndex<StreamContext> index;
    /** The production lookup, typed as itself (a final class: a direct call), for the {@code srtp*} benchmarks. */
    private SsrcIndexStreamLookup srtp;
    /** The same lookup typed as the seam {@link SrtpContext} calls it through, for {@link #srtpSeamHit}. */
    private SrtpStreamLookup srtpSeam;
    /** A real context, default lookup, filled through {@link SrtpContext#addStream}, for the {@code context*} ones. */
    private SrtpContext context;
    /** libsrtp's session, whose {@code stream_list} is {@link #list}, for the {@code sessionList*} benchmarks. */
    private Session session;
    private StreamContext list;
    private HashMap<Integer, StreamContext> hashMap;
    private IntObjectMap<StreamContext> intMap;

    private int cursor;
    private int[] hits;
    private int[] misses;
    private Integer[] boxedHits;
    private Integer[] boxedMisses;

    /**
     * libsrtp 2.x's stream context ({@code srtp_stream_ctx_t}: {@code ssrc} first, {@code next} last), reduced to its
     * size: the list is threaded through the streams themselves, so a hit in a list of one reads the SSRC from the
     * object it returns. On JDK 25 with compressed oops (read with {@code Unsafe.objectFieldOffset}) the SSRC sits at
     * offset 12, in the cache line of the object header, the longs at 16 to 111 and {@code next} at 112: 120 bytes.
     */
    static final class StreamContext
    {
        final int ssrc;
        StreamContext next;
        // Stand-ins for session keys, the RTP replay database, the RTCP replay window, services, direction and the
        // header-extension state, so that a node spans two cache lines as in C.
        long rtpIndex;
        long rtpBitmap;
        long rtcpBitmapLow;
        long rtcpBitmapHigh;
        long sessionKeys;
        long rtpServices;
        long rtcpServices;
        long encryptedHeaders;
        long keyLimit;
        long pendingRoc;
        long allowRepeatTx;
        long direction;

        StreamContext(final int ssrc)
        {
            this.ssrc = ssrc;
            this.rtpIndex = ssrc & 0xFFFF;
        }
    }

    /**
     * libsrtp 2.x's session, {@code srtp_ctx_t}: the head of the stream list, the template stream and the user's
     * pointer, in that order. {@code srtp_get_stream} loads {@code stream_list} from it and walks the list.
     */
    static final class Session
    {
        StreamContext streamList;
        StreamContext streamTemplate;
        Object userData;
    }

    /**
     * The primitive baseline: int keys, object values, power-of-two capacity (at least 16), load factor 1/2,
     * linear probing,
     * and a null value marking an empty slot (so key 0 needs no special case), in the manner of Agrona's
     * {@code Int2ObjectHashMap}. Written here as a plain reference, independent of {@link SsrcIndex}'s own table.
     */
    static final class IntObjectMap<V>
    {
        private final int[] keys;
        private final Object[] values;
        private final int mask;

        IntObjectMap(final int expectedSize)
        {
            final int capacity = Math.max(16, Integer.highestOneBit(Math.max(1, expectedSize * 2 - 1)) << 1);
            keys = new int[capacity];
            values = new Object[capacity];
            mask = capacity - 1;
        }

        private static int hash(final int key)
        {
            final int x = key * 0x9E3779B9;
            return x ^ (x >>> 16);
        }

        void put(final int key, final V value)
        {
            int slot = hash(key) & mask;
            while (null != values[slot] && keys[slot] != key)
            {
                slot = (slot + 1) & mask;
            }
            keys[slot] = key;
            values[slot] = value;
        }

        @SuppressWarnings("unchecked")
        V get(final int key)
        {
            int slot = hash(key) & mask;
            Object value;
            while (null != (value = values[slot]))
            {
                if (keys[slot] == key)
                {
                    return (V)value;
                }
                slot = (slot + 1) & mask;
            }
            return null;
        }
    }

    /**
     * Builds every structure from the same {@code n} random SSRCs and the query arrays, then checks that they all
     * agree with the linked list on every query.
     *
     * <p>Only the {@link SsrcIndex} that the running benchmark measures is built: every strategy shares
     * {@code SsrcIndex.get}, and building the others here would feed its branch profile with paths that an
     * {@link SsrcIndex.Strategy#AUTO} index in production never takes ({@code SCALAR} on a SIMD machine, a table
     * below the threshold). The {@code AUTO} index still goes through its small, vector and table paths while it is
     * filled, as it would in a shard serving sessions of every size.
     *
     * @param params tells which benchmark runs in this fork.
     */
    @Setup
    public void setUp(final BenchmarkParams params)
    {
        final String benchmark = params.getBenchmark();
        final Random random = new Random(0x5EED_0000L + n);
        skewArray = 0 == skew ? null : new byte[skew];
        index = indexFor(benchmark);
        final SrtpContext filled = srtpContextFor(benchmark, random);
        list = null;
        hashMap = new HashMap<>();
        intMap = new IntObjectMap<>(n);

        final int[] members = new int[n];
        final HashSet<Integer> memberSet = new HashSet<>();
        for (int i = 0; i < n; i++)
        {
            int ssrc = random.nextInt();
            while (!memberSet.add(ssrc))
            {
                ssrc = random.nextInt();
            }
            members[i] = ssrc;
        }
        // The streams are allocated back to back, before anything else: the linked list's best case (its nodes
        // adjacent in memory, n = 200 fits in L1). In a long-running shard they are scattered and the walk is slower.
        final StreamContext[] streams = new StreamContext[n];
        for (int i = 0; i < n; i++)
        {
            streams[i] = new StreamContext(members[i]);
        }
        for (int i = 0; i < n; i++)
        {
            final int ssrc = members[i];
            final StreamContext stream = streams[i];
            if (null != index)
            {
                index.add(ssrc, stream);
            }
            if (null != filled && !filled.addStream(ssrc))
            {
                throw new IllegalStateException("SRTP stream " + ssrc + " refused");
            }
            // libsrtp 2.x srtp_add_stream: the new stream becomes the head.
            stream.next = list;
            list = stream;
            hashMap.put(ssrc, stream);
            intMap.put(ssrc, stream);
        }
        session = new Session();
        session.streamList = list;

        hits = new int[QUERIES];
        misses = new int[QUERIES];
        boxedHits = new Integer[QUERIES];
        boxedMisses = new Integer[QUERIES];
        for (int i = 0; i < QUERIES; i++)
        {
            hits[i] = members[random.nextInt(n)];
            int miss = random.nextInt();
            while (memberSet.contains(miss))
            {
                miss = random.nextInt();
            }
            misses[i] = miss;
            boxedHits[i] = hits[i];
            boxedMisses[i] = misses[i];
        }
        check();
    }

    /** The {@link SsrcIndex} of the strategy {@code benchmark} measures, or null when it measures none. */
    private SsrcIndex<StreamContext> indexFor(final String benchmark)
    {
        if (benchmark.contains("indexAuto"))
        {
            return new SsrcIndex<>(n, SsrcIndex.Strategy.AUTO);
        }
        else if (benchmark.contains("indexVector"))
        {
            return new SsrcIndex<>(n, SsrcIndex.Strategy.VECTOR);
        }
        else if (benchmark.contains("indexScalar"))
        {
            return new SsrcIndex<>(n, SsrcIndex.Strategy.SCALAR);
        }
        else if (benchmark.contains("indexTable"))
        {
            return new SsrcIndex<>(n, SsrcIndex.Strategy.TABLE);
        }
        return null;
    }

    /**
     * Sets {@link #srtp}, {@link #srtpSeam} and {@link #context} for the SRTP benchmarks (null for the others) and
     * returns the context that {@link #setUp} fills with the streams, or null.
     */
    private SrtpContext srtpContextFor(final String benchmark, final Random random)
    {
        srtp = null;
        srtpSeam = null;
        context = null;
        if (!benchmark.contains("srtp") && !benchmark.contains("context"))
        {
            return null;
        }
        final SrtpCryptoSuite suite = SrtpCryptoSuite.AES_CM_128_HMAC_SHA1_80;
        final byte[] keyAndSalt = new byte[suite.masterKeySaltLength()];
        random.nextBytes(keyAndSalt);
        final SrtpPolicy policy = SrtpPolicy.builder(suite).masterKey(keyAndSalt).maxStreams(n).build();
        if (benchmark.contains("srtp"))
        {
            srtp = new SsrcIndexStreamLookup(n);
            srtpSeam = srtp;
            return new SrtpContext(policy, SrtpContext.Direction.INBOUND, srtp);
        }
        // What SrtpSession and every other user builds: the default lookup of maxStreams entries.
        context = SrtpContext.inbound(policy);
        return context;
    }

    /**
     * Checks that every structure agrees with the linked list on every query. This trains the JIT's profile of each
     * lookup with as many misses as hits before the measured code is compiled, the list's as much as the index's. Run
     * after the measurement instead, the check would execute the vector scan in C1 code, whose vector objects the GC
     * profiler would charge to the last iteration.
     */
    private void check()
    {
        for (int i = 0; i < QUERIES; i++)
        {
            final StreamContext expected = listFind(list, hits[i]);
            if (null == expected || expected.ssrc != hits[i] || (null != index && expected != index.get(hits[i])) ||
                expected != hashMap.get(boxedHits[i]) || expected != intMap.get(hits[i]) ||
                expected != listFind(session.streamList, hits[i]) ||
                (null != srtp && (null == srtp.find(hits[i]) || hits[i] != srtp.find(hits[i]).ssrc())) ||
                (null != context && (null == context.stream(hits[i]) || hits[i] != context.stream(hits[i]).ssrc())))
            {
                throw new IllegalStateException("hit " + hits[i] + " disagrees");
            }
            final int miss = misses[i];
            if (null != listFind(list, miss) || (null != index && null != index.get(miss)) ||
                null != hashMap.get(boxedMisses[i]) || null != intMap.get(miss) ||
                null != listFind(session.streamList, miss) ||
                (null != srtp && null != srtp.find(miss)) || (null != context && null != context.stream(miss)))
            {
                throw new IllegalStateException("miss " + miss + " disagrees");
            }
        }
    }

    /** libsrtp 2.x srtp_get_stream: walk the list from the head. */
    private static StreamContext listFind(final StreamContext head, final int ssrc)
    {
        StreamContext stream = head;
        while (null != stream)
        {
            if (stream.ssrc == ssrc)
            {
                return stream;
            }
            stream = stream.next;
        }
        return null;
    }

    private int next()
    {
        final int i = cursor;
        cursor = (i + 1) & (QUERIES - 1);
        return i;
    }

    /** The harness floor: the query cursor and the return, no lookup. Subtract it to compare lookups alone. */
    @Benchmark
    public int floor()
    {
        return hits[next()];
    }

    /**
     * The lookup of the SRTP packet path, a hit: {@link SrtpContext#stream(int)} on a context held in this state,
     * the very method protect and unprotect call first. At N = 1 one compare with a field of the context and the
     * stream returned from another, with no cast and no load of the lookup object; otherwise the context's
     * {@link SsrcIndexStreamLookup} (the index past its single-entry test). Compare with {@link #sessionListHit}
     * (see the class javadoc).
     *
     * @return the stream.
     */
    @Benchmark
    public SrtpStream contextHit()
    {
        return context.stream(hits[next()]);
    }

    /**
     * {@link #contextHit} with SSRCs that have no stream.
     *
     * @return null.
     */
    @Benchmark
    public SrtpStream contextMiss()
    {
        return context.stream(misses[next()]);
    }

    /**
     * libsrtp 2.x's {@code srtp_get_stream}, a hit: the list head loaded from the session held in this state, then
     * walked by {@link #listFind}, as {@code srtp_unprotect} does with its {@code srtp_t}. The baseline of
     * {@link #contextHit}.
     *
     * @return the stream.
     */
    @Benchmark
    public StreamContext sessionListHit()
    {
        return listFind(session.streamList, hits[next()]);
    }

    /**
     * {@link #sessionListHit} with SSRCs that have no stream.
     *
     * @return null.
     */
    @Benchmark
    public StreamContext sessionListMiss()
    {
        return listFind(session.streamList, misses[next()]);
    }

    /**
     * The lookup object an {@link SrtpContext} holds ({@link SsrcIndexStreamLookup#find}), a hit, called directly.
     * The context makes the N = 1 test itself ({@link #contextHit}); this is the index past its single-entry test at
     * every N, N = 1 included (a scalar compare of entry 0 there, which the packet path never runs).
     *
     * @return the stream.
     */
    @Benchmark
    public SrtpStream srtpHit()
    {
        return srtp.find(hits[next()]);
    }

    /**
     * {@link #srtpHit} with SSRCs that have no stream.
     *
     * @return null.
     */
    @Benchmark
    public SrtpStream srtpMiss()
    {
        return srtp.find(misses[next()]);
    }

    /**
     * {@link #srtpHit}, then a read of the found stream's SSRC field: lookup and first use (see
     * {@link #indexAutoHitUse}).
     *
     * @return the found stream's SSRC.
     */
    @Benchmark
    public int srtpHitUse()
    {
        return srtp.find(hits[next()]).ssrc();
    }

    /**
     * {@link #srtpHit} called through the {@link SrtpStreamLookup} interface, as {@link SrtpContext} calls it: the
     * same lookup behind the receiver type check that C2 puts before an inlined interface call (diagnostic).
     *
     * @return the stream.
     */
    @Benchmark
    public SrtpStream srtpSeamHit()
    {
        return srtpSeam.find(hits[next()]);
    }

    @Benchmark
    public StreamContext indexAutoHit()
    {
        return index.get(hits[next()]);
    }

    /**
     * {@link #indexAutoHit} returned as {@code Object}: the same lookup without the {@code checkcast} that javac puts
     * in a caller of a generic method (it reads the stream's class word), which the intrusive linked list does not
     * need. Diagnostic: shows what the cast costs; a real caller pays it (and then reads the stream's fields from
     * the same cache line).
     *
     * @return the stream, untyped.
     */
    @Benchmark
    public Object indexAutoHitUncast()
    {
        return index.get(hits[next()]);
    }

    @Benchmark
    public StreamContext indexAutoMiss()
    {
        return index.get(misses[next()]);
    }

    @Benchmark
    public StreamContext indexVectorHit()
    {
        return index.get(hits[next()]);
    }

    @Benchmark
    public StreamContext indexVectorMiss()
    {
        return index.get(misses[next()]);
    }

    @Benchmark
    public StreamContext indexScalarHit()
    {
        return index.get(hits[next()]);
    }

    @Benchmark
    public StreamContext indexScalarMiss()
    {
        return index.get(misses[next()]);
    }

    @Benchmark
    public StreamContext indexTableHit()
    {
        return index.get(hits[next()]);
    }

    @Benchmark
    public StreamContext indexTableMiss()
    {
        return index.get(misses[next()]);
    }

    /**
     * {@link #indexAutoHit}, then a read of the stream's replay index, as SRTP does next with the stream it found:
     * lookup and first use, the same for every structure.
     *
     * @return the found stream's replay index.
     */
    @Benchmark
    public long indexAutoHitUse()
    {
        return index.get(hits[next()]).rtpIndex;
    }

    /**
     * {@link #linkedListHit}, then a read of the stream's replay index (see {@link #indexAutoHitUse}).
     *
     * @return the found stream's replay index.
     */
    @Benchmark
    public long linkedListHitUse()
    {
        return listFind(list, hits[next()]).rtpIndex;
    }

    /**
     * {@link #intHashMapHit}, then a read of the stream's replay index (see {@link #indexAutoHitUse}).
     *
     * @return the found stream's replay index.
     */
    @Benchmark
    public long intHashMapHitUse()
    {
        return intMap.get(hits[next()]).rtpIndex;
    }

    @Benchmark
    public StreamContext linkedListHit()
    {
        return listFind(list, hits[next()]);
    }

    @Benchmark
    public StreamContext linkedListMiss()
    {
        return listFind(list, misses[next()]);
    }

    @Benchmark
    public StreamContext hashMapHit()
    {
        return hashMap.get(boxedHits[next()]);
    }

    @Benchmark
    public StreamContext hashMapMiss()
    {
        return hashMap.get(boxedMisses[next()]);
    }

    @Benchmark
    public StreamContext intHashMapHit()
    {
        return intMap.get(hits[next()]);
    }

    @Benchmark
    public StreamContext intHashMapMiss()
    {
        return intMap.get(misses[next()]);
    }
}
