package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/** The HTTP load of {@code --http-load}: paced by the clock, every request answered and counted. */
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
            final String line = load.describe();
            final Matcher m = Pattern.compile("sent (\\d+) .*, 200 (\\d+), other status 0, errors 0").matcher(line);
            assertTrue(m.find(), line);
            final long sent = Long.parseLong(m.group(1));
            assertTrue(sent >= 150 && sent <= 260, "about 200 in a second: " + line);
            assertTrue(Long.parseLong(m.group(2)) == sent && server.served() == sent, line + ", served "
                + server.served());
        }
    }
}
