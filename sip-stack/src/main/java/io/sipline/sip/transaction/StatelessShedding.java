package io.sipline.sip.transaction;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.util.concurrent.ThreadLocalRandom;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageBuilder;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.message.ViaFlyweight;
import io.sipline.sip.transport.ResponseAddress;

/**
 * Overload refusals without a transaction: a new request the {@link Admission} refuses is answered {@code 503 Service
 * Unavailable} with {@code Retry-After} (RFC 3261 §21.5.4) built from the request alone, as a stateless UAS does
 * (§8.2.7): its Via (stamped as on receipt, §18.2.1), From, To with a tag added, Call-ID and CSeq (§8.2.6.2), sent
 * where §18.2.2 and RFC 3581 §4 say. Nothing is kept per caller:
 * <ul>
 * <li>the To tag is a keyed hash of the request's transaction key (branch and method, or the RFC 2543 key), so a
 * retransmitted INVITE gets the same response and the ACK of the 503 (a non-2xx ACK: same branch, our tag,
 * §17.1.1.3) is recognised by recomputing it, absorbed and counted ({@link #absorbsAck});</li>
 * <li>a CANCEL of a refused INVITE (sent before the caller had the 503) matches no INVITE transaction: it gets the 481
 * of RFC 3261 §9.2 here, with the 503's To tag, instead of a transaction of its own kept for Timer J
 * ({@link #answersCancel});</li>
 * <li>the keys of the INVITEs refused are written over a fixed table ({@value #MEMORY} slots in sets of
 * {@value #WAYS}, each set keeping its newest keys), so that a retransmission that crossed the 503 is refused again
 * rather than let in after the caller took the 503: at 4,000 refusals a second, 99.8% of the retransmissions that
 * come T1 (500 ms, RFC 3261 §17.1.1.2) after their refusal and 98% of those 2*T1 after; one no longer remembered is
 * judged again like a new request.</li>
 * </ul>
 * <p>
 * Threading: not threadsafe; owned by the shard's event loop with its {@link TransactionLayer}. The counters are plain
 * longs written here and read with opaque loads on any thread (metrics). Borrows the request; the 503 buffer is
 * allocated from the layer's pool and handed to {@link TransactionTransport#sendStateless}, which takes it.
 */
public final class StatelessShedding
{
    /** Slots of the table of refused INVITEs (a power of two): 128 KB per shard. */
    static final int MEMORY = 1 << 14;
    /** Slots per set of that table (a power of two): a key is looked for in its set only. */
    static final int WAYS = 4;
    static final String REASON = "Service Unavailable (overloaded)";
    static final String CANCEL_REASON = "Call/Transaction Does Not Exist";
    static final int RETRY_AFTER_SECONDS = 1;
    /** The tag's prefix, then 16 hex digits of the keyed hash. */
    private static final String TAG_PREFIX = "sl";
    private static final int TAG_LENGTH = TAG_PREFIX.length() + 16;
    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private static final VarHandle COUNTS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final SipMethod[] METHODS = SipMethod.values();
    private static final int AGAIN = METHODS.length;
    private static final int ACKS = AGAIN + 1;
    private static final int CANCELS = ACKS + 1;

    private final ByteBufAllocator allocator;
    private final TransactionTransport transport;
    private final SipMessageBuilder builder = new SipMessageBuilder();
    private final long[] refused = new long[MEMORY];
    private final long tagKey = ThreadLocalRandom.current().nextLong();
    private final StringBuilder tag = new StringBuilder(TAG_LENGTH);
    /** Refusals by method ordinal, then retransmissions refused again, ACKs absorbed, CANCELs answered. */
    private final long[] counts = new long[METHODS.length + 3];
    private Admission admission = Admission.ALL;

    StatelessShedding(final ByteBufAllocator allocator, final TransactionTransport transport)
    {
        this.allocator = allocator;
        this.transport = transport;
    }

    /** Sets the decision (the shard's thread, or before the shard starts); null restores {@link Admission#ALL}. */
    public void admission(final Admission decision)
    {
        admission = null == decision ? Admission.ALL : decision;
    }

    /**
     * A request that matched no server transaction (never an ACK): asks the {@link Admission} and, when a new request
     * is refused or a refused INVITE comes again, sends the 503.
     *
     * @param hash the request's transaction key ({@link TransactionKeys}).
     * @param via  the request's top Via, wrapped.
     * @return true when it was answered here: the layer makes no transaction.
     */
    boolean refuses(final SipMessage request, final SipMethod method, final long hash, final ViaFlyweight via,
        final InetSocketAddress source, final InetSocketAddress local, final boolean reliable)
    {
        final boolean initial = request.toTagStart() < 0 && SipMethod.CANCEL != method;
        final int set = set(hash);
        if (initial && SipMethod.INVITE == method && remembered(set, hash))
        {
            increment(AGAIN);
            send(request, hash, 503, via, source, local, reliable);
            return true;
        }
        if (admission.admit(method, initial, request.receivedAtNanos()) || !initial)
        {
            return false;
        }
        if (SipMethod.INVITE == method)
        {
            // the newest first: the set's oldest key falls out
            System.arraycopy(refused, set, refused, set + 1, WAYS - 1);
            refused[set] = hash;
        }
        increment(method.ordinal());
        send(request, hash, 503, via, source, local, reliable);
        return true;
    }

