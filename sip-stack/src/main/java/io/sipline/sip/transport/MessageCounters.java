package io.sipline.sip.transport;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.message.SipMessage;

/**
 * One shard's live SIP traffic counters, for the admin port's {@code /metrics}: messages in and out by request method
 * ({@link SipMethod}, with {@link SipMethod#EXTENSION} standing for every other method) and by response status class
 * (1xx to 6xx), retransmissions sent, and a few gauges and counts the shard mirrors once per tick (transactions and
 * dialogs active, hand-over drops, malformed messages, listener errors). {@link ShardCounters} keeps the per-datagram
 * transport counts (parse errors by reason, send failures, drops); this class adds what is counted per SIP message.
 *
 * <p><b>Memory model.</b> A single writer: the shard's event-loop thread. Each slot is a plain {@code long} in one
 * array, written with a plain read of the writer's own last value followed by an opaque store ({@link VarHandle}
 * {@code setOpaque}); readers on any thread use {@code getOpaque}. Opaque access makes every 64-bit store atomic (no
 * torn value) and eventually visible to other threads, in the writer's program order per slot, without the fence a
 * volatile or release store would cost on the hot path. Metrics need no ordering between two slots, so nothing
 * stronger is used: a scrape may see one counter a message ahead of another. No lock, no allocation per message.
 * The array is padded at both ends (a cache line each) so that another shard's counters never share a line with these.
 *
 * <p>Writers: the shard's thread only. Readers ({@code requestsIn}, ...): any thread.
 */
public final class MessageCounters
{
    /** Request method slots: one per {@link SipMethod}, {@link SipMethod#EXTENSION} for "other". */
    public static final int METHODS = SipMethod.values().length;
    /** Status classes 1xx to 6xx (RFC 3261 §7.2). */
    public static final int CLASSES = 6;

    /** Gauge: transactions in use (client and server tables). */
    public static final int TRANSACTIONS_ACTIVE = 0;
    /** Gauge: dialogs in the shard's dialog table. */
    public static final int DIALOGS_ACTIVE = 1;
    /** Count: hand-overs dropped because the owning shard's queue was full. */
    public static final int HANDOFF_DROPS = 2;
    /** Count: messages that did not parse or had no usable top Via (the shard's {@code malformed()}). */
    public static final int MALFORMED = 3;
    /** Count: exceptions thrown by the shard's listener, caught. */
    public static final int LISTENER_ERRORS = 4;
    /** Count: datagrams read here for a call of another shard and handed over. */
    public static final int HANDOFFS_OUT = 5;
    /**
     * Count: retransmissions put off because the stack's input lagged behind their due time (the transaction layer's
     * timers A, E, G and the listener's own, e.g. a 2xx to INVITE), each time one was set again.
     */
    public static final int RETRANSMISSIONS_DEFERRED = 6;
    private static final int MIRRORED = 7;

    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(long[].class);
    /** Eight longs: one cache line on each side. */
    private static final int PAD = 8;
    private static final int IN_METHOD = PAD;
    private static final int OUT_METHOD = IN_METHOD + METHODS;
    private static final int IN_CLASS = OUT_METHOD + METHODS;
    private static final int OUT_CLASS = IN_CLASS + CLASSES;
    private static final int RETRANSMISSIONS = OUT_CLASS + CLASSES;
    private static final int MIRROR = RETRANSMISSIONS + 1;
    private static final int END = MIRROR + MIRRORED;
    /** Longest method token looked up; longer ones are "other" (SUBSCRIBE, the longest known, has 9 bytes). */
    private static final int MAX_TOKEN = 10;

    private final long[] slots = new long[END + PAD];
    /** Writer's scratch for the method token of an outbound request. */
    private final byte[] token = new byte[MAX_TOKEN];

    // ================================================================================================================
    // Writers: the owning shard's thread only
    // ================================================================================================================

    /** A well-formed message read by this shard (borrowed). */
    public void inbound(final SipMessage m)
    {
        if (m.isRequest())
        {
            increment(IN_METHOD + m.method().ordinal());
        }
        else
        {
            increment(IN_CLASS + classIndex(m.statusCode()));
        }
    }

