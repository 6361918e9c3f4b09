package io.sipline.bench.calls;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * The lock check of one step: the contended monitor enters the JVM recorded while the step ran (JFR event
 * {@code jdk.JavaMonitorEnter} with threshold 0, so every enter that had to wait for another thread), on the shard
 * threads ({@code sipline-shard-*}, which must never wait for a lock) and on every other thread. Immutable.
 *
 * @param series       e.g. {@code sipline/zgc}.
 * @param step         the step's label, e.g. {@code at80}.
 * @param shardThreads events on the shard threads.
 * @param otherThreads events on every other thread.
 */
public record LockCheck(String series, String step, long shardThreads, long otherThreads)
{
    /** The thread-name prefix of Sipline's shard event loops. */
    static final String SHARD_THREAD_PREFIX = "sipline-shard";
    /** The {@code jcmd JFR.start} options of the recording: that one event, every occurrence, with its stack. */
    static final String RECORDING = "settings=none +jdk.JavaMonitorEnter#enabled=true "
        + "+jdk.JavaMonitorEnter#threshold=0ms +jdk.JavaMonitorEnter#stackTrace=true";

    /** Counts every event of a recording made with {@link #RECORDING}. */
    public static LockCheck read(final Path recording, final String series, final String step) throws IOException
    {
        return read(recording, series, step, Instant.MIN, Instant.MAX);
    }

    /**
     * Counts the events of a recording made with {@link #RECORDING} that started within {@code [from, to]}: the
     * recording runs from the server's start (see {@code ServerProcess.startLocks}), the step is a window of it.
     */
    public static LockCheck read(final Path recording, final String series, final String step, final Instant from,
        final Instant to) throws IOException
    {
        long shard = 0;
        long other = 0;
        try (RecordingFile file = new RecordingFile(recording))
        {
            while (file.hasMoreEvents())
            {
                final RecordedEvent e = file.readEvent();
                if (!"jdk.JavaMonitorEnter".equals(e.getEventType().getName()) || e.getStartTime().isBefore(from)
                    || e.getStartTime().isAfter(to))
                {
                    continue;
                }
                final RecordedThread t = e.getThread();
                final String name = null == t ? null : t.getJavaName();
                if (null != name && name.startsWith(SHARD_THREAD_PREFIX))
                {
                    shard++;
                }
                else
                {
                    other++;
                }
            }
        }
        return new LockCheck(series, step, shard, other);
    }
}
