package io.sipline.media.srtp;

import io.sipline.media.ssrc.SsrcIndex;

/**
 * The {@link SrtpStreamLookup} of every {@link SrtpContext} unless the caller brings its own: the streams kept in an
 * {@link SsrcIndex} ({@code io.sipline.media.ssrc}, issue 7 part 1), so that a packet finds its stream by one
 * {@code IntVector} step up to 16 streams and a SIMD-probed table above that.
 *
 * <h2>One stream: answered by the context, not here</h2>
 * Most SRTP contexts have one stream (one SSRC per direction of a call). The context answers those packets from two
 * fields of its own ({@link SrtpContext#stream(int)}: the single stream and its SSRC), as libsrtp's session holds
 * the head of its list, and asks the lookup only when it has no stream or more than one (this class's index
 * directly, through {@link #index()}, with no call of {@link #find} between). So {@link #find}, like the context, goes
 * straight to {@link SsrcIndex#getBeyondOne(int)}, past the index's own single-entry test, which would only repeat
 * the context's: one compare and one test per lookup fewer at N &gt;= 2 than a lookup with single-stream fields of
 * its own (which this class had in the seventh session of issue 7, before they moved to the context; see
 * media-ice/README.md, "Eighth session"). {@link #find} still answers right at one stream, by a scalar compare
 * of the index's only entry, for a caller that uses this lookup on its own.
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
     * <p>The index past its single-entry test, which the context has already made with its own fields (see the
     * class javadoc): one vector step up to 16 streams, a table probe above. Allocates nothing.
     */
    @Override
    public SrtpStream find(final int ssrc)
    {
        return index.getBeyondOne(ssrc);
    }

    @Override
    public boolean add(final SrtpStream stream)
    {
        return index.size() < limit && index.add(stream.ssrc(), stream);
    }

    @Override
    public SrtpStream remove(final int ssrc)
    {
        return index.remove(ssrc);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The index's entry 0 when it holds one entry.
     */
    @Override
    public SrtpStream onlyStream()
    {
        return 1 == index.size() ? index.streamAt(0) : null;
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
     * The index underneath, which {@link SrtpContext} reads its packets' streams from at N != 1, and for diagnostics
     * (layout, capacity); do not add to it or remove from it directly.
     *
     * @return the index.
     */
    SsrcIndex<SrtpStream> index()
    {
        return index;
    }
}
