package io.sipline.media.stun;

import java.net.InetSocketAddress;

/**
 * STUN client transactions (RFC 8489 §6.2) in a fixed table of slots, driven by a clock the owner passes in: no
 * threads, no timer objects. A request is copied into its slot once and retransmitted from there.
 *
 * <p>Over UDP (§6.2.1) the request is sent at 0, then after RTO, 2*RTO, 4*RTO ... until Rc sends in all, and the
 * transaction fails Rm*RTO after the last send. With RTO = 500 ms, Rc = 7, Rm = 16: sends at 0, 500, 1500, 3500, 7500,
 * 15500 and 31500 ms, timeout at 39500 ms. Over a reliable transport (§6.2.2) it is sent once and fails after Ti
 * (39.5 s). Responses are matched by transaction id (§6.3); a slot is freed before its listener is called, so a
 * listener may start the next transaction at once.
 *
 * <p>Not implemented (yet): caching the RTO per server between transactions, the limit of 10 outstanding
 * transactions per server (§6.2.1), and ICMP-driven failure.
 *
 * <p>Not thread-safe; owned by one media thread. Allocates only at construction.
 */
public final class StunClientTransactions
{
    /** RFC 8489 §6.2.1 default initial RTO. */
    public static final long RTO_DEFAULT_MS = 500;
    /** RFC 8489 §6.2.1 default Rc: total sends. */
    public static final int RC_DEFAULT = 7;
    /** RFC 8489 §6.2.1 default Rm: final wait as a multiple of RTO. */
    public static final int RM_DEFAULT = 16;
    /** RFC 8489 §6.2.2 Ti for reliable transports. */
    public static final long TI_DEFAULT_MS = 39_500;
    /** Default slot count. */
    public static final int DEFAULT_CAPACITY = 16;
    /** Default largest request kept for retransmission (RFC 8489 §6.1 asks UDP messages to stay under 576 bytes). */
    public static final int DEFAULT_MAX_MESSAGE_LENGTH = 548;

    /** Returned by {@link #start} when every slot is busy. */
    public static final int FULL = -1;
    /** Returned by {@link #start} when the bytes are not a STUN request that fits a slot. */
    public static final int INVALID = -2;

    /**
     * What the owner hears about its transactions. Called on the owning thread from {@link #onResponse} and
     * {@link #poll}.
     */
    public interface Listener
    {
        /**
         * A response with the transaction's id arrived. Integrity and the {@code wrapResult} (unknown
         * comprehension-required attributes fail the transaction, §6.3.3) are for the listener to judge.
         *
         * @param token      the caller's token given to {@link #start}.
         * @param response   the response, valid only during the call.
         * @param wrapResult the framing code of the response.
         */
        void onResponse(long token, StunMessageFlyweight response, int wrapResult);

        /**
         * No response in time.
         *
         * @param token the caller's token.
         */
        void onTimeout(long token);
    }

    private final StunTransport transport;
    private final Listener listener;
    private final long rtoMs;
    private final int rc;
    private final int rm;
    private final long tiMs;
    private final int maxMessageLength;
    private final byte[] messages;
    private final int[] lengths;
    private final int[] tidHigh;
    private final long[] tidLow;
    private final long[] tokens;
    private final long[] deadlineMs;
    private final long[] intervalMs;
    private final int[] sendCount;
    private final boolean[] reliable;
    private final boolean[] active;
    private final InetSocketAddress[] destinations;
    private int activeCount;
    private long retransmissions;
    private long timeouts;

    /**
     * A table with the RFC 8489 defaults.
     *
     * @param transport where requests go.
     * @param listener  who hears the outcome.
     */
    public StunClientTransactions(final StunTransport transport, final Listener listener)
    {
        this(transport, listener, DEFAULT_CAPACITY, DEFAULT_MAX_MESSAGE_LENGTH, RTO_DEFAULT_MS, RC_DEFAULT, RM_DEFAULT,
            TI_DEFAULT_MS);
    }

    /**
     * @param transport        where requests go.
     * @param listener         who hears the outcome.
     * @param capacity         concurrent transactions.
     * @param maxMessageLength largest request kept for retransmission.
     * @param rtoMs            initial retransmission timeout.
     * @param rc               total sends over UDP (at least 1).
     * @param rm               final wait after the last send, in multiples of the initial RTO.
     * @param tiMs             timeout over reliable transports.
     */
    public StunClientTransactions(
        final StunTransport transport,
        final Listener listener,
        final int capacity,
        final int maxMessageLength,
        final long rtoMs,
        final int rc,
        final int rm,
        final long tiMs)
    {
        if (capacity < 1 || maxMessageLength < StunMessageFlyweight.HEADER_LENGTH || rtoMs < 1 || rc < 1 || rm < 1)
        {
            throw new IllegalArgumentException("bad STUN client transaction configuration");
        }
        this.transport = transport;
        this.listener = listener;
        this.rtoMs = rtoMs;
        this.rc = rc;
        this.rm = rm;
        this.tiMs = tiMs;
        this.maxMessageLength = maxMessageLength;
        this.messages = new byte[capacity * maxMessageLength];
        this.lengths = new int[capacity];
        this.tidHigh = new int[capacity];
        this.tidLow = new long[capacity];
        this.tokens = new long[capacity];
        this.deadlineMs = new long[capacity];
        this.intervalMs = new long[capacity];
        this.sendCount = new int[capacity];
        this.reliable = new boolean[capacity];
        this.active = new boolean[capacity];
        this.destinations = new InetSocketAddress[capacity];
    }

