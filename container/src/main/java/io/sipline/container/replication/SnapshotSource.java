package io.sipline.container.replication;

import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where a shard asks for the snapshot of a call it does not know (the front re-routed a request of a dead node's
 * dialog to it): the read goes to the grid on another thread, and the answer comes back through a callback, so a
 * shard never waits on the grid.
 * <p>
 * Thread-safe: {@link #readByCallId} from any shard, never blocking; the callback runs on a reading thread (it must
 * hand the result to the shard, not use the shard's state).
 */
public interface SnapshotSource
{
    /**
     * Reads the snapshot of the application session one of whose dialogs has {@code callId}, and gives it to
     * {@code then}: empty when the grid holds none, or could not be read (said on the error stream).
     */
    void readByCallId(String callId, Consumer<Optional<ApplicationSnapshot>> then);
}
