package io.sipline.container.replication;

import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The container's seam in front of a data grid: it writes, reads and removes the snapshot of a distributable
 * application session. The grid behind it (its keys, grouping, owners and backups) is the implementation's; the
 * container knows only this interface, so the grid can be changed without touching it.
 * <p>
 * Threading: every method may be called from any thread and never from a shard's event loop, which must not wait on
 * the network; implementations are thread-safe.
 */
public interface SessionReplicator extends AutoCloseable
{
    /**
     * Stores {@code snapshot} under its id, replacing an older one; the application session and its SIP sessions are
     * kept on one owner (and its backups).
     *
     * @return completes when the owner and its backups hold it.
     */
    CompletionStage<Void> write(ApplicationSnapshot snapshot);

    /**
     * The snapshot of application session {@code id} as the grid holds it now, or empty when there is none (never
     * written, removed, or lost with more nodes than the grid has backups).
     */
    Optional<ApplicationSnapshot> read(String id);

    /**
     * The snapshot of the application session one of whose SIP sessions has a dialog with {@code callId}, or empty:
     * how a node that receives an in-dialog request of a call it never saw (its owner died) finds the call.
     */
    Optional<ApplicationSnapshot> readByCallId(String callId);

    /** Removes application session {@code id} and its SIP sessions (it ended); completes when removed. */
    CompletionStage<Void> remove(String id);

    /** Leaves the grid; this member's entries stay with their backups. */
    @Override
    void close();
}
