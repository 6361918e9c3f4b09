package io.sipline.media.srtp;

import io.sipline.media.ssrc.SsrcIndex;

/**
 * The {@link SrtpStreamLookup} of every {@link SrtpContext} unless the caller brings its own: the streams kept in an
 * {@link SsrcIndex}, so that a packet finds its stream by one {@code IntVector} step up to 16 streams and a
 * SIMD-probed table above that.
 *
 * <p>A context with one stream answers its packets from two fields of its own ({@link SrtpContext#stream(int)}) and
 * asks the index directly ({@link #index()}) only when it has no stream or more than one; so {@link #find} goes
 * straight to {@link SsrcIndex#getBeyondOne(int)}, past the index's own single-entry test, which would only repeat
 * the context's. {@link #find} still answers right at one stream, for a caller that uses this lookup on its own.
 *
 * <p>The stream limit is enforced here rather than by the index (which would grow): the index is built with
 * {@code limit} entries of capacity, so no add within the limit allocates, and {@link #isFull()} turns the SSRC that
 * would pass the limit away ({@link SrtpResult#STREAM_LIMIT}). The index's template slot is not used: the context
 * keeps a provisional stream of its own (it must carry the packet's SSRC and a fresh replay window), so a lookup
 * returns a stream that was added, or null, exactly as {@link SsrcIndex#get(int)} does.
 *
 * <p>Not thread-safe; owned by the context's media thread.
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
