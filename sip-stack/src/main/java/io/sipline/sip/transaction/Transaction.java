package io.sipline.sip.transaction;

import java.net.InetSocketAddress;
import java.util.Arrays;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.message.Ascii;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.timer.TimerWheel;

/**
 * What the four RFC 3261 §17 machines share: identity, state, the retained outbound message, two timer slots and
 * the matching key ({@link #key}: branch, sent-by and method, or the RFC 2543 fields, §17.2.3). Instances come from a
 * per-shard {@link TransactionPool} and go back to it when they terminate, so every field is reset for reuse
 * and every array is kept across pool lifetimes. Key bytes are copied out of the borrowed message.
 *
 * <p><b>The outbound buffer.</b> {@code outbound} holds the one reference this transaction owns on the last message
 * it sent (request, response or ACK), for retransmission. It is released when replaced and when the transaction
 * terminates ({@link #releaseBuffers()}), never elsewhere; replacing it with null is how a machine lets go of a
 * message it will not send again (an INVITE client transaction at its 2xx, an INVITE server transaction once its 2xx
 * went out).
 *
 * <p><b>Threading.</b> Not thread-safe; owned by one shard.
 */
public abstract class Transaction
{
    /** RFC 3261 timer names, as passed to {@link TransactionUser#onTimeout}. */
    public static final char TIMER_A = 'A';
    public static final char TIMER_B = 'B';
    public static final char TIMER_D = 'D';
    public static final char TIMER_E = 'E';
    public static final char TIMER_F = 'F';
    public static final char TIMER_G = 'G';
    public static final char TIMER_H = 'H';
    public static final char TIMER_I = 'I';
    public static final char TIMER_J = 'J';
    public static final char TIMER_K = 'K';
    /** RFC 6026 §8.7: INVITE server, Accepted. */
    public static final char TIMER_L = 'L';
    /** RFC 6026 §8.4: INVITE client, Accepted. */
    public static final char TIMER_M = 'M';
    /** The delayed 100 Trying (§17.2.1). */
    static final char TIMER_TRYING = 'T';
    /** A deferred transport error report (runs from doWork, never inside a caller's call). */
    static final char TIMER_TRANSPORT_ERROR = 'X';

    static final int SEG_BRANCH = 0;
    static final int SEG_HOST = 1;
    static final int SEG_METHOD = 2;
    static final int SEG_REQUEST_URI = 3;
    static final int SEG_FROM_TAG = 4;
    static final int SEG_TO_TAG = 5;
    static final int SEG_CALL_ID = 6;
    static final int SEG_VIA = 7;
    static final int SEG_RESPONSE_TO_TAG = 8;
    private static final int SEGMENTS = 9;
    /** Size of a new key array; the largest one a pooled transaction keeps across uses. */
    private static final int KEY_INITIAL = 96;
    static final int KEY_KEPT = 512;

    final TransactionLayer layer;
    /**
     * Position in the layer's registry; carried in timer payloads. Changed only by the pool, while the object is free
     * (no timer then carries it).
     */
    int index;
    final int kind;

    TransactionState state = TransactionState.TERMINATED;
    long id;
    SipMethod method;
    boolean reliable;
    InetSocketAddress peer;
    /** Server: where responses go (RFC 3261 §18.2.2 / RFC 3581 §4 over UDP; the flow itself over a connection). */
    InetSocketAddress responseTo;
    /**
     * The local address:port every message of this transaction leaves from over UDP: for a server transaction the
     * socket its request arrived on (RFC 3261 §18.2.2, RFC 3581 §4), for a client transaction the one its first send
     * used; null lets the transport pick (a connection, or a transport with one socket).
     */
    InetSocketAddress local;
    /** True while the host name of {@link #responseTo} (a Via maddr, RFC 3261 §18.2.2) is being located. */
    boolean resolving;
    /** The one reference this transaction owns on the last message it sent; see the class javadoc. */
    ByteBuf outbound;
    long retransmitTimerId = TimerWheel.NULL_TIMER_ID;
    long timeoutTimerId = TimerWheel.NULL_TIMER_ID;
    long retransmitIntervalNs;
    /**
     * When the pending retransmission timer (A, E, G) was due as first scheduled; a retransmission put off because
     * the stack's input lags ({@link TransactionTransport#inputLagNs}) is measured from it, not from the put-off.
     */
    long retransmitDueNs;
    int lastStatus;
    boolean transportFailed;
    boolean inTable;
    long keyHash;
    /** True when matched by RFC 2543 fields rather than an RFC 3261 branch (server transactions only). */
    boolean legacy;
    int sentByPort;
    long cseq;
    /**
     * The bytes that identify the transaction, copied out of the borrowed message as segments; {@link #seg} holds
     * start and end of each (unused segments are empty):
     *
     * <pre>
     *   | branch | sent-by host | method (extension only) | R-URI | From tag | To tag | Call-ID | top Via |
     *   | response To tag |
     * </pre>
     *
     * A transaction matched by an RFC 3261 branch (the magic cookie) uses the branch, sent-by and method; one created
     * by a request without the cookie uses the RFC 2543 fields (§17.2.3). The array grows only when a key is longer
     * than any before it on this object, and is kept across uses up to {@link #KEY_KEPT} bytes: a key grown past it
     * (a Via or Request-URI of kilobytes) is dropped at {@link #reset()}, so the pool does not keep it.
     */
    byte[] key = new byte[KEY_INITIAL];
    final int[] seg = new int[2 * SEGMENTS];
    int keyLength;
    TransactionAttachment attachment;
    /** The next transaction of its layer's free list while this one is free ({@link TransactionPool}). */
    Transaction nextFree;

