package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;

import io.sipline.container.admin.ContainerServerStatus;
import io.sipline.container.admin.ContainerStatus;
import org.junit.jupiter.api.Test;

/** Per-application sessions and servlet times for {@code /metrics}, from the counters to the status. */
class ApplicationStatsTest
{
    @Test
    void shouldBucketCallsAndSumStripes()
    {
        final ApplicationStats stats = new ApplicationStats(2);
        stats.servletCall(0, 5_000);          // 5 us: first bucket (<= 10 us)
        stats.servletCall(1, 300_000);        // 300 us: <= 500 us
        stats.servletCall(1, 2_000_000_000L); // 2 s: +Inf
        stats.sessionCreated(0);
        stats.sessionCreated(1);
        stats.sessionDestroyed(0);

        final long[] counts = stats.counts();
        assertEquals(ApplicationStats.UPPER_BOUNDS_SECONDS.length, counts.length);
        final long[] expected = new long[counts.length];
        expected[0] = 1;
        expected[4] = 1;
        expected[counts.length - 1] = 1;
        assertArrayEquals(expected, counts);
        assertEquals(2.000305, stats.sumSeconds(), 1e-9);
        assertEquals(1, stats.sessions());
    }

    /** Keeps its application session alive and answers 200. */
    public static final class Keeper extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doOptions(final SipServletRequest req) throws IOException
        {
            req.getApplicationSession().setInvalidateWhenReady(false);
            req.createResponse(200).send();
        }
    }

    @Test
    void shouldReportTheServletCallsAndLiveSessionsOfARunningApplication() throws Exception
    {
        try (ContainerServer server = TestApps.server())
        {
            server.registry().onDeployed(TestApps.application("keeper", new Keeper(), Map.of()));
            final ContainerStatus status = new ContainerServerStatus(server);
            for (int i = 0; i < 3; i++)
            {
                final String answer = TestApps.exchange(DispatchSippTest.address(server),
                    TestApps.request("OPTIONS", "stats-" + i));
                assertTrue(answer.startsWith("SIP/2.0 200 "), answer);
            }
            assertTrue(TestApps.await(
                () -> 3 == java.util.Arrays.stream(status.servletTimes().getFirst().counts()).sum()));
            final List<ContainerStatus.Application> apps = status.applications();
            assertEquals("keeper", apps.getFirst().name());
            assertEquals(3, apps.getFirst().sessionsActive());
            assertTrue(status.servletTimes().getFirst().sumSeconds() > 0);
        }
    }
}
