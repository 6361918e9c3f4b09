package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * {@link H2load}: its command line, and its summary read from h2load's own output (captured from h2load 1.52 under
 * {@link H2load#command}'s shell), into the counters every HTTP client of the harness reports.
 */
class H2loadTest
{
    private static final URI TARGET = URI.create("http://127.0.0.1:40123/click-to-call/calls");

    /**
     * h2load's standard output for 200 requests/s over 12 connections for 3 s to a server with a short accept backlog
     * (some connections made late), then the shell's {@code times}.
     */
    private static final String RUN = """
        starting benchmark...
        spawning thread #0: 12 total client(s). Timing-based test with 0s of warm-up time and 3s of main duration \
        for measurements.
        Warm-up started for thread #0.
        progress: 8% of clients started
        progress: 16% of clients started
        progress: 25% of clients started
        progress: 33% of clients started
        progress: 41% of clients started
        progress: 50% of clients started
        progress: 58% of clients started
        progress: 66% of clients started
        progress: 75% of clients started
        progress: 83% of clients started
        progress: 91% of clients started
        progress: 100% of clients started
        Warm-up phase is over for thread #0.
        Main benchmark duration is started for thread #0.
        Application protocol: http/1.1
        Main benchmark duration is over for thread #0. Stopping all clients.
        Stopped all clients for thread #0

        finished in 3.00s, 173.33 req/s, 18.79KB/s
        requests: 520 total, 527 started, 520 done, 520 succeeded, 0 failed, 0 errored, 0 timeout
        status codes: 520 2xx, 0 3xx, 0 4xx, 0 5xx
        traffic: 56.37KB (57720) total, 40.63KB (41600) headers (space savings 0.00%), 0B (0) data
                             min         max         mean         sd        +/- sd
        time for request:      575us      5.47ms      1.42ms       572us    72.69%
        time for connect:        8us       1.01s    419.68ms    518.59ms    58.33%
        time to 1st byte:        0us         0us         0us         0us     0.00%
        req/s           :      11.33       16.66       14.44        2.75    58.33%
        0m0.000000s 0m0.000000s
        0m0.030000s 0m0.000000s
        """;

    @Test
    void shouldReadWhatWasSentAnsweredAndTheCpuOfTheRun()
    {
        final HttpLoadSummary s = H2load.summary(RUN, TARGET, 200, 3.0).orElseThrow();
        assertEquals("h2load", s.client());
        assertEquals(3.0, s.seconds(), 1e-9);
        assertEquals(527, s.sent(), "started: the 7 in flight when the time was over included");
        assertEquals(520, s.ok());
        assertEquals(0, s.otherStatus() + s.errors());
        assertEquals(600 - 527, s.notSent());
        assertEquals(1.42, s.meanMillis(), 1e-9);
        assertEquals(5.47, s.maxMillis(), 1e-9);
        assertEquals(0.03 / 3.0, s.cores(), 1e-9, "the children's user and system time over the time it ran");
        assertEquals("http load " + TARGET + " (h2load): offered 200/s, sent 527 (176/s), 2xx 520, other status 0, "
            + "errors 0, not sent 73, mean 1.42 ms, max 5.47 ms, client process 0.01 cores", s.describe());
    }

    @Test
    void shouldHaveNoSummaryWhenStoppedBeforeItsTimeWasOver()
    {
        final String stopped = RUN.substring(0, RUN.indexOf("finished in")) + "0m0.000000s 0m0.000000s\n"
            + "0m0.120000s 0m0.050000s\n";
        assertTrue(H2load.summary(stopped, TARGET, 200, 3.0).isEmpty());
    }

    @Test
    void shouldReadDurationsInEachOfItsUnits()
    {
        assertEquals(512e-6, H2load.seconds("512us"), 1e-12);
        assertEquals(1.2e-3, H2load.seconds("1.20ms"), 1e-12);
        assertEquals(20.0, H2load.seconds("20.00s"), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> H2load.seconds("1.5m"));
    }

    @Test
    void shouldSpreadTheRateOverABoundedNumberOfConnections()
    {
        assertEquals(1, H2load.clients(10));
        assertEquals(62, H2load.clients(1000));
        assertEquals(H2load.MAX_CLIENTS, H2load.clients(100_000));
        assertEquals(List.of("nice", "-n", "10", "sh", "-c", "\"$0\" \"$@\"; times", "/usr/bin/h2load", "--h1", "-c",
            "62", "--rps", "16.129032", "-D", "20500ms", TARGET.toString()),
            H2load.command(Path.of("/usr/bin/h2load"), TARGET, 1000, 20_500, 10));
    }
}
