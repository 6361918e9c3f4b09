package io.sipline.media.stun;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Outstanding STUN requests kept as state only — transaction id, token, retransmission schedule — not as copies of
 * the bytes: the owner writes the request again (same transaction id) for each retransmission. This is the
 * small-footprint sibling of {@link StunClientTransactions} for owners whose requests are cheap to rebuild (ICE
 * checks, TURN requests): about 40 bytes per slot instead of a 548-byte copy.
 *
 * <p>Schedule (RFC 8489 §6.2.1): sends at 0, RTO, 3 RTO, 7 RTO ... until Rc sends, then the transaction times out
 * Rm × RTO after the last one. A cancelled slot (RFC 8445 §7.3.1.4) sends no more but still matches a late
 * response until that final timeout.
 *
 * <p>Use: {@link #start} a slot, write the message with {@link #tidHigh}/{@link #tidLow}, send it, call
 * {@link #sent}; on receive {@link #find} the slot by transaction id; from the owner's poll walk {@link #due} slots
 * and either retransmit ({@link #shouldRetransmit}) or time them out, then {@link #free}.
 *
 * <p>Not thread-safe; owned by one media thread. Allocates only at construction.
 */
public final class StunRequestSlots
{
    private final long rtoMs;
    private final int rc;
    private final int rm;
    private final long[] tokens;
    private final int[] tidHigh;
    private final long[] tidLow;
    private final long[] deadlineMs;
    private final long[] intervalMs;
    private final byte[] sends;
    private final byte[] status;
    private int activeCount;

    private static final byte FREE = 0;
    private static final byte ACTIVE = 1;
    private static final byte CANCELLED = 2;

    /**
     * @param capacity slots.
     * @param rtoMs    initial RTO.
     * @param rc       total sends (1-127).
     * @param rm       final wait as a multiple of the initial RTO.
     */
    public StunRequestSlots(final int capacity, final long rtoMs, final int rc, final int rm)
    {
        if (capacity < 1 || rtoMs < 1 || rc < 1 || rc > 127 || rm < 1)
        {
            throw new IllegalArgumentException("bad STUN request slot configuration");
        }
        this.rtoMs = rtoMs;
        this.rc = rc;
        this.rm = rm;
        tokens = new long[capacity];
        tidHigh = new int[capacity];
        tidLow = new long[capacity];
        deadlineMs = new long[capacity];
        intervalMs = new long[capacity];
        sends = new byte[capacity];
        status = new byte[capacity];
    }

    /**
     * Takes a free slot and gives it a fresh random transaction id (RFC 8489 §6: uniformly random; responses are
     * authenticated by MESSAGE-INTEGRITY where it matters).
     *
     * @param token the owner's value for the request.
     * @return the slot, or -1 when all are busy.
     */
    public int start(final long token)
    {
        for (int slot = 0; slot < status.length; slot++)
        {
            if (FREE == status[slot])
            {
                status[slot] = ACTIVE;
                activeCount++;
                tokens[slot] = token;
                tidHigh[slot] = ThreadLocalRandom.current().nextInt();
                tidLow[slot] = ThreadLocalRandom.current().nextLong();
                sends[slot] = 0;
                intervalMs[slot] = rtoMs;
                return slot;
            }
        }
        return -1;
    }

    /**
     * Records a (re)transmission and schedules the next event.
     *
     * @param slot  the slot.
     * @param nowMs the owner's clock.
     */
    public void sent(final int slot, final long nowMs)
    {
        sends[slot]++;
        if (sends[slot] < rc)
        {
            deadlineMs[slot] = nowMs + intervalMs[slot];
            intervalMs[slot] <<= 1; // §6.2.1: RTO doubles after each retransmission
        }
        else
        {
            deadlineMs[slot] = nowMs + rm * rtoMs; // §6.2.1: wait Rm * RTO after the last request
        }
    }

    /**
     * Holds a started slot's first transmission until {@code atMs}: {@link #due} returns it then with no send
     * recorded ({@link #sends} 0), and the owner writes it for the first time (a paced start, RFC 8445 §14.2).
     *
     * @param slot a slot started and not yet sent.
     * @param atMs when its first transmission is due.
     */
    public void defer(final int slot, final long atMs)
    {
        deadlineMs[slot] = atMs;
    }

    /**
     * Stops retransmitting a slot but keeps matching its responses until Rm × RTO from now.
     *
     * @param slot  the slot.
     * @param nowMs the owner's clock.
     */
    public void cancel(final int slot, final long nowMs)
    {
        if (ACTIVE == status[slot])
        {
            status[slot] = CANCELLED;
            deadlineMs[slot] = nowMs + rm * rtoMs;
        }
    }

    /**
     * @param response a wrapped response.
     * @return the slot whose transaction id it carries, or -1.
     */
    public int find(final StunMessageFlyweight response)
    {
        if (0 == activeCount)
        {
            return -1;
        }
        final int high = response.transactionIdHigh();
        final long low = response.transactionIdLow();
        for (int slot = 0; slot < status.length; slot++)
        {
            if (FREE != status[slot] && tidHigh[slot] == high && tidLow[slot] == low)
            {
                return slot;
            }
        }
        return -1;
    }

    /**
     * @param from  first slot to look at.
     * @param nowMs the owner's clock.
     * @return the first busy slot at or after {@code from} whose deadline has passed, or -1.
     */
    public int due(final int from, final long nowMs)
    {
        for (int slot = from; slot < status.length; slot++)
        {
            if (FREE != status[slot] && nowMs - deadlineMs[slot] >= 0)
            {
                return slot;
            }
        }
        return -1;
    }

    /**
     * @param slot a due slot.
     * @return true to retransmit it, false when it has timed out (free it then).
     */
    public boolean shouldRetransmit(final int slot)
    {
        return ACTIVE == status[slot] && sends[slot] < rc;
    }

    /**
     * @param slot a slot.
     * @return whether it was cancelled.
     */
    public boolean cancelled(final int slot)
    {
        return CANCELLED == status[slot];
    }

    /**
     * @param slot a slot.
     * @return whether it is in use.
     */
    public boolean busy(final int slot)
    {
        return FREE != status[slot];
    }

    /**
     * @param slot a slot.
     */
    public void free(final int slot)
    {
        if (FREE != status[slot])
        {
            status[slot] = FREE;
            activeCount--;
        }
    }

    /** Frees every slot. */
    public void clear()
    {
        Arrays.fill(status, FREE);
        activeCount = 0;
    }

    /**
     * @return the earliest deadline of a busy slot, or {@link Long#MAX_VALUE}.
     */
    public long nextDeadlineMs()
    {
        long next = Long.MAX_VALUE;
        for (int slot = 0; slot < status.length; slot++)
        {
            if (FREE != status[slot] && deadlineMs[slot] < next)
            {
                next = deadlineMs[slot];
            }
        }
        return next;
    }

    /** @return slots. */
    public int capacity()
    {
        return status.length;
    }

    /** @return busy slots. */
    public int activeCount()
    {
        return activeCount;
    }

    /** @return the slot's token. */
    public long token(final int slot)
    {
        return tokens[slot];
    }

    /**
     * Replaces a busy slot's token (the owner renumbered what the token names; the transaction goes on).
     *
     * @param slot  a busy slot.
     * @param token the new token.
     */
    public void retoken(final int slot, final long token)
    {
        tokens[slot] = token;
    }

    /** @return the first 4 bytes of the slot's transaction id. */
    public int tidHigh(final int slot)
    {
        return tidHigh[slot];
    }

    /** @return the last 8 bytes of the slot's transaction id. */
    public long tidLow(final int slot)
    {
        return tidLow[slot];
    }

    /** @return sends so far. */
    public int sends(final int slot)
    {
        return sends[slot];
    }
}
