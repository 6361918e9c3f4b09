package io.sipline.sip.capture;

import java.io.IOException;

/**
 * The HEPv3 capture of a whole stack: one {@link HepCaptureAgent} per shard, each with its own socket to the
 * collector, and their counters summed. Made before the shards start, closed after they stopped.
 *
 * <p>Thread-safe for {@link #sent()}, {@link #dropped()} and {@link #config()}; each agent belongs to its shard.
 */
public final class HepCapture implements AutoCloseable
{
    private final HepConfig config;
    private final HepCaptureAgent[] agents;

    /**
     * Opens one socket per shard.
     *
     * @throws IOException when a socket cannot be opened (those already opened are closed).
     */
    public HepCapture(final HepConfig config, final int shards) throws IOException
    {
        this.config = config;
        this.agents = new HepCaptureAgent[shards];
        boolean opened = false;
        try
        {
            for (int k = 0; k < shards; k++)
            {
                agents[k] = new HepCaptureAgent(k, config);
            }
            opened = true;
        }
        finally
        {
            if (!opened)
            {
                close();
            }
        }
    }

    public HepConfig config()
    {
        return config;
    }

    /** Shard {@code k}'s agent; for its loop only. */
    public HepCaptureAgent agent(final int k)
    {
        return agents[k];
    }

    /** Captures sent over all shards; any thread (racy sum of per-shard counters). */
    public long sent()
    {
        long n = 0;
        for (final HepCaptureAgent a : agents)
        {
            n += null == a ? 0 : a.sent();
        }
        return n;
    }

    /** Captures dropped over all shards; any thread. */
    public long dropped()
    {
        long n = 0;
        for (final HepCaptureAgent a : agents)
        {
            n += null == a ? 0 : a.dropped();
        }
        return n;
    }

    @Override
    public void close()
    {
        for (final HepCaptureAgent a : agents)
        {
            if (null != a)
            {
                a.close();
            }
        }
    }
}
