package io.sipline.container.replication;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import org.jctools.queues.MpscArrayQueue;

/**
 * The {@link SnapshotSink} and {@link SnapshotSource} in front of a {@link SessionReplicator}: shards offer snapshots
 * and removals to a bounded lock-free queue (many producers, one consumer) and one platform thread sends them to the
 * grid in the order they were queued. Up to {@value #IN_FLIGHT} operations are in flight at once, so the grid's
 * round trips overlap and the writer keeps up with the calls; those of one session are chained, each sent when the
 * previous one completed, so a session's removal never overtakes its last snapshot nor a snapshot an older one. A
 * shard never waits: when the queue is full the snapshot is counted as dropped and said once on the error stream
 * (the session's next boundary writes it again). Takeovers do not wait behind the writes: the read and claim of a
 * call by Call-ID (a survivor got a request of a dead node's call, which waits for it) run on {@value #READERS}
 * reader threads; when a node leaves the grid, the claims of the calls it owned that this member decides for run on
 * one adopter thread, {@value #ADOPT_BATCH} calls claimed and read at once and handed over as one batch, so that
 * hundreds of them neither hold a reader from the requests nor cost a round trip each.
 * <p>
 * Thread-safe: {@link #write} and {@link #remove} from any shard; {@link #close} once, after the shards stopped,
 * drains what is queued (bounded in time) and stops the writer.
 */
public final class GridWriter implements SnapshotSink, SnapshotSource, AutoCloseable
{
    /** Threads that read calls from the grid for a request's takeover (they wait on the network, not a core). */
    static final int READERS = 4;
    /** Calls of a departed node claimed, read and handed to the container together. */
    static final int ADOPT_BATCH = 64;
    /** Queued operations at most; a burst beyond it is dropped rather than blocking a shard. */
    static final int CAPACITY = 65_536;
    private static final long WRITE_TIMEOUT_MS = 10_000;
    private static final long IDLE_PARK_NS = TimeUnit.MILLISECONDS.toNanos(50);
    /** Grid operations sent and not yet completed, at most. */
    static final int IN_FLIGHT = 256;

    private final SessionReplicator grid;
    private final int node;
    private final PrintWriter err;
    private final MpscArrayQueue<Pending> queue = new MpscArrayQueue<>(CAPACITY);
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong removed = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final Thread writer;
    private final ThreadPoolExecutor readers;
    private final ThreadPoolExecutor adopter;
    private final AtomicLong readFailures = new AtomicLong();
    private final AtomicLong adopted = new AtomicLong();
    private final Semaphore inFlight = new Semaphore(IN_FLIGHT);
    /** The last operation sent of each session with one in flight: the next one of that session waits for it. */
    private final Map<String, CompletableFuture<Void>> tails = new ConcurrentHashMap<>();
    private volatile boolean idle;
    private volatile boolean closing;

    /** One queued operation: a snapshot to write, or (snapshot null) a session to remove. */
    private record Pending(String id, ApplicationSnapshot snapshot)
    {
    }

