package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.sipline.test.Sipp;

/**
 * A record-routing proxy application on virtual threads ({@code io.sipline.threading=virtual}): its {@code proxyTo}
 * runs on the application's thread while the branches' responses arrive on the shard. The proxy's branch lists only
 * change on the shard (the application thread waits for it), so 100 calls through it all complete, BYE included.
 */
class VirtualThreadProxyTest
{
    @Test
    void shouldProxyFromAnApplicationOnVirtualThreads() throws Exception
    {
        Assumptions.assumeTrue(Sipp.available(), "sipp is not installed (apt-get install sip-tester)");
        final int uasPort = Sipp.freeUdpPort();
        Process uas = null;
        try (ContainerServer server = TestApps.server())
        {
            server.registry().onDeployed(TestApps.application("vproxy", new B2buaAllocationTest.RecordRoutingProxy(),
                Map.of("target", "sip:service@127.0.0.1:" + uasPort, RunningApplicationImpl.THREADING_PARAMETER,
                    "virtual")));
            uas = Sipp.start("vproxy-uas", List.of("-sf", DispatchSippTest.scenario("routed-callee.xml").toString(),
                "-m", "100"), uasPort);
            final String uac = "vproxy-uac";
            DispatchSippTest.runUac(uac, List.of("127.0.0.1:" + DispatchSippTest.address(server).getPort(), "-sf",
                DispatchSippTest.scenario("routed-caller.xml").toString(), "-m", "100", "-r", "50"));
            final long[] okFailed = Sipp.successAndFailed(uac);
            assertEquals(100, okFailed[0], Sipp.report(uac));
            assertEquals(0, okFailed[1], Sipp.report(uac));
            assertTrue(uas.waitFor(30, TimeUnit.SECONDS), Sipp.report("vproxy-uas"));
            assertEquals(100, Sipp.successAndFailed("vproxy-uas")[0], Sipp.report("vproxy-uas"));
            assertEquals(0, server.counters().servletErrors.get());
            assertTrue(Sipp.await(() -> 0 == server.applicationSessions(), 10_000),
                "application sessions left: " + server.applicationSessions());
        }
        finally
        {
            Sipp.stop(uas);
        }
    }
}
