package io.sipline.media.srtp;

/**
 * The default {@link SrtpStreamLookup}: SSRCs in a dense {@code int[]} scanned linearly, streams in a parallel array,
 * and the last hit remembered (a session has one to a few SSRCs, and consecutive packets mostly share one). Removal
 * moves the last entry into the hole, so the arrays stay dense.
 *
 * <p>Not thread-safe; owned by the context's media thread. Allocates only at construction.
 */
public final class SrtpStreamTable implements SrtpStreamLookup
{
    private final int[] ssrcs;
    private final SrtpStream[] streams;
    private int size;
    private int last;

    /**
     * @param capacity the most streams the table holds.
     */
    public SrtpStreamTable(final int capacity)
    {
        if (capacity < 1)
        {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        ssrcs = new int[capacity];
        streams = new SrtpStream[capacity];
    }

    @Override
    public SrtpStream find(final int ssrc)
    {
        if (last < size && ssrcs[last] == ssrc)
        {
            return streams[last];
        }
        for (int i = 0; i < size; i++)
        {
            if (ssrcs[i] == ssrc)
            {
                last = i;
                return streams[i];
            }
        }
        return null;
    }

    @Override
    public boolean add(final SrtpStream stream)
    {
        if (size == ssrcs.length)
        {
            return false;
        }
        ssrcs[size] = stream.ssrc();
        streams[size] = stream;
        size++;
        return true;
    }

    @Override
    public SrtpStream remove(final int ssrc)
    {
        for (int i = 0; i < size; i++)
        {
            if (ssrcs[i] == ssrc)
            {
                final SrtpStream removed = streams[i];
                size--;
                ssrcs[i] = ssrcs[size];
                streams[i] = streams[size];
                streams[size] = null;
                last = 0;
                return removed;
            }
        }
        return null;
    }

    @Override
    public int size()
    {
        return size;
    }

    @Override
    public boolean isFull()
    {
        return size == ssrcs.length;
    }
}
