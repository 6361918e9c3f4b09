package io.sipline.sip.dialog;

import io.sipline.sip.collection.LongHashIndex;
import io.sipline.sip.message.Ascii;
import io.sipline.sip.message.SipMessage;

/**
 * The shard's dialogs, found by dialog id (RFC 3261 §12: Call-ID, local tag, remote tag) without a {@code String}:
 * the id's bytes are hashed where they lie in the message into a 64-bit key of a primitive open-addressing map, and
 * a hit is confirmed by comparing the bytes with the dialog's copies. The map ({@link LongHashIndex}) grows a few
 * slots per add, so that held calls never stop the shard for a rehash.
 *
 * <pre>
 *   incoming request   local tag = To tag,   remote tag = From tag   ({@link #findForRequest})
 *   incoming response  local tag = From tag, remote tag = To tag     ({@link #findForResponse})
 * </pre>
 *
 * <p>A second index groups the dialogs a UAC's request created, keyed by (Call-ID, local tag): the early dialogs of
 * a request that forked (§12.1.2, §13.2.2.4) are found there when the request's transaction ends or a non-2xx final
 * response arrives (§12.3). The members of a set are chained through the dialogs themselves.
 *
 * <p>Call-IDs and tags compare byte for byte (§19.3, §20.8: they are opaque tokens). An absent tag (an RFC 2543
 * peer) is an empty one. Lookups allocate nothing; adding allocates only when the table grows past half full (the
 * new arrays).
 *
 * <p>Not thread-safe; owned by one shard.
 */
public final class DialogTable
{
    private static final long FNV_OFFSET = Ascii.FNV64_OFFSET;
    private static final long FNV_PRIME = Ascii.FNV64_PRIME;

    private final LongHashIndex<Dialog> byId;
    private final LongHashIndex<Dialog> bySet;

    /** @param expected dialogs the shard expects to hold at once; the table grows beyond it when needed. */
    public DialogTable(final int expected)
    {
        byId = new LongHashIndex<>(2 * expected);
        bySet = new LongHashIndex<>(2 * expected);
    }

    /** Dialogs in the table. */
    public int size()
    {
        return byId.size();
    }

    /** Slots of the id index (for tests of growth). */
    int idCapacity()
    {
        return byId.capacity();
    }

    // =================================================================================================================
    // Lookups
    // =================================================================================================================

    /**
     * The dialog an incoming request belongs to (§12.2.2), or null. The message is borrowed for the call.
     */
    public Dialog findForRequest(final SipMessage request)
    {
        final byte[] b = request.buffer();
        final int ts = request.toTagStart();
        final int fs = request.fromTagStart();
        return find(b, request.callIdStart(), request.callIdEnd(),
            b, Math.max(ts, 0), Math.max(request.toTagEnd(), 0),
            b, Math.max(fs, 0), Math.max(request.fromTagEnd(), 0));
    }

    /** The dialog an incoming response belongs to (§12.2.1.2), or null. The message is borrowed for the call. */
    public Dialog findForResponse(final SipMessage response)
    {
        final byte[] b = response.buffer();
        final int ts = response.toTagStart();
        final int fs = response.fromTagStart();
        return find(b, response.callIdStart(), response.callIdEnd(),
            b, Math.max(fs, 0), Math.max(response.fromTagEnd(), 0),
            b, Math.max(ts, 0), Math.max(response.toTagEnd(), 0));
    }

    /** The dialog with this id, or null. Spans are half-open; an empty span is an absent tag. */
    public Dialog find(
        final byte[] callIdBuf, final int callIdStart, final int callIdEnd,
        final byte[] localTagBuf, final int localTagStart, final int localTagEnd,
        final byte[] remoteTagBuf, final int remoteTagStart, final int remoteTagEnd)
    {
        if (callIdStart < 0)
        {
            return null;
        }
        final long key = idHash(callIdBuf, callIdStart, callIdEnd, localTagBuf, localTagStart, localTagEnd,
            remoteTagBuf, remoteTagStart, remoteTagEnd);
        for (int s = byId.first(key); s >= 0; s = byId.next(s, key))
        {
            final Dialog d = byId.valueAt(s);
            if (d.callId.contentEquals(callIdBuf, callIdStart, callIdEnd) &&
                d.localTag.contentEquals(localTagBuf, localTagStart, localTagEnd) &&
                d.remoteTag.contentEquals(remoteTagBuf, remoteTagStart, remoteTagEnd))
            {
                return d;
            }
        }
        return null;
    }