    /**
     * @param grid the member of the grid to write to; closed by the caller after this writer.
     * @param node this node's number.
     * @param err  where a dropped or failed write is said (once each).
     */
    public GridWriter(final SessionReplicator grid, final int node, final PrintWriter err)
    {
        this.grid = grid;
        this.node = node;
        this.err = err;
        this.writer = Thread.ofPlatform().daemon().name("sipline-grid-writer").start(this::run);
        this.readers = new ThreadPoolExecutor(READERS, READERS, 0, TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(CAPACITY), Thread.ofPlatform().daemon().name("sipline-grid-reader-", 0).factory());
        this.adopter = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(CAPACITY),
            Thread.ofPlatform().daemon().name("sipline-grid-adopter").factory());
    }

    @Override
    public void takeOver(final String callId, final int tagNode, final Consumer<Takeover> then)
    {
        try
        {
            readers.execute(() -> then.accept(claimCall(callId, tagNode)));
        }
        catch (final RejectedExecutionException e) // closed, or CAPACITY reads waiting
        {
            readFailed(callId, e);
            then.accept(Takeover.NONE);
        }
    }

    /**
     * The call of {@code callId} claimed for this node, or its live owner, or none. A call is claimed from the node
     * whose tag the request carries (the front found it dead even when the grid has not seen it leave yet), from a
     * node that left the grid, or is this node's already; a call another live node claimed is that node's.
     */
    private Takeover claimCall(final String callId, final int tagNode)
    {
        try
        {
            final Optional<ApplicationSnapshot> found = grid.readByCallId(callId);
            if (found.isEmpty())
            {
                return Takeover.NONE;
            }
            final String id = found.get().id();
            for (int attempt = 0; attempt < 2; attempt++) // a claim lost to another node: that node is the owner
            {
                final int owner = grid.owner(id);
                if (owner < 0)
                {
                    return Takeover.NONE; // ended meanwhile
                }
                if (owner != node && owner != tagNode && grid.member(owner))
                {
                    return new Takeover(null, owner);
                }
                if (owner == node || grid.claim(id, owner, node))
                {
                    final Optional<ApplicationSnapshot> now = grid.read(id); // newer than the first read, maybe
                    return now.isPresent() ? new Takeover(now.get(), node) : Takeover.NONE;
                }
            }
            return Takeover.NONE;
        }
        catch (final RuntimeException e)
        {
            readFailed(callId, e);
            return Takeover.NONE;
        }
    }

    @Override
    public void adoptOrphans(final Consumer<List<ApplicationSnapshot>> adopt)
    {
        grid.onMemberLeft(left ->
        {
            try
            {
                adopter.execute(() -> adopt(left, adopt));
            }
            catch (final RejectedExecutionException e)
            {
                readFailed("of node " + left, e);
            }
        });
    }

    /**
     * Claims the calls of node {@code left} this member decides for, {@value #ADOPT_BATCH} at a time, and hands each
     * batch claimed to {@code adopt}.
     */
    private void adopt(final int left, final Consumer<List<ApplicationSnapshot>> adopt)
    {
        if (left == node)
        {
            return;
        }
        final List<String> owned = grid.ownedBy(left);
        int claimed = 0;
        for (int from = 0; from < owned.size(); from += ADOPT_BATCH)
        {
            final List<String> batch = owned.subList(from, Math.min(owned.size(), from + ADOPT_BATCH));
            try
            {
                final Map<String, ApplicationSnapshot> read = grid.readAll(grid.claimAll(batch, left, node));
                if (!read.isEmpty())
                {
                    claimed += read.size();
                    adopted.addAndGet(read.size()); // before the hand-off: the shard may serve the calls at once
                    adopt.accept(List.copyOf(read.values()));
                }
            }
            catch (final RuntimeException e)
            {
                readFailed(batch.getFirst() + " and " + (batch.size() - 1) + " more", e);
            }
        }
        err.println("sipline: cluster: node " + left + " left the grid; node " + node + " took over " + claimed
            + " of its calls");
        err.flush();
    }

    /** Calls of nodes that left the grid claimed by this node and handed to its shards. */
    public long adopted()
    {
        return adopted.get();
    }

    private void readFailed(final String call, final Exception e)
    {
        if (0 == readFailures.getAndIncrement())
        {
            err.println("sipline: grid reader: call " + call + " not read: " + e);
            err.flush();
        }
    }

    @Override
    public int node()
    {
        return node;
    }

    @Override
    public void write(final ApplicationSnapshot snapshot)
    {
        offer(new Pending(snapshot.id(), snapshot));
    }

    @Override
    public void remove(final String id)
    {
        offer(new Pending(id, null));
    }

    private void offer(final Pending p)
    {
        if (!queue.offer(p))
        {
            if (0 == dropped.getAndIncrement())
            {
                err.println("sipline: grid writer: " + CAPACITY + " snapshots queued, dropping (the grid is slower "
                    + "than the calls' dialog boundaries)");
                err.flush();
            }
            return;
        }
        if (idle)
        {
            LockSupport.unpark(writer);
        }
    }

    /** Snapshots written to the grid so far. */
    public long written()
    {
        return written.get();
    }

    /** Bytes of keys and values handed to the grid in writes so far ({@link SessionReplicator#bytesWritten}). */
    public long bytesWritten()
    {
        return grid.bytesWritten();
    }

    /** Bytes the grid's transport sent to the other members so far, or -1 ({@link SessionReplicator#bytesSent}). */
    public long bytesSent()
    {
        return grid.bytesSent();
    }

    /** Sessions removed from the grid so far. */
    public long removed()
    {
        return removed.get();
    }

    /** Operations dropped because the queue was full. */
    public long dropped()
    {
        return dropped.get();
    }

    /** Operations the grid refused or did not complete in time. */
    public long failed()
    {
        return failed.get();
    }

    private void run()
    {
        while (true)
        {
            final Pending p = queue.poll();
            if (null != p)
            {
                apply(p);
                continue;
            }
            if (closing)
            {
                return;
            }
            idle = true;
            if (queue.isEmpty() && !closing)
            {
                LockSupport.parkNanos(IDLE_PARK_NS);
            }
            idle = false;
        }
    }

    private void apply(final Pending p)
    {
        try
        {
            inFlight.acquire();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            closing = true;
            return;
        }
        final CompletableFuture<Void> previous = tails.get(p.id());
        final CompletableFuture<Void> op = null == previous || previous.isDone() ? send(p)
            : previous.handle((v, e) -> null).thenCompose(v -> send(p));
        tails.put(p.id(), op);
        op.orTimeout(WRITE_TIMEOUT_MS, TimeUnit.MILLISECONDS).whenComplete((v, e) ->
        {
            tails.remove(p.id(), op);
            inFlight.release();
            if (null == e)
            {
                (null == p.snapshot() ? removed : written).incrementAndGet();
            }
            else if (0 == failed.getAndIncrement())
            {
                err.println("sipline: grid writer: session " + p.id() + " not written: "
                    + (e instanceof CompletionException ? e.getCause() : e));
                err.flush();
            }
        });
    }

    /** Sends one operation to the grid; a grid that throws gives a failed future. */
    private CompletableFuture<Void> send(final Pending p)
    {
        try
        {
            return (null == p.snapshot() ? grid.remove(p.id()) : grid.write(p.snapshot())).toCompletableFuture();
        }
        catch (final RuntimeException e)
        {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Reads of calls the grid failed or that found the readers closed or full. */
    public long readFailures()
    {
        return readFailures.get();
    }

    /** Writes what is queued (at most {@code 2 x} the write timeout) and stops the writer and reader threads. */
    @Override
    public void close()
    {
        readers.shutdownNow();
        adopter.shutdownNow();
        closing = true;
        LockSupport.unpark(writer);
        try
        {
            writer.join(2 * WRITE_TIMEOUT_MS);
            // the operations still in flight complete or time out
            if (inFlight.tryAcquire(IN_FLIGHT, WRITE_TIMEOUT_MS, TimeUnit.MILLISECONDS))
            {
                inFlight.release(IN_FLIGHT);
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
