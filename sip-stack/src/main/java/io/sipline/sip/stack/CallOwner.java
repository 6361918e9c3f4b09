package io.sipline.sip.stack;

import io.sipline.sip.message.SipMessage;
import io.sipline.sip.shard.ShardIds;

/**
 * Whose call a parsed message belongs to in a cluster: the node encoded in the id that routes it (the top Via branch
 * of a response, the To tag of an in-dialog request, else the Call-ID of a leg a node created). A front that spreads
 * initial requests by Call-ID hash, or a node that received a request of a dead peer's dialog, reads the owner here
 * without any lookup or shared table.
 *
 * <p>Stateless; thread-safe. Reads the message in place and allocates nothing.
 */
public final class CallOwner
{
    /** What {@link #nodeOf} returns when no id of the message was made by a node of ours. */
    public static final int UNKNOWN = -1;

    private CallOwner()
    {
    }

    /**
     * The node that owns the call of {@code m}, 0..255, or {@link #UNKNOWN} (an initial request from outside, whose
     * owner the front's hash chooses).
     *
     * @param m a parsed message, borrowed.
     */
    public static int nodeOf(final SipMessage m)
    {
        final byte[] b = m.buffer();
        int node = UNKNOWN;
        if (m.isResponse())
        {
            if (m.topViaBranchStart() >= 0)
            {
                node = ShardIds.nodeOf(b, m.topViaBranchStart(), m.topViaBranchEnd());
            }
        }
        else if (m.toTagStart() >= 0)
        {
            node = ShardIds.nodeOf(b, m.toTagStart(), m.toTagEnd());
        }
        if (node < 0 && m.callIdStart() >= 0)
        {
            node = ShardIds.nodeOf(b, m.callIdStart(), m.callIdEnd());
        }
        return node;
    }

    /**
     * The shard of its owner node that owns the call of {@code m}, or -1 when no id of the message is ours (then the
     * owner hashes the Call-ID).
     *
     * @param m a parsed message, borrowed.
     */
    public static int shardOf(final SipMessage m)
    {
        final byte[] b = m.buffer();
        int shard = -1;
        if (m.isResponse())
        {
            if (m.topViaBranchStart() >= 0)
            {
                shard = ShardIds.shardOf(b, m.topViaBranchStart(), m.topViaBranchEnd());
            }
        }
        else if (m.toTagStart() >= 0)
        {
            shard = ShardIds.shardOf(b, m.toTagStart(), m.toTagEnd());
        }
        if (shard < 0 && m.callIdStart() >= 0)
        {
            shard = ShardIds.shardOf(b, m.callIdStart(), m.callIdEnd());
        }
        return shard;
    }
}
