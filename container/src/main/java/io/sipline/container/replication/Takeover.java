package io.sipline.container.replication;

/**
 * The grid's answer to a node that asks to take over a call it does not know ({@link SnapshotSource#takeOver}):
 * the call is now this node's, with its snapshot; or another live node serves it; or the grid holds no such call.
 * <p>
 * Immutable.
 *
 * @param snapshot the call's snapshot when this node owns it now, else null.
 * @param owner    the node that owns the call: this node when {@code snapshot} is set, another live node when not;
 *                 -1 when the grid holds no such call.
 */
public record Takeover(ApplicationSnapshot snapshot, int owner)
{
    /** The grid holds no such call (or could not be read). */
    public static final Takeover NONE = new Takeover(null, -1);

    /** Whether the call is this node's now. */
    public boolean taken()
    {
        return null != snapshot;
    }

    /** Whether another live node serves the call: the request belongs there. */
    public boolean elsewhere()
    {
        return null == snapshot && owner >= 0;
    }
}