    /**
     * The first dialog of the set a UAC request created, (Call-ID, local tag = the request's From tag), or null; walk
     * the rest with {@link #nextInSet(Dialog)}. Sets hold only dialogs this side created as UAC.
     */
    public Dialog firstInSet(
        final byte[] callIdBuf, final int callIdStart, final int callIdEnd,
        final byte[] localTagBuf, final int localTagStart, final int localTagEnd)
    {
        if (callIdStart < 0)
        {
            return null;
        }
        final long key = setHash(callIdBuf, callIdStart, callIdEnd, localTagBuf, localTagStart, localTagEnd);
        for (int s = bySet.first(key); s >= 0; s = bySet.next(s, key))
        {
            final Dialog d = bySet.valueAt(s);
            if (d.callId.contentEquals(callIdBuf, callIdStart, callIdEnd) &&
                d.localTag.contentEquals(localTagBuf, localTagStart, localTagEnd))
            {
                return d;
            }
        }
        return null;
    }

    /** The first dialog of the set the UAC request {@code request} created, or null. */
    public Dialog firstInSet(final SipMessage request)
    {
        final byte[] b = request.buffer();
        final int fs = request.fromTagStart();
        return firstInSet(b, request.callIdStart(), request.callIdEnd(), b, Math.max(fs, 0),
            Math.max(request.fromTagEnd(), 0));
    }

    /** The next dialog of the same set, or null. */
    public Dialog nextInSet(final Dialog d)
    {
        return d.nextInSet;
    }

    // =================================================================================================================
    // Changes (the layer's)
    // =================================================================================================================

    /** Adds a dialog whose id is set; {@code inSet} also chains it into its (Call-ID, local tag) set. */
    void add(final Dialog d, final boolean inSet)
    {
        final byte[] c = d.callId.bytes();
        final byte[] l = d.localTag.bytes();
        final byte[] r = d.remoteTag.bytes();
        d.idHash = idHash(c, 0, d.callId.length(), l, 0, d.localTag.length(), r, 0, d.remoteTag.length());
        byId.put(d.idHash, d);
        d.inTable = true;
        if (inSet)
        {
            d.setHash = setHash(c, 0, d.callId.length(), l, 0, d.localTag.length());
            final Dialog head = firstInSet(c, 0, d.callId.length(), l, 0, d.localTag.length());
            if (null == head)
            {
                bySet.put(d.setHash, d);
                d.nextInSet = null;
            }
            else
            {
                // append after the head: the head stays the index entry
                d.nextInSet = head.nextInSet;
                head.nextInSet = d;
            }
            d.inSet = true;
        }
    }

    /** Removes a dialog from the id index and from its set. */
    void remove(final Dialog d)
    {
        if (d.inTable)
        {
            byId.remove(d.idHash, d);
            d.inTable = false;
        }
        if (d.inSet)
        {
            final Dialog head = firstInSet(d.callId.bytes(), 0, d.callId.length(), d.localTag.bytes(), 0,
                d.localTag.length());
            if (head == d)
            {
                if (null == d.nextInSet)
                {
                    bySet.remove(d.setHash, d);
                }
                else
                {
                    bySet.replace(d.setHash, d, d.nextInSet);
                }
            }
            else
            {
                Dialog prev = head;
                while (null != prev && prev.nextInSet != d)
                {
                    prev = prev.nextInSet;
                }
                if (null != prev)
                {
                    prev.nextInSet = d.nextInSet;
                }
            }
            d.nextInSet = null;
            d.inSet = false;
        }
    }

    // =================================================================================================================
    // Hashing: FNV-1a over the parts, each closed by its length, then a 64-bit finaliser
    // =================================================================================================================

    static long idHash(
        final byte[] a, final int as, final int ae,
        final byte[] b, final int bs, final int be,
        final byte[] c, final int cs, final int ce)
    {
        long h = FNV_OFFSET;
        h = part(h, a, as, ae);
        h = part(h, b, bs, be);
        h = part(h, c, cs, ce);
        return mix(h);
    }

    static long setHash(final byte[] a, final int as, final int ae, final byte[] b, final int bs, final int be)
    {
        long h = FNV_OFFSET ^ 0x5E7L;
        h = part(h, a, as, ae);
        h = part(h, b, bs, be);
        return mix(h);
    }

    private static long part(final long seed, final byte[] buf, final int start, final int end)
    {
        return (Ascii.fnv64(seed, buf, start, end) ^ (end - start)) * FNV_PRIME;
    }

    private static long mix(final long x)
    {
        long z = x;
        z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
        z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
        return z ^ (z >>> 33);
    }
}
