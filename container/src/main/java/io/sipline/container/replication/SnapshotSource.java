package io.sipline.container.replication;

import java.util.List;
import java.util.function.Consumer;

/**
 * Where a node takes over the calls of another node of the cluster: a shard that gets a request of a call it does
 * not know (the front re-routed a request of a dead node's dialog to it) asks for it by Call-ID; and when a node
 * leaves the grid, the calls this node claimed of it are handed to the container to be restored, whether or not a
 * request of theirs comes. Every read and claim goes to the grid on another thread and the answer comes back through
 * a callback, so a shard never waits on the grid. A call is claimed in the grid before it is handed over (a
 * compare-and-set of its owner, {@link SessionReplicator#claim}), so one node only takes it over.
 * <p>
 * Thread-safe: {@link #takeOver} from any shard, never blocking; the callbacks run on a reading thread (they must
 * hand the result to a shard, not use a shard's state).
 */
public interface SnapshotSource
{
    /**
     * Reads the call one of whose dialogs has {@code callId} and claims it for this node when its owner is node
     * {@code tagNode} (whose tag the request carries: the front found it dead), a node no longer in the grid, or
     * this node; gives {@code then} the call, or the live node that owns it, or {@link Takeover#NONE} when the grid
     * holds none or could not be read (said on the error stream).
     */
    void takeOver(String callId, int tagNode, Consumer<Takeover> then);

    /**
     * From now on, when a node leaves the grid, claims the calls it owned for which this member decides
     * ({@link SessionReplicator#ownedBy}) and gives them to {@code adopt} in batches as they are claimed, on a
     * reading thread.
     */
    void adoptOrphans(Consumer<List<ApplicationSnapshot>> adopt);
}