    Transaction(final TransactionLayer layer, final int index, final int kind)
    {
        this.layer = layer;
        this.index = index;
        this.kind = kind;
    }

    /** True for the two client machines. */
    public abstract boolean isClient();

    /** True for the two INVITE machines. */
    public abstract boolean isInvite();

    /** The machine's current state. */
    public final TransactionState state()
    {
        return state;
    }

    /** Unique per use of this pooled object (0 once terminated); keep it with a handle to detect reuse. */
    public final long id()
    {
        return id;
    }

    /** The method of the request that created the transaction. */
    public final SipMethod method()
    {
        return method;
    }

    /** The status of the last response sent (server) or received (client), 0 before any. */
    public final int lastStatus()
    {
        return lastStatus;
    }

    public final boolean isReliable()
    {
        return reliable;
    }

    /**
     * The destination of requests (client), or the source of the request (server; for a request read on a
     * connection, the connection's flow).
     */
    public final InetSocketAddress peer()
    {
        return peer;
    }

    /**
     * Server: where its responses are sent — over UDP the address RFC 3261 §18.2.2 with RFC 3581 §4 picks from the
     * top Via and the source (the source itself with {@code rport}, else its address with the sent-by port, or
     * {@code maddr}); over a connection the connection's flow. Client: {@link #peer()}.
     */
    public final InetSocketAddress responseDestination()
    {
        return null == responseTo ? peer : responseTo;
    }

    /**
     * The local address:port this transaction's datagrams leave from (see the field), or null when the transport
     * picks. Kept by reference; the transport's own object.
     */
    public final InetSocketAddress local()
    {
        return local;
    }

    /** True when matched by RFC 2543 fields (a request without the magic cookie, §17.2.3). */
    public final boolean isLegacy()
    {
        return legacy;
    }

    /** The user's record of this transaction (a request, a proxy branch, ...); cleared on termination. */
    public final TransactionAttachment attachment()
    {
        return attachment;
    }

    public final void attachment(final TransactionAttachment value)
    {
        attachment = value;
    }

    /** Length of the Via branch that identifies the transaction (0 for a legacy one). */
    public final int branchLength()
    {
        return seg[2 * SEG_BRANCH + 1] - seg[2 * SEG_BRANCH];
    }

    /** True when the branch equals the span, ignoring ASCII case. */
    public final boolean branchEquals(final byte[] buf, final int start, final int end)
    {
        return segEqualsIgnoreCase(SEG_BRANCH, buf, start, end);
    }

    /** The branch as a String (allocates: tests and logs only). */
    public final String branch()
    {
        return Ascii.string(key, seg[2 * SEG_BRANCH], seg[2 * SEG_BRANCH + 1]);
    }

    // --- machine hooks ----------------------------------------------------------------------------------------

    /** A timer of this transaction fired; its slot field is already cleared. */
    abstract void onTimer(char timer, long nowNs);

    // --- timers -----------------------------------------------------------------------------------------------

