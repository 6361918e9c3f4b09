package io.sipline.sip.stack;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.sipline.sip.message.ParsedCopy;
import io.sipline.sip.message.SipMessage;
import org.jctools.queues.MessagePassingQueue;
import org.jctools.queues.MpscArrayQueue;

/**
 * The hand-over between shards, one per {@link StackShard}: the reading shard copies a message of another shard's call
 * into a pooled buffer, with its parse ({@link ParsedCopy}: the owner rebinds it rather than parsing again), and
 * offers it, in a {@link Handoff} record of its own, to the owner's bounded MPSC inbox; the owner drains its inbox in
 * one task scheduled when the inbox goes non-empty (no task per message), and sends each record back to its origin's
 * return queue, so that records are reused and no node is made per message.
 *
 * <p>Wake-ups: a datagram's hand-over defers waking its owner to the end of the reading shard's read batch
 * ({@link #wakeDeferred}), so that a batch of several datagrams for one owner costs it one wake-up (an eventfd write
 * and a turn of its loop) instead of one each; the tick wakes whatever a batch left deferred.
 *
 * <p>Buffers: the copy belongs to the reading shard until the target's inbox accepts it (a full inbox releases it at
 * once and counts the drop: UDP retransmits), then to the owning shard, which releases it once after reading it
 * into its message.
 *
 * <p>Threading: {@link #handOver} and the record pool run on the reading shard's loop; {@link #offer} and
 * {@link #wake} on any thread; the drain and {@link #returnRecord} on the owning shard's loop. The counters are plain
 * fields written by the owning loop, read racily for metrics.
 */
final class ShardInbox
{
    private final StackShard shard;
    private final StackShard[] all;
    private final int drainLimit;
    private final MpscArrayQueue<Handoff> inbox;
    private final MpscArrayQueue<Handoff> returned;
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = new DrainTask();
    /** Takes the records of both queues: the inbox's to process, the return queue's to reuse. */
    private final MessagePassingQueue.Consumer<Handoff> consumer;
    private Handoff[] freeRecords;
    private int freeRecordCount;
    /** Shards handed a message since the last {@link #wakeDeferred} (reading shard), and whether each is listed. */
    private final int[] deferredTargets;
    private final boolean[] deferred;
    private int deferredCount;

    // counters: plain longs written by their shard only, read racily for metrics
    long handoffsOut;
    long handoffDrops;
    long handoffRecordMisses;
    /** Drains this shard scheduled on other shards' loops by its hand-overs: each one a wake-up of that loop. */
    long wakesSent;

    ShardInbox(final StackShard shard, final StackShard[] all, final SipStackConfig config,
        final MessagePassingQueue.Consumer<Handoff> consumer)
    {
        this.shard = shard;
        this.all = all;
        this.drainLimit = config.drainLimit();
        this.consumer = consumer;
        this.inbox = new MpscArrayQueue<>(config.handoffQueueCapacity());
        // Every record this shard lends out fits in one return queue: at most one inbox-full per other shard.
        this.returned = new MpscArrayQueue<>(Math.max(2, config.handoffQueueCapacity() * Math.max(1, all.length)));
        this.deferredTargets = new int[all.length];
        this.deferred = new boolean[all.length];
        this.freeRecords = new Handoff[Math.max(16, config.handoffQueueCapacity())];
        for (int i = 0; i < freeRecords.length; i++)
        {
            final Handoff h = new Handoff();
            h.origin = shard.index();
            freeRecords[freeRecordCount++] = h;
        }
    }

