package io.sipline.sip.stack;

import io.sipline.sip.message.Ascii;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.shard.ShardIds;

/**
 * Which shard owns the call of a parsed message (the routing rules of {@link StackShard}): the shard encoded in the
 * top Via branch of a response or the To tag of a request when it is an id of this stack, the shard a request outside
 * a dialog targets (Replaces, Join, an encoded Request-URI), else the shard encoded in the Call-ID or
 * {@code hash(Call-ID) mod shards}. Read in place; allocates nothing.
 *
 * <p>Stateless; thread-safe.
 */
final class ShardRouting
{
    private ShardRouting()
    {
    }

    /**
     * The shard that owns the call of a parsed message: the shard encoded in the top Via
     * branch of a response or the To tag of a request when it is an id of this stack, else the one encoded in the
     * Call-ID, else {@code hash(Call-ID) mod shards}.
     */
    static int ownerOf(final SipMessage m, final int shards)
    {
        if (shards == 1)
        {
            return 0;
        }
        final byte[] b = m.buffer();
        int s = -1;
        if (m.isResponse())
        {
            if (m.topViaBranchStart() >= 0)
            {
                s = ShardIds.shardOf(b, m.topViaBranchStart(), m.topViaBranchEnd());
            }
        }
        else if (m.toTagStart() >= 0)
        {
            s = ShardIds.shardOf(b, m.toTagStart(), m.toTagEnd());
        }
        else
        {
            s = targetedShard(m);
        }
        if (s >= 0 && s < shards)
        {
            return s;
        }
        return callIdShard(m, shards);
    }

    /** The shard the Call-ID names: the one encoded in it (a leg this stack created), else its hash mod shards. */
    static int callIdShard(final SipMessage m, final int shards)
    {
        final byte[] b = m.buffer();
        final int s = ShardIds.shardOf(b, m.callIdStart(), m.callIdEnd());
        if (s >= 0 && s < shards)
        {
            return s;
        }
        return ShardIds.shardForCallId(b, m.callIdStart(), m.callIdEnd(), shards);
    }

    private static final byte[] TARGET_URI_PARAMETER_BYTES = (";" + StackShard.TARGET_URI_PARAMETER + "=")
        .getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private static final byte[] TO_TAG_BYTES = "to-tag=".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /**
     * Session targeting (JSR 289 §15.11.3) for a request outside a dialog: the shard that owns the dialog its
     * Replaces (RFC 3891) or Join (RFC 3911) header names, whose {@code to-tag} is that dialog's local tag here (RFC
     * 3891 §3 matches the to-tag against the local tag of the receiving UA's dialog), or the shard of the application
     * session its Request-URI's {@link StackShard#TARGET_URI_PARAMETER} names; -1 when neither is an id of this stack.
     * Read in place.
     */
    static int targetedShard(final SipMessage m)
    {
        final byte[] b = m.buffer();
        int header = m.firstHeader(HeaderName.REPLACES);
        if (header < 0)
        {
            header = m.firstHeader(HeaderName.JOIN);
        }
        if (header >= 0)
        {
            final int s = shardOfParameter(b, m.headerValueStart(header), m.headerValueEnd(header), TO_TAG_BYTES);
            if (s >= 0)
            {
                return s;
            }
        }
        return m.requestUriStart() < 0 ? -1
            : shardOfParameter(b, m.requestUriStart(), m.requestUriEnd(), TARGET_URI_PARAMETER_BYTES);
    }

    /** The shard of the id that follows {@code name} in {@code [start, end)} (up to ';', '?', '>' or a blank). */
    private static int shardOfParameter(final byte[] b, final int start, final int end, final byte[] name)
    {
        final int at = Ascii.indexOf(b, start, end, name);
        if (at < 0)
        {
            return -1;
        }
        final int from = at + name.length;
        int to = from;
        while (to < end && b[to] != ';' && b[to] != '?' && b[to] != '>' && b[to] != ' ' && b[to] != ',')
        {
            to++;
        }
        return ShardIds.shardOf(b, from, to);
    }
}
