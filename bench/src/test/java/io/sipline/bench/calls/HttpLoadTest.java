package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The JDK client of {@code --http-load}: paced by the clock, every request answered and counted. */
class HttpLoadTest
{
    @Test
    void sendsTheOfferedRateAndCountsTheAnswers() throws Exception
    {
        try (AnsweringHttpServer server = new AnsweringHttpServer())
        {
            final HttpLoad load = HttpLoad.start(server.uri("/calls"), 200);
            final long end = System.nanoTime() + 1_000_000_000L;
            while (System.nanoTime() < end)
            {
                Thread.sleep(50);
            }
            load.close();
            final HttpLoadSummary summary = load.summary(0.5);
            final String line = summary.describe();
            assertTrue(summary.sent() >= 150 && summary.sent() <= 260, "about 200 in a second: " + line);
            assertEquals(summary.sent(), summary.ok(), line);
            assertEquals(server.served(), summary.ok(), line);
            assertEquals(0, summary.otherStatus() + summary.errors(), line);
            assertTrue(summary.maxMillis() >= summary.meanMillis() && summary.meanMillis() > 0, line);
            assertTrue(line.startsWith("http load " + server.uri("/calls") + " (jdk): offered 200/s, sent "), line);
            assertTrue(line.endsWith(", client process 0.50 cores"), line);
        }
    }
}
