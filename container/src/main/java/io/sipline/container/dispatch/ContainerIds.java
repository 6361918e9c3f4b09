package io.sipline.container.dispatch;

import io.sipline.container.api.IdText;
import io.sipline.sip.shard.ShardIds;
import io.sipline.sip.stack.StackShard;

/**
 * The identifiers of one shard's container: tags, Call-IDs and branches that encode the shard and the cluster node,
 * so that a response or an in-dialog request finds its shard without a lookup and any node can tell whose call it is.
 * <p>
 * Threading: on the shard's event loop ids come from the stack's generator, written into one reused builder; from any
 * other thread (an application's own) from a generator of its own, under its monitor.
 */
final class ContainerIds
{
    private final StackShard shard;
    private final StringBuilder ids = new StringBuilder(64);
    /** Ids made off the shard (an application thread); guarded by its own monitor, never used on the shard. */
    private final ShardIds offShardIds;
    private volatile long threadId = -1;
    /** The host a Call-ID names after its {@code @}. */
    private String host;

    ContainerIds(final StackShard shard)
    {
        this.shard = shard;
        this.offShardIds = new ShardIds(shard.index(), shard.ids().node(),
            System.nanoTime() ^ 0x5bd1e995L * (shard.index() + 1));
    }

    /** Publishes the shard's thread and our host (after the stack started). */
    void started(final long shardThreadId, final String ourHost)
    {
        host = ourHost;
        threadId = shardThreadId;
    }

    /** True when the caller runs on this shard's event loop (any thread). */
    boolean onShardThread()
    {
        return Thread.currentThread().threadId() == threadId;
    }

    /** A fresh tag that encodes this shard (any thread). */
    String newTag()
    {
        if (onShardThread())
        {
            ids.setLength(0);
            return shard.ids().appendId(ids).toString();
        }
        synchronized (offShardIds)
        {
            return offShardIds.appendId(new StringBuilder(ShardIds.ID_LENGTH)).toString();
        }
    }

    /** A fresh Call-ID that encodes this shard (any thread). */
    String newCallId()
    {
        if (onShardThread())
        {
            ids.setLength(0);
            return shard.ids().appendId(ids).append('@').append(host).toString();
        }
        synchronized (offShardIds)
        {
            return offShardIds.appendId(new StringBuilder(40)).append('@').append(host).toString();
        }
    }

    /** A fresh tag that encodes this shard, kept as its numbers until read as a String (any thread). */
    IdText newTagText()
    {
        return IdText.tag(origin(), newBranchRandom());
    }

    /** A fresh Call-ID that encodes this shard, kept as its numbers until read as a String (any thread). */
    IdText newCallIdText()
    {
        return IdText.callId(origin(), newBranchRandom(), host);
    }

    /** A fresh magic-cookie branch that encodes this shard (any thread). */
    String newBranch()
    {
        if (onShardThread())
        {
            ids.setLength(0);
            return shard.ids().appendBranch(ids).toString();
        }
        synchronized (offShardIds)
        {
            return offShardIds.appendBranch(new StringBuilder(24)).toString();
        }
    }

    /**
     * The random part of a fresh branch (any thread), kept by the request as a number and written with
     * {@link #origin()} into its Via ({@link ShardIds#appendBranch(StringBuilder, int, long)}): no String is made.
     */
    long newBranchRandom()
    {
        if (onShardThread())
        {
            return shard.ids().nextRandom();
        }
        synchronized (offShardIds)
        {
            return offShardIds.nextRandom();
        }
    }

    /** The shard and node every id of this shard encodes ({@link ShardIds#origin()}). */
    int origin()
    {
        return shard.ids().origin();
    }

    /** A fresh tag in the reused builder: valid until the next id (shard thread only; no String made). */
    CharSequence newTagOnShard()
    {
        ids.setLength(0);
        return shard.ids().appendId(ids);
    }
}
