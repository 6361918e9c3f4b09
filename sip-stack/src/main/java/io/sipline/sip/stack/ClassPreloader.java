package io.sipline.sip.stack;

/**
 * Classes that libraries load only when a rare path first runs, loaded here once when the stack starts. A class is
 * loaded under its class loader's lock for that name: two shards that reach such a path together (both pooled
 * allocators freeing a chunk at the same moment, for instance) would otherwise wait for each other on a shard thread,
 * which a shard must never do (for instance on the loader's lock for Netty's {@code FreeChunkEvent}, loaded from
 * {@code PooledByteBufAllocator.onDeallocateChunk}).
 * <p>
 * Stateless; called from {@link SipStack#start} on the starting thread, before any shard runs.
 */
final class ClassPreloader
{
    /**
     * Netty 4.2's JFR events of the pooled allocator, loaded (and initialised) on a chunk's or buffer's first
     * allocate, free or return when JFR is available ({@code io.netty.jfr.enabled}, default true).
     */
    private static final String[] NETTY = {
        "io.netty.buffer.AllocateChunkEvent",
        "io.netty.buffer.FreeChunkEvent",
        "io.netty.buffer.ReturnChunkEvent",
        "io.netty.buffer.AllocateBufferEvent",
        "io.netty.buffer.FreeBufferEvent",
        "io.netty.buffer.ReallocateBufferEvent",
    };

    /**
     * The tasks Netty's channel close and deregister post to the event loop (anonymous classes of
     * {@code AbstractChannel.AbstractUnsafe}), loaded when a shard first closes a channel: a connected peer channel
     * ending after its idle time (UdpPeers), a TCP connection closing; two shards closing peer channels at once would
     * otherwise meet on the application class loader's lock (e.g. for {@code AbstractChannel$AbstractUnsafe$8}).
     */
    private static final String[] CHANNEL_CLOSE = {
        "io.netty.channel.AbstractChannel$AbstractUnsafe$1",
        "io.netty.channel.AbstractChannel$AbstractUnsafe$2",
        "io.netty.channel.AbstractChannel$AbstractUnsafe$3",
        "io.netty.channel.AbstractChannel$AbstractUnsafe$4",
        "io.netty.channel.AbstractChannel$AbstractUnsafe$5",
        "io.netty.channel.AbstractChannel$AbstractUnsafe$6",
        "io.netty.channel.AbstractChannel$AbstractUnsafe$6$1",
        "io.netty.channel.AbstractChannel$AbstractUnsafe$7",
        "io.netty.channel.AbstractChannel$AbstractUnsafe$8",
        "io.netty.channel.AbstractChannel$AbstractUnsafe$9",
    };

    private ClassPreloader()
    {
    }

    /** Loads and initialises every class named here that exists (a Netty without them skips them); returns how many. */
    static int load()
    {
        int loaded = 0;
        final ClassLoader loader = io.netty.buffer.ByteBuf.class.getClassLoader();
        for (final String name : concat(NETTY, CHANNEL_CLOSE))
        {
            try
            {
                Class.forName(name, true, loader);
                loaded++;
            }
            catch (final ClassNotFoundException | LinkageError e)
            {
                // not in this Netty version (or JFR absent): its path cannot load it either
            }
        }
        return loaded;
    }

    private static String[] concat(final String[] a, final String[] b)
    {
        final String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