    /**
     * Reading shard: copy the message and its parse and offer them to the owner's inbox; false when that is full.
     *
     * @param deferWake true to wake the owner at the end of the read batch ({@link #wakeDeferred}), false at once.
     */
    boolean handOver(final StackShard target, final SipMessage m, final InetSocketAddress source,
        final InetSocketAddress local, final boolean deferWake)
    {
        final Handoff h = acquireRecord();
        final ByteBuf copy = shard.allocate(ParsedCopy.size(m)); // released by the target shard once it has read it
        ParsedCopy.write(m, copy); // the bytes and this shard's parse of them: the owner need not parse again
        h.datagram = copy;
        h.source = source;
        h.local = local;
        h.receivedAtNanos = m.receivedAtNanos();
        if (!target.inbox().offer(h))
        {
            // Queue full: the copy is still ours; release it and drop the datagram (the peer retransmits).
            copy.release();
            h.clear();
            freeRecords[freeRecordCount++] = h;
            handoffDrops++;
            return false;
        }
        handoffsOut++; // from here the copy belongs to the target shard
        if (!deferWake)
        {
            wakesSent += target.inbox().wake() ? 1 : 0;
        }
        else if (!deferred[target.index()])
        {
            deferred[target.index()] = true;
            deferredTargets[deferredCount++] = target.index();
        }
        return true;
    }

    /** Reading shard, at the end of a read batch and every tick: wakes each shard handed a message since the last. */
    void wakeDeferred()
    {
        for (int i = 0; i < deferredCount; i++)
        {
            final int target = deferredTargets[i];
            deferred[target] = false;
            wakesSent += all[target].inbox().wake() ? 1 : 0;
        }
        deferredCount = 0;
    }

    /** Any thread: queue a record for this shard; false when the inbox is full. */
    boolean offer(final Handoff h)
    {
        return inbox.offer(h);
    }

    private Handoff acquireRecord()
    {
        if (0 == freeRecordCount)
        {
            returned.drain(consumer, freeRecords.length);
        }
        if (0 == freeRecordCount)
        {
            handoffRecordMisses++;
            final Handoff h = new Handoff();
            h.origin = shard.index();
            return h;
        }
        final Handoff h = freeRecords[--freeRecordCount];
        freeRecords[freeRecordCount] = null;
        return h;
    }

    /**
     * Any thread: make sure a drain of this shard's inbox is scheduled on its loop (one task, not one per message).
     *
     * @return true when this call scheduled it (a wake-up of the loop if it was waiting), false when one was pending.
     */
    boolean wake()
    {
        final EventLoop l = shard.loop();
        // Plain read first: most offers find a drain already scheduled and skip the CAS.
        if (null != l && !drainScheduled.get() && drainScheduled.compareAndSet(false, true))
        {
            l.execute(drainTask);
            return true;
        }
        return false;
    }

    /** Owning shard: hands up to the drain limit of queued records to the consumer. */
    int drain()
    {
        return inbox.drain(consumer, drainLimit);
    }

    /** Owning shard, once a record's copy is released: the record goes home (or back to this shard's free list). */
    void returnRecord(final Handoff h)
    {
        final StackShard origin = all[h.origin];
        h.clear();
        if (origin != shard)
        {
            origin.inbox().returned.offer(h); // a full return queue means the record is left to the GC
        }
        else
        {
            recycleLocal(h);
        }
    }

    /** A record of this shard, given back by the shard that processed it. */
    void recycleLocal(final Handoff h)
    {
        if (freeRecordCount < freeRecords.length)
        {
            freeRecords[freeRecordCount++] = h;
        }
    }

    /** Hand-overs waiting (JCTools' size: any thread, a consistent estimate). */
    int depth()
    {
        return inbox.size();
    }

    /** Releases every datagram still queued (after the loops stopped, or on the loop at stop). */
    void releaseAll()
    {
        Handoff h;
        while (null != (h = inbox.poll()))
        {
            h.datagram.release(); // never processed: the owning shard's copy, released here
            h.clear();
        }
    }

    /** Scheduled once when the inbox goes non-empty (see {@link #wake()}); no task object per message. */
    private final class DrainTask implements Runnable
    {
        @Override
        public void run()
        {
            // Clear the flag before draining: an offer after our last poll sees it clear and schedules another run,
            // so no datagram is left waiting; at worst one run finds the queue empty.
            drainScheduled.set(false);
            shard.drainBatch();
            if (!inbox.isEmpty())
            {
                wake();
            }
        }
    }
}
