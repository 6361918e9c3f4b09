package io.sipline.media.srtp;

import io.sipline.media.ssrc.SsrcIndex;

/**
 * The {@link SrtpStreamLookup} of every {@link SrtpContext} unless the caller brings its own: the streams kept in an
 * {@link SsrcIndex} ({@code io.sipline.media.ssrc}, issue 7 part 1), so that a packet finds its stream by one
 * compare with one SSRC, one {@code IntVector} step up to 16, and a SIMD-probed table above that.
 *
 * <h2>One stream: a typed path beside the index</h2>
 * Most SRTP contexts have one stream (one SSRC per direction of a call), and libsrtp 2.x finds it with a list of
 * one: load the head from the session, compare the SSRC field of that node, return the node. A generic index does a
 * little more even at one entry: a load of the index from here, its {@code long} key and its {@code Object} stream,
 * and the caller's {@code checkcast} of the erased type (a load of the stream's class word), about two loads more
 * than the list on a loop that is limited by loads (media-ice/README.md, issue 7, sixth session). So this class
 * keeps the single stream itself, in two fields of this object:
 * <pre>
 *   this (32 bytes with compressed oops): header | oneSsrc: int | one: SrtpStream | index | limit
 *     N == 1:  oneSsrc = the stream's SSRC            one = the stream
 *     N != 1:  oneSsrc = an SSRC that has no stream   one = null      (0 at first; see below)
 * </pre>
 * A lookup compares the SSRC with {@code oneSsrc} and, when equal, returns {@code one}: two loads from the same
 * object that do not depend on each other, no cast (the field has the concrete type), no test of the size. Whatever
 * N is, {@code one} is the right answer whenever {@code oneSsrc} matches: at N = 1 it is the stream; at N = 0 and
 * N &gt;= 2 {@code oneSsrc} is kept on an SSRC that has no stream, so null is the right answer for it too. That is
 * why a plain {@code int} suffices (no SSRC value is free to mean "none", so the field holds a non-member instead,
 * chosen again by {@link #add} when an added SSRC takes it). When the SSRC does not match and {@code one} is not
 * null (N = 1), the answer is a miss without asking the index; only with {@code one} null (N != 1) does the lookup
 * go on to the index, whose answers are the same (its miss is null: the template role stays in the context,
 * below). {@link #add} and {@link #remove} keep both fields right and allocate nothing.
 *
 * <p>What this buys, measured with {@code SsrcLookupBenchmark} (media-ice/README.md, issue 7, seventh session):
 * at N = 1 a hit went from 1.25 ns through the generic index to 1.12 ns, against 1.05 ns for libsrtp's list of
 * one; a miss is 1.16 ns against the list's 1.33. The list still does one load less: its session holds the node,
 * which is the stream, so a hit loads the head and its SSRC; here the context holds this lookup, so a hit loads the
 * lookup, then its SSRC and its stream. The miss test above matters for more than misses: it keeps the call into
 * the index off the path that a context with one stream ever runs, so C2 can leave it as an uncommon trap. With the
 * index called from the N = 1 miss path instead, C2 compiled that call as a real, not inlined call ("low call site
 * frequency") whenever the context saw only hits, and a hit then cost 1.52 to 1.64 ns in three forks of four,
 * because every value live across the call was kept on the stack.
 *
 * <p>The limit on the number of streams is enforced here rather than by the index (which would grow): the index is
 * built with {@code limit} entries of capacity, so no add within the limit allocates, and {@link #isFull()} turns
 * the SSRC that would pass the limit away ({@link SrtpResult#STREAM_LIMIT}).
 *
 * <p>The index's own template slot is not used: the context keeps the template role itself (a provisional stream
 * derived from the policy that joins the index only after a packet authenticates), because the provisional stream
 * must carry the packet's SSRC and a fresh replay window, which a shared template object in the index cannot. A
 * lookup here therefore returns a stream that was added, or null, exactly as {@link SsrcIndex#get(int)} does.
 *
 * <p>Not thread-safe; owned by the context's media thread (see {@link SsrcIndex}, "Threading").
 */
public final class SsrcIndexStreamLookup implements SrtpStreamLookup
{
    /**
     * The SSRC of {@link #one} while there is exactly one stream; otherwise an SSRC that has no stream, so that a
     * match returns {@link #one}, null, which is then the right answer.
     */
    private int oneSsrc;
    /** The only stream while there is exactly one, else null. */
    private SrtpStream one;
    private final SsrcIndex<SrtpStream> index;
    private final int limit;

    /**
     * @param limit the most streams; the index is allocated for this many at once.
     */
    public SsrcIndexStreamLookup(final int limit)
    {
        if (limit < 1)
        {
            throw new IllegalArgumentException("limit must be positive: " + limit);
        }
        this.limit = limit;
        this.index = new SsrcIndex<>(limit);
    }

    /**
     * {@inheritDoc}
     *
     * <p>One compare with the single stream's SSRC; the index only when there is not exactly one stream (see the
     * class javadoc). Allocates nothing.
     */
    @Override
    public SrtpStream find(final int ssrc)
    {
        final SrtpStream single = one;
        if (ssrc == oneSsrc)
        {
            return single;
        }
        // With one stream, any other SSRC is a miss: no need to ask the index.
        return null == single ? index.getBeyondOne(ssrc) : null;
    }

    @Override
    public boolean add(final SrtpStream stream)
    {
        if (index.size() >= limit || !index.add(stream.ssrc(), stream))
        {
            return false;
        }
        updateOne();
        return true;
    }

    @Override
    public SrtpStream remove(final int ssrc)
    {
        final SrtpStream removed = index.remove(ssrc);
        if (null != removed)
        {
            updateOne();
        }
        return removed;
    }

    @Override
    public int size()
    {
        return index.size();
    }

    @Override
    public boolean isFull()
    {
        return index.size() >= limit;
    }

    /**
     * The most streams this lookup accepts.
     *
     * @return the limit given at construction.
     */
    public int limit()
    {
        return limit;
    }

    /**
     * The index underneath, for diagnostics (layout, capacity); do not add to it or remove from it directly.
     *
     * @return the index.
     */
    SsrcIndex<SrtpStream> index()
    {
        return index;
    }

    /**
     * Sets {@link #one} and {@link #oneSsrc} after the index changed: the stream and its SSRC at one entry, else null
     * and an SSRC without a stream. The search for one tries {@code oneSsrc}, then the SSRCs after it: at most
     * {@code size() + 1} lookups (size() &lt;= limit), run when a stream starts or ends, never per packet.
     */
    private void updateOne()
    {
        if (1 == index.size())
        {
            one = index.streamAt(0);
            oneSsrc = index.ssrcAt(0);
            return;
        }
        one = null;
        int candidate = oneSsrc;
        while (null != index.get(candidate))
        {
            candidate++;
        }
        oneSsrc = candidate;
    }
}
