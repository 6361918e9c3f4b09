package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.sipline.test.Sipp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The uac example in the real server: once deployed it sends an OPTIONS every second (its ServletTimer) to a sipp
 * responder, which answers three and exits.
 */
class UacE2eTest
{
    @TempDir
    Path work;

    @Test
    void shouldSendPeriodicOptions() throws Exception
    {
        assertTrue(Sipp.available(), "sipp is needed (apt-get install sip-tester)");
        final int peerPort = Sipp.freeUdpPort();
        final Path war = Examples.configured("uac",
            Map.of("target", "sip:options@127.0.0.1:" + peerPort, "interval-seconds", "1"), work);
        final Process peer = Sipp.start("uac-options-peer",
            List.of("-sf", Examples.scenario("options-responder.xml", Map.of()), "-m", "3"), peerPort);
        try (SiplineServer server = SiplineServer.start("uac", List.of("--deploy", war.toString())))
        {
            assertTrue(peer.waitFor(30, TimeUnit.SECONDS), "three OPTIONS within 30 s\n"
                + Sipp.report("uac-options-peer") + "\n== server\n" + server.output());
            assertEquals(3, Sipp.successAndFailed("uac-options-peer")[0], Sipp.report("uac-options-peer"));
            server.stopCleanly();
        }
        finally
        {
            Sipp.stop(peer);
        }
    }
}
