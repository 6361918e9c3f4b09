package io.sipline.container.dispatch;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

import io.sipline.container.api.SessionLane;

/**
 * Runs the calls of one application session on virtual threads, one at a time and in order (JSR 289 §6.3: calls into
 * an application session are serialized), for applications marked {@code io.sipline.threading=virtual}: a blocking
 * servlet then holds a virtual thread, not its shard.
 * <p>
 * Threading: {@link #execute} from the shard; tasks run on a virtual thread started when the lane was idle, which
 * drains the queue and stops; the flag hand-off makes sure no task is left behind.
 */
final class VirtualLane implements Runnable, SessionLane
{
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile Thread runner;

    @Override
    public void execute(final Runnable task)
    {
        tasks.add(task);
        if (running.compareAndSet(false, true))
        {
            Thread.ofVirtual().name("sipline-app").start(this);
        }
    }

    @Override
    public boolean onLaneThread()
    {
        return runner == Thread.currentThread();
    }

    @Override
    public void run()
    {
        while (true)
        {
            runner = Thread.currentThread();
            Runnable task;
            while (null != (task = tasks.poll()))
            {
                task.run(); // the task catches what the application throws
            }
            runner = null;
            running.set(false);
            // A task added after the last poll saw running == true and did not start a thread: take it over.
            if (tasks.isEmpty() || !running.compareAndSet(false, true))
            {
                return;
            }
        }
    }
}
