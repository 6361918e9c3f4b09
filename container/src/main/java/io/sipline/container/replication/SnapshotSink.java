package io.sipline.container.replication;

/**
 * Where a shard hands the snapshots of distributable application sessions ({@code <distributable/>}, JSR 289) at
 * their dialog boundaries: after a dialog is confirmed, after each transaction of the session completes,
 * and when the application session ends. The sink only queues; another thread writes to the grid, so a shard never
 * waits on it.
 * <p>
 * Threading: {@link #write} and {@link #remove} are called on any shard's event loop and never block; thread-safe.
 */
public interface SnapshotSink
{
    /** This cluster node's number, written into every snapshot as its owner. */
    int node();

    /** Queues {@code snapshot} for the grid, replacing the session's older one there. */
    void write(ApplicationSnapshot snapshot);

    /** Queues the removal of application session {@code id} (it ended). */
    void remove(String id);
}
