package io.sipline.sip.transaction;

import java.util.function.LongSupplier;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.sipline.sip.transport.RealtimeClock;

/**
 * Settings of one shard's {@link TransactionLayer}: the RFC 3261 timer bases and the sizes of its pools and table.
 * Fluent setters; read once by the layer's constructor. Not thread-safe: build it on one thread, then hand it over.
 *
 * <pre>
 *   timer  value (RFC 3261 Table 4, RFC 6026)      unreliable         reliable
 *   A      INVITE request retransmit, doubles      T1, 2T1, 4T1...    -
 *   B      INVITE client timeout                   64*T1              64*T1
 *   D      wait for response retransmits           32 s (max(32s,64*T1) if T1 > 500 ms)   0
 *   E      non-INVITE retransmit                   min(2^n*T1, T2)    -
 *   F      non-INVITE client timeout               64*T1              64*T1
 *   G      INVITE response retransmit              min(2^n*T1, T2)    -
 *   H      wait for ACK                            64*T1              64*T1
 *   I      wait for ACK retransmits                T4                 0
 *   J      wait for non-INVITE retransmits         64*T1              0
 *   K      wait for response retransmits           T4                 0
 *   L      Accepted, server (RFC 6026)             64*T1              64*T1
 *   M      Accepted, client (RFC 6026)             64*T1              64*T1
 * </pre>
 */
public final class TransactionConfig
{
    public static final long T1_DEFAULT_NS = 500_000_000L;
    public static final long T2_DEFAULT_NS = 4_000_000_000L;
    public static final long T4_DEFAULT_NS = 5_000_000_000L;
    /** Timer D's floor for unreliable transports (RFC 3261 §17.1.1.2: "at least 32 seconds"). */
    public static final long TIMER_D_MIN_NS = 32_000_000_000L;
    /** 100 Trying for INVITE: at once (see {@link #trying100DelayNs(long)}). */
    public static final long TRYING_100_DELAY_DEFAULT_NS = 0L;

    private long t1Ns = T1_DEFAULT_NS;
    private long t2Ns = T2_DEFAULT_NS;
    private long t4Ns = T4_DEFAULT_NS;
    private long trying100DelayNs = TRYING_100_DELAY_DEFAULT_NS;
    private int initialPoolSize = 256;
    private int initialTableCapacity = 1024;
    private int timerPollLimit = 1024;
    private ByteBufAllocator allocator = PooledByteBufAllocator.DEFAULT;
    private LongSupplier realtimeClock = RealtimeClock::nanos;

    public long t1Ns()
    {
        return t1Ns;
    }

    /** RTT estimate, default 500 ms (RFC 3261 §17.1.1.1). */
    public TransactionConfig t1Ns(final long value)
    {
        t1Ns = positive(value, "t1Ns");
        return this;
    }

    public long t2Ns()
    {
        return t2Ns;
    }

    /** Cap on non-INVITE and INVITE-response retransmit intervals, default 4 s. */
    public TransactionConfig t2Ns(final long value)
    {
        t2Ns = positive(value, "t2Ns");
        return this;
    }

    public long t4Ns()
    {
        return t4Ns;
    }

    /** Maximum time a message stays in the network, default 5 s. */
    public TransactionConfig t4Ns(final long value)
    {
        t4Ns = positive(value, "t4Ns");
        return this;
    }

    public long trying100DelayNs()
    {
        return trying100DelayNs;
    }

    /**
     * When an INVITE server transaction sends {@code 100 Trying} on its own (RFC 3261 §17.2.1): 0 (the default) sends
     * it at once; a positive delay sends it only if the user has not answered within that time (200 ms is the RFC's
     * figure); a negative value never sends it (the user promises to answer within 200 ms itself).
     *
     * <p>Why at once by default: §17.2.1 makes the 100 mandatory unless the transaction knows the user will answer
     * within 200 ms, and a container cannot know that of a servlet (a B2BUA or proxy waits on the next hop; a
     * blocking application runs on virtual threads). Sending at once stops the UAC's timer A retransmissions
     * earliest, costs one small datagram that most calls need anyway, and needs no timer. The 100 is built from the
     * INVITE while it is at hand, in both modes, since the borrowed message is gone when a delay expires.
     */
    public TransactionConfig trying100DelayNs(final long value)
    {
        trying100DelayNs = value;
        return this;
    }

    public int initialPoolSize()
    {
        return initialPoolSize;
    }

    /** Transactions of each of the four kinds made at start; the pools grow past it on a miss (counted). */
    public TransactionConfig initialPoolSize(final int value)
    {
        initialPoolSize = (int)positive(value, "initialPoolSize");
        return this;
    }

    public int initialTableCapacity()
    {
        return initialTableCapacity;
    }

    /** Slots of each transaction table at start (rounded up to a power of two; grows at half load). */
    public TransactionConfig initialTableCapacity(final int value)
    {
        initialTableCapacity = (int)positive(value, "initialTableCapacity");
        return this;
    }

    public int timerPollLimit()
    {
        return timerPollLimit;
    }

    /** The most timers one {@link TransactionLayer#doWork(long)} fires. */
    public TransactionConfig timerPollLimit(final int value)
    {
        timerPollLimit = (int)positive(value, "timerPollLimit");
        return this;
    }

    public ByteBufAllocator allocator()
    {
        return allocator;
    }

    /** Where the layer allocates the messages it builds itself (100 Trying, ACK for non-2xx). */
    public TransactionConfig allocator(final ByteBufAllocator value)
    {
        allocator = value;
        return this;
    }

    public LongSupplier realtimeClock()
    {
        return realtimeClock;
    }

    /**
     * The wall clock, nanoseconds since the epoch, that the layer reads when an INVITE server transaction hands a
     * response to the transport, to time it against the INVITE's {@code SipMessage.receivedAtNanos()} (same time
     * base; see {@link InviteResponse}). Default {@link RealtimeClock#nanos()}; tests give a value they set. Read on
     * the owning shard only; never used for timers (those run on the layer's {@link NanoClock}).
     */
    public TransactionConfig realtimeClock(final LongSupplier value)
    {
        if (null == value)
        {
            throw new IllegalArgumentException("realtimeClock must not be null");
        }
        realtimeClock = value;
        return this;
    }

    /** 64*T1: timers B, F, H, J (unreliable), L, M. */
    public long timer64T1Ns()
    {
        return 64 * t1Ns;
    }

    /** Timer D on an unreliable transport: 32 s, or 64*T1 when T1 is larger than the default. */
    public long timerDNs()
    {
        return Math.max(TIMER_D_MIN_NS, 64 * t1Ns);
    }

    private static long positive(final long value, final String name)
    {
        if (value <= 0)
        {
            throw new IllegalArgumentException(name + " must be positive: " + value);
        }
        return value;
    }
}