    /**
     * A message handed to a transport.
     *
     * @param message borrowed, read from its reader index and not moved: a request line or a status line.
     * @return the status code when it is a response, 0 for a request.
     */
    public int outbound(final ByteBuf message)
    {
        final int at = message.readerIndex();
        final int length = message.readableBytes();
        if (length >= 12 && message.getByte(at) == 'S' && message.getByte(at + 1) == 'I'
            && message.getByte(at + 2) == 'P' && message.getByte(at + 3) == '/')
        {
            // "SIP/2.0 NNN": RFC 3261 §7.2, the status code follows the version and one space.
            final int status = 100 * digit(message.getByte(at + 8)) + 10 * digit(message.getByte(at + 9))
                + digit(message.getByte(at + 10));
            increment(OUT_CLASS + classIndex(status));
            return status;
        }
        final byte[] t = token;
        int n = 0;
        while (n < length && n < MAX_TOKEN)
        {
            final byte b = message.getByte(at + n);
            if (b == ' ')
            {
                break;
            }
            t[n++] = b;
        }
        increment(OUT_METHOD + SipMethod.lookup(t, 0, n).ordinal());
        return 0;
    }

    /** A response sent without a buffer passing through here (a stateless answer to a malformed request). */
    public void responseOut(final int status)
    {
        increment(OUT_CLASS + classIndex(status));
    }

    /** A message a transaction re-sent on its own (RFC 3261 §17: timers A, E, G, a retransmitted request). */
    public void retransmission()
    {
        increment(RETRANSMISSIONS);
    }

    /** Sets one of the mirrored slots ({@link #TRANSACTIONS_ACTIVE} ...) to the owner's current value. */
    public void mirror(final int slot, final long value)
    {
        SLOTS.setOpaque(slots, MIRROR + slot, value);
    }

    private void increment(final int i)
    {
        SLOTS.setOpaque(slots, i, slots[i] + 1);
    }

    private static int digit(final byte b)
    {
        return b >= '0' && b <= '9' ? b - '0' : 0;
    }

    /** 0 for 1xx ... 5 for 6xx; a status outside 100-699 (none parses) is counted as 6xx. */
    private static int classIndex(final int status)
    {
        final int c = status / 100 - 1;
        return c < 0 || c >= CLASSES ? CLASSES - 1 : c;
    }

    // ================================================================================================================
    // Readers: any thread
    // ================================================================================================================

    /** Requests of that method read by this shard (well-formed, retransmissions included). */
    public long requestsIn(final SipMethod method)
    {
        return read(IN_METHOD + method.ordinal());
    }

    /** Requests of that method handed to a transport (retransmissions included). */
    public long requestsOut(final SipMethod method)
    {
        return read(OUT_METHOD + method.ordinal());
    }

    /** Responses of status class {@code statusClass}xx (1 to 6) read by this shard. */
    public long responsesIn(final int statusClass)
    {
        return read(IN_CLASS + checkClass(statusClass) - 1);
    }

    /** Responses of status class {@code statusClass}xx (1 to 6) handed to a transport (retransmissions included). */
    public long responsesOut(final int statusClass)
    {
        return read(OUT_CLASS + checkClass(statusClass) - 1);
    }

    /** Messages re-sent by transactions (see {@link #retransmission()}). */
    public long retransmissions()
    {
        return read(RETRANSMISSIONS);
    }

    /** A mirrored slot ({@link #TRANSACTIONS_ACTIVE} ...), as of the shard's last tick. */
    public long mirrored(final int slot)
    {
        if (slot < 0 || slot >= MIRRORED)
        {
            throw new IllegalArgumentException("no mirrored slot " + slot);
        }
        return read(MIRROR + slot);
    }

    private long read(final int i)
    {
        return (long)SLOTS.getOpaque(slots, i);
    }

    private static int checkClass(final int statusClass)
    {
        if (statusClass < 1 || statusClass > CLASSES)
        {
            throw new IllegalArgumentException("status class " + statusClass + " is not 1 to 6");
        }
        return statusClass;
    }
}