    final void startRetransmitTimer(final char timer, final long delayNs)
    {
        if (transportFailed)
        {
            return; // only the pending transport error report may run now
        }
        layer.cancelTimer(retransmitTimerId);
        retransmitDueNs = layer.nowNs() + delayNs;
        retransmitTimerId = layer.scheduleTimerAt(this, timer, retransmitDueNs);
    }

    final void startTimeoutTimer(final char timer, final long delayNs)
    {
        if (transportFailed)
        {
            return; // only the pending transport error report may run now
        }
        layer.cancelTimer(timeoutTimerId);
        timeoutTimerId = layer.scheduleTimer(this, timer, delayNs);
    }

    final void cancelRetransmitTimer()
    {
        layer.cancelTimer(retransmitTimerId);
        retransmitTimerId = TimerWheel.NULL_TIMER_ID;
    }

    final void cancelTimers()
    {
        cancelRetransmitTimer();
        layer.cancelTimer(timeoutTimerId);
        timeoutTimerId = TimerWheel.NULL_TIMER_ID;
    }

    // --- sending ----------------------------------------------------------------------------------------------

    /**
     * Replaces the retained outbound message.
     *
     * @param buffer ownership taken: this transaction now holds its reference; the previous one is released here.
     */
    final void replaceOutbound(final ByteBuf buffer)
    {
        final ByteBuf old = outbound;
        outbound = buffer;
        if (null != old && old != buffer)
        {
            old.release(); // our reference on the message we no longer retransmit
        }
    }

    /** Sends (or re-sends) the retained outbound message; a failure becomes a deferred transport error event. */
    final void sendOutbound()
    {
        if (null != outbound && !transportFailed)
        {
            layer.send(this, outbound);
        }
    }

    /** Releases every buffer this transaction holds; called once, on termination. */
    void releaseBuffers()
    {
        replaceOutbound(null);
    }

    /**
     * The message current when the destination's host name was located has just been sent
     * ({@link TransactionLayer#resolved}). A machine that keeps nothing once sent lets go of it here; the others keep
     * it for their retransmissions.
     */
    void onDeferredSend()
    {
    }

    /** Clears the per-use state before the object goes back to the pool; arrays are kept (an outsized key not). */
    void reset()
    {
        state = TransactionState.TERMINATED;
        id = 0;
        method = null;
        reliable = false;
        peer = null;
        responseTo = null;
        local = null;
        resolving = false;
        retransmitTimerId = TimerWheel.NULL_TIMER_ID;
        timeoutTimerId = TimerWheel.NULL_TIMER_ID;
        retransmitIntervalNs = 0;
        retransmitDueNs = 0;
        lastStatus = 0;
        transportFailed = false;
        inTable = false;
        keyHash = 0;
        legacy = false;
        sentByPort = -1;
        cseq = -1;
        keyLength = 0;
        Arrays.fill(seg, 0);
        if (key.length > KEY_KEPT)
        {
            key = new byte[KEY_INITIAL]; // rare: only after an outsized key
        }
        attachment = null;
    }

    // --- key --------------------------------------------------------------------------------------------------

    final void segSet(final int segment, final byte[] src, final int start, final int end)
    {
        final int len = Math.max(0, end - start);
        if (keyLength + len > key.length)
        {
            key = Arrays.copyOf(key, Math.max(key.length * 2, keyLength + len)); // rare: a longer key than ever
        }
        if (len > 0)
        {
            System.arraycopy(src, start, key, keyLength, len);
        }
        seg[2 * segment] = keyLength;
        keyLength += len;
        seg[2 * segment + 1] = keyLength;
    }

    final boolean segEquals(final int segment, final byte[] buf, final int start, final int end)
    {
        final int s = seg[2 * segment];
        final int e = seg[2 * segment + 1];
        if (start < 0)
        {
            return s == e;
        }
        return Ascii.equals(key, s, e, buf, start, end);
    }

    final boolean segEqualsIgnoreCase(final int segment, final byte[] buf, final int start, final int end)
    {
        final int s = seg[2 * segment];
        final int e = seg[2 * segment + 1];
        if (start < 0)
        {
            return s == e;
        }
        return Ascii.equalsIgnoreCase(key, s, e, buf, start, end);
    }

    final boolean segEmpty(final int segment)
    {
        return seg[2 * segment] == seg[2 * segment + 1];
    }

    @Override
    public String toString()
    {
        return getClass().getSimpleName() + "[id=" + id + ", " + method + ", " + state + ", branch=" + branch() + "]";
    }
}
