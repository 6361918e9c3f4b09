package io.sipline.bench.calls;

import java.net.URI;

/**
 * What one HTTP load of {@code bench calls --http-load} did, whichever client sent it ({@link HttpLoad}, the JDK's, or
 * {@link H2load}): the rate offered, the requests sent, how they were answered, the offered ones never sent (the
 * client held back at its bound on requests in flight, or was starved of CPU), the answer times and the cores the
 * client's own process used. {@link #describe} is the one line the console and the report's counters show for it.
 * <p>
 * Threading: an immutable value.
 *
 * @param client       the client that sent the load ({@code jdk}, {@code h2load})
 * @param uri          the URI every request asked for
 * @param rate         requests per second offered
 * @param seconds      how long the client sent, s
 * @param sent         requests sent
 * @param ok           answers with a 2xx status
 * @param otherStatus  answers with any other status
 * @param errors       requests that failed without an answer (connection refused or reset, timed out)
 * @param notSent      offered requests the client did not send
 * @param meanMillis   mean time from request to answer of the answered ones, ms
 * @param maxMillis    longest of them, ms
 * @param cores        CPU of the client's process over its wall time (user and system), cores
 */
record HttpLoadSummary(String client, URI uri, int rate, double seconds, long sent, long ok, long otherStatus,
    long errors, long notSent, double meanMillis, double maxMillis, double cores)
{
    /** One line: client, offered and sent rates, answers by status, errors, not sent, answer times, cores. */
    String describe()
    {
        return String.format("http load %s (%s): offered %d/s, sent %d (%.0f/s), 2xx %d, other status %d, errors %d, "
            + "not sent %d, mean %.2f ms, max %.2f ms, client process %.2f cores", uri, client, rate, sent,
            sent / Math.max(1e-9, seconds), ok, otherStatus, errors, notSent, meanMillis, maxMillis, cores);
    }
}
