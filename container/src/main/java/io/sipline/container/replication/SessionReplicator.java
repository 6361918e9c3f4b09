package io.sipline.container.replication;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.IntConsumer;

/**
 * The container's seam in front of a data grid: it writes, reads and removes the snapshot of a distributable
 * application session. The grid behind it (its keys, grouping, owners and backups) is the implementation's; the
 * container knows only this interface, so the grid can be changed without touching it.
 * <p>
 * Threading: every method may be called from any thread and never from a shard's event loop, which must not wait on
 * the network; implementations are thread-safe.
 * <p>
 * Ownership: each application session in the grid has an owner, the node that serves its calls: the node that wrote
 * its last snapshot, or the one that {@link #claim claimed} it since. A claim is a compare-and-set in the grid, so of
 * two nodes that claim the same session from the same owner at once exactly one gets it.
 */
public interface SessionReplicator extends AutoCloseable
{
    /**
     * Stores {@code snapshot} under its id, replacing an older one, and makes its writer ({@link
     * ApplicationSnapshot#node}) its owner; the application session and its SIP sessions are kept on one grid member
     * (and its backups).
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

    /** The node that owns application session {@code id} now, or -1 when the grid holds no owner for it. */
    int owner(String id);

    /**
     * Makes node {@code to} the owner of application session {@code id} if node {@code from} owns it now, atomically
     * in the grid.
     *
     * @return whether {@code to} owns it afterwards (also when it already did): false when another node owns it, or
     *         the grid holds no owner for it.
     */
    boolean claim(String id, int from, int to);

    /**
     * {@link #claim} of each of {@code ids}, all from {@code from} to {@code to}: a grid may send the claims of a
     * batch at once, so that a survivor claims the hundreds of calls of a dead node in a few round trips.
     *
     * @return the ids that {@code to} owns afterwards.
     */
    default List<String> claimAll(final List<String> ids, final int from, final int to)
    {
        final List<String> out = new ArrayList<>(ids.size());
        for (final String id : ids)
        {
            if (claim(id, from, to))
            {
                out.add(id);
            }
        }
        return out;
    }

    /** {@link #read} of each of {@code ids}, read at once where the grid can: by id, those it holds. */
    default Map<String, ApplicationSnapshot> readAll(final Collection<String> ids)
    {
        final Map<String, ApplicationSnapshot> out = new HashMap<>();
        for (final String id : ids)
        {
            read(id).ifPresent(snapshot -> out.put(id, snapshot));
        }
        return out;
    }

    /**
     * The application sessions owned by node {@code node} for which this member decides: every session has exactly
     * one such member among the live ones (the grid's primary owner of its entry), so that after {@code node} left
     * the survivors split its sessions without asking each other.
     */
    List<String> ownedBy(int node);

    /** Whether node {@code node} is a member of the grid now. */
    boolean member(int node);

    /**
     * Tells {@code left} the number of each node that leaves the grid (it died or stopped), once the grid placed that
     * node's entries on the survivors, so that {@link #ownedBy} answers for them. Called on a thread of the grid;
     * {@code left} must return at once.
     */
    void onMemberLeft(IntConsumer left);

    /**
     * Bytes of keys and values this member has handed to the grid in {@link #write writes} so far: each snapshot's
     * encoding and the entries that index and own it, before the grid's own framing and copies.
     */
    long bytesWritten();

    /**
     * Bytes this member's transport has sent to the other members so far, everything included (writes to the owner
     * and its backup, reads, removals, failure detection, membership), or -1 when the grid does not count them.
     */
    long bytesSent();

    /** Leaves the grid; this member's entries stay with their backups. */
    @Override
    void close();
}
