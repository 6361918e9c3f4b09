package io.sipline.container.api;

import java.util.concurrent.Executor;

/**
 * The serial executor that runs an application session's calls on virtual threads (JSR 289 §6.3), for applications
 * that block; {@link SipApplicationSessionImpl#lane()}. A caller already running on the lane runs a call at once:
 * waiting for the lane there would wait for itself.
 * <p>
 * Threading: {@link #execute} and {@link #onLaneThread} from any thread.
 */
public interface SessionLane extends Executor
{
    /** Whether the calling thread is the one running this lane's tasks now. */
    boolean onLaneThread();
}