    /**
     * Copies a request into a free slot and sends it.
     *
     * @param request     an encoded STUN request (borrowed, copied).
     * @param offset      first byte.
     * @param length      bytes.
     * @param destination where to send it.
     * @param isReliable  true over TCP/TLS: one send, Ti timeout.
     * @param token       the caller's value, handed back to the listener.
     * @param nowMs       the owner's clock.
     * @return the slot, or {@link #FULL} or {@link #INVALID}.
     */
    public int start(
        final byte[] request,
        final int offset,
        final int length,
        final InetSocketAddress destination,
        final boolean isReliable,
        final long token,
        final long nowMs)
    {
        if (length > maxMessageLength || !StunMessageFlyweight.isStun(request, offset, length)
            || StunMessageType.CLASS_REQUEST != StunMessageType.messageClass(((request[offset] & 0x3F) << 8)
            | (request[offset + 1] & 0xFF)))
        {
            return INVALID;
        }
        final int slot = freeSlot();
        if (-1 == slot)
        {
            return FULL;
        }
        System.arraycopy(request, offset, messages, slot * maxMessageLength, length);
        lengths[slot] = length;
        tidHigh[slot] = readInt(messages, slot * maxMessageLength + StunMessageFlyweight.TRANSACTION_ID_FIELD_OFFSET);
        tidLow[slot] = ((long)readInt(messages, slot * maxMessageLength + 12) << 32)
            | (readInt(messages, slot * maxMessageLength + 16) & 0xFFFF_FFFFL);
        tokens[slot] = token;
        destinations[slot] = destination;
        reliable[slot] = isReliable;
        active[slot] = true;
        activeCount++;
        sendCount[slot] = 0;
        intervalMs[slot] = rtoMs;
        send(slot, nowMs);
        return slot;
    }

    /**
     * Offers a received message; a success or error response with the id of an active transaction completes it.
     *
     * @param response   a wrapped message.
     * @param wrapResult its framing code (negative codes are never matched).
     * @return true when it completed a transaction.
     */
    public boolean onResponse(final StunMessageFlyweight response, final int wrapResult)
    {
        if (wrapResult < 0 || 0 == activeCount || !StunMessageType.isResponse(response.messageType()))
        {
            return false;
        }
        final int high = response.transactionIdHigh();
        final long low = response.transactionIdLow();
        for (int slot = 0; slot < active.length; slot++)
        {
            if (active[slot] && tidHigh[slot] == high && tidLow[slot] == low)
            {
                final long token = tokens[slot];
                free(slot);
                listener.onResponse(token, response, wrapResult);
                return true;
            }
        }
        return false;
    }

    /**
     * Retransmits what is due and fails what has run out of time.
     *
     * @param nowMs the owner's clock.
     * @return retransmissions plus timeouts done.
     */
    public int poll(final long nowMs)
    {
        int work = 0;
        for (int slot = 0; slot < active.length; slot++)
        {
            if (!active[slot] || nowMs - deadlineMs[slot] < 0)
            {
                continue;
            }
            work++;
            if (!reliable[slot] && sendCount[slot] < rc)
            {
                retransmissions++;
                send(slot, nowMs);
            }
            else
            {
                final long token = tokens[slot];
                free(slot);
                timeouts++;
                listener.onTimeout(token);
            }
        }
        return work;
    }

    /**
     * @return the earliest deadline of an active transaction, or {@link Long#MAX_VALUE}.
     */
    public long nextDeadlineMs()
    {
        long earliest = Long.MAX_VALUE;
        for (int slot = 0; slot < active.length; slot++)
        {
            if (active[slot] && deadlineMs[slot] < earliest)
            {
                earliest = deadlineMs[slot];
            }
        }
        return earliest;
    }

    /**
     * Abandons a transaction without telling the listener.
     *
     * @param slot a value {@link #start} returned.
     * @return true when it was active.
     */
    public boolean cancel(final int slot)
    {
        if (slot < 0 || slot >= active.length || !active[slot])
        {
            return false;
        }
        free(slot);
        return true;
    }

    /**
     * @return active transactions.
     */
    public int activeCount()
    {
        return activeCount;
    }

    /**
     * @return retransmissions sent since construction.
     */
    public long retransmissions()
    {
        return retransmissions;
    }

    /**
     * @return transactions that timed out since construction.
     */
    public long timeouts()
    {
        return timeouts;
    }

    private void send(final int slot, final long nowMs)
    {
        sendCount[slot]++;
        if (reliable[slot])
        {
            deadlineMs[slot] = nowMs + tiMs;
        }
        else if (sendCount[slot] < rc)
        {
            deadlineMs[slot] = nowMs + intervalMs[slot];
            intervalMs[slot] <<= 1; // §6.2.1: RTO doubles after each retransmission
        }
        else
        {
            deadlineMs[slot] = nowMs + rm * rtoMs; // §6.2.1: wait Rm * RTO after the last request
        }
        transport.send(messages, slot * maxMessageLength, lengths[slot], destinations[slot]);
    }

    private int freeSlot()
    {
        for (int slot = 0; slot < active.length; slot++)
        {
            if (!active[slot])
            {
                return slot;
            }
        }
        return -1;
    }

    private void free(final int slot)
    {
        active[slot] = false;
        destinations[slot] = null;
        activeCount--;
    }

    private static int readInt(final byte[] b, final int at)
    {
        return ((b[at] & 0xFF) << 24) | ((b[at + 1] & 0xFF) << 16) | ((b[at + 2] & 0xFF) << 8) | (b[at + 3] & 0xFF);
    }
}