    /**
     * A CANCEL that matched no transaction: answered 481 here when its INVITE (transaction key {@code inviteHash}) is
     * one this layer refused and still remembers, so that no transaction is made for it under overload.
     *
     * @return true when it was answered here: the layer makes no transaction.
     */
    boolean answersCancel(final SipMessage cancel, final long inviteHash, final ViaFlyweight via,
        final InetSocketAddress source, final InetSocketAddress local, final boolean reliable)
    {
        if (!remembered(set(inviteHash), inviteHash))
        {
            return false;
        }
        increment(CANCELS);
        send(cancel, inviteHash, 481, via, source, local, reliable);
        return true;
    }

    /**
     * An ACK that matched no transaction: absorbed when its To tag is the one a 503 of this layer gave its INVITE
     * (RFC 3261 §17.1.1.3: the ACK of a non-2xx carries the INVITE's branch and the response's To tag).
     */
    boolean absorbsAck(final SipMessage ack, final long hash)
    {
        final int start = ack.toTagStart();
        if (start < 0 || ack.toTagEnd() - start != TAG_LENGTH)
        {
            return false;
        }
        final CharSequence expected = tagOf(hash);
        final byte[] b = ack.buffer();
        for (int i = 0; i < TAG_LENGTH; i++)
        {
            if (b[start + i] != expected.charAt(i))
            {
                return false;
            }
        }
        increment(ACKS);
        return true;
    }

    /** A 503 with Retry-After, or a CANCEL's 481, with the To tag of the refused INVITE of key {@code hash}. */
    private void send(final SipMessage request, final long hash, final int status, final ViaFlyweight via,
        final InetSocketAddress source, final InetSocketAddress local, final boolean reliable)
    {
        InetSocketAddress to = source;
        if (!reliable)
        {
            final InetSocketAddress selected = ResponseAddress.select(via, source);
            if (null == selected)
            {
                return; // sent-by port 0: no destination (§18.2.2); the request is refused all the same
            }
            // A Via maddr naming a host would need DNS: a stateless answer goes to the source instead.
            to = selected.isUnresolved() ? source : selected;
        }
        final ByteBuf out = allocator.buffer(request.length() + 96);
        if (503 == status)
        {
            builder.startResponse(out, request, 503, REASON, tagOf(hash), source)
                .header(HeaderName.RETRY_AFTER, RETRY_AFTER_SECONDS)
                .end(null, 0, 0);
        }
        else
        {
            builder.startResponse(out, request, status, CANCEL_REASON, tagOf(hash), source).end(null, 0, 0);
        }
        transport.sendStateless(out, to, local, reliable);
    }

    /** The To tag of this layer's 503 to the request of transaction key {@code hash}: reused, valid until the next. */
    private CharSequence tagOf(final long hash)
    {
        long h = hash ^ tagKey;
        // MurmurHash3's 64-bit finalizer: every bit of the key moves every bit of the tag
        h = (h ^ (h >>> 33)) * 0xff51afd7ed558ccdL;
        h = (h ^ (h >>> 33)) * 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        final StringBuilder t = tag;
        t.setLength(0);
        t.append(TAG_PREFIX);
        for (int shift = 60; shift >= 0; shift -= 4)
        {
            t.append(HEX[(int)(h >>> shift) & 0xF]);
        }
        return t;
    }

    /** The first slot of the set of {@code hash}. */
    private static int set(final long hash)
    {
        return (int)(hash ^ (hash >>> 32)) & (MEMORY - WAYS);
    }

    private boolean remembered(final int set, final long hash)
    {
        if (0 == hash)
        {
            return false; // an empty slot's value
        }
        for (int i = set; i < set + WAYS; i++)
        {
            if (refused[i] == hash)
            {
                return true;
            }
        }
        return false;
    }

    private void increment(final int i)
    {
        COUNTS.setOpaque(counts, i, counts[i] + 1);
    }

    /** New requests of {@code method} refused with a stateless 503 (any thread). */
    public long refused(final SipMethod method)
    {
        return (long)COUNTS.getOpaque(counts, method.ordinal());
    }

    /** Retransmitted INVITEs refused again because their first was (any thread). */
    public long refusedAgain()
    {
        return (long)COUNTS.getOpaque(counts, AGAIN);
    }

    /** ACKs of these 503s absorbed (any thread). */
    public long acksAbsorbed()
    {
        return (long)COUNTS.getOpaque(counts, ACKS);
    }

    /** CANCELs of refused INVITEs answered 481 without a transaction (any thread). */
    public long cancelsAnswered()
    {
        return (long)COUNTS.getOpaque(counts, CANCELS);
    }

    /** Once a second, between two refusals (shard thread): the builder lets go of its span into the last request. */
    void trim()
    {
        builder.forget();
    }
}
