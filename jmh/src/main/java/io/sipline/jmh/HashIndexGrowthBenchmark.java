package io.sipline.jmh;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import io.sipline.sip.collection.LongHashIndex;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a shard's index pays when it doubles ({@link LongHashIndex}: transactions, dialogs, the container's sessions by
 * dialog), growing a few slots per put against the rehash of every entry at once in the same run.
 *
 * <p>Each invocation starts from an index of {@code 2 * entries} slots holding {@code entries} random keys, exactly
 * half full, so that its next put doubles it. {@link #growingPut} times that one put: the longest a shard stops for
 * the index's growth. {@link #growingPutAndMigration} times that put and the {@code entries / 4 - 1} puts after it, by
 * which the growing index has moved every old slot (8 a put): the whole cost of a growth, spread or not. The baseline
 * is the same class with {@code migrate = all} ({@link Integer#MAX_VALUE} slots per put: every old slot moved in the
 * put that grows it: a rehash of every entry at once). The new arrays' allocation (zeroed by the JVM) is in both.
 *
 * <pre>
 * java -jar jmh/target/benchmarks.jar HashIndexGrowthBenchmark
 * </pre>
 *
 * <p>Single shots (the event is one put), many of them: a fresh index per invocation, built outside the timing. ZGC,
 * as the {@code zgc} profile runs the server: its load barriers are on every reference the rehash reads.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+UseZGC", "-XX:+AlwaysPreTouch"})
@Warmup(iterations = 20, batchSize = 1)
@Measurement(iterations = 40, batchSize = 1)
public class HashIndexGrowthBenchmark
{
    /**
     * Entries held when the put that doubles the index comes: a shard at 3,000 calls/s holds about 2^17
     * transactions.
     */
    @Param({"16384", "131072"})
    public int entries;

    /** Old slots moved per put: {@code 8} (Sipline) or {@code all} (the baseline: a rehash at once). */
    @Param({"8", "all"})
    public String migrate;

    private LongHashIndex<Object> index;
    private long[] keys;
    private int put;
    private final Object value = new Object();

    @Setup(Level.Invocation)
    public void halfFull()
    {
        final SplittableRandom random = new SplittableRandom(20261124L);
        final int slots = 2 * entries;
        keys = new long[entries + slots / LongHashIndex.MIGRATE_PER_PUT]; // the growing put and those that end it
        for (int i = 0; i < keys.length; i++)
        {
            keys[i] = random.nextLong();
        }
        index = new LongHashIndex<>(slots, "all".equals(migrate) ? Integer.MAX_VALUE : Integer.parseInt(migrate));
        for (put = 0; put < entries; put++)
        {
            index.put(keys[put], value);
        }
        if (index.capacity() != slots || index.migrating())
        {
            throw new IllegalStateException("not a half-full index of " + slots + " slots: " + index.capacity());
        }
    }

    /** The put that doubles the index. */
    @Benchmark
    public int growingPut()
    {
        index.put(keys[put], value);
        put++;
        return index.capacity();
    }

    /** The put that doubles the index and the puts after it that finish moving its old slots. */
    @Benchmark
    public int growingPutAndMigration()
    {
        index.put(keys[put++], value);
        while (put < keys.length)
        {
            index.put(keys[put++], value);
        }
        if (index.migrating())
        {
            throw new IllegalStateException("still migrating after " + (put - entries) + " puts");
        }
        return index.capacity();
    }

    /** Both variants hold every key put, findable, in an index of twice the slots. */
    @TearDown(Level.Invocation)
    public void check()
    {
        if (index.size() != put || index.capacity() != 4 * entries)
        {
            throw new IllegalStateException("size " + index.size() + " of " + put + ", capacity " + index.capacity());
        }
        for (int i = 0; i < put; i += 97)
        {
            final int c = index.first(keys[i]);
            if (c < 0 || index.valueAt(c) != value)
            {
                throw new IllegalStateException("key " + i + " not found");
            }
        }
    }
}
