package io.sipline.media.srtp;

import io.sipline.media.ssrc.SsrcIndex;

/**
 * The {@link SrtpStreamLookup} of every {@link SrtpContext} unless the caller brings its own: the streams kept in an
 * {@link SsrcIndex} ({@code io.sipline.media.ssrc}, issue 7 part 1), so that a packet finds its stream by one
 * compare with one SSRC, one {@code IntVector} step up to 16, and a SIMD-probed table above that.
 *
 * <p>The limit on the number of streams is enforced here rather than by the index (which would grow): the index is
 * built with {@code limit} entries of capacity, so no add within the limit allocates, and {@link #isFull()} turns
 * the SSRC that would pass the limit away ({@link SrtpResult#STREAM_LIMIT}).
 *
 * <p>The index's own template slot is not used: the context keeps the template role itself (a provisional stream
 * derived from the policy that joins the index only after a packet authenticates), because the provisional stream
 * must carry the packet's SSRC and a fresh replay window, which a shared template object in the index cannot.
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

    @Override
    public SrtpStream find(final int ssrc)
    {
        return index.get(ssrc);
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
}
