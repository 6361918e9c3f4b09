package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;

import io.sipline.test.Sipp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A watched deploy folder in the real server: a broken WAR beside the b2bua (at start, and another dropped while
 * it serves) is reported on one line each and calls through the b2bua keep working.
 */
class DeployFolderE2eTest
{
    @TempDir
    Path work;

    @Test
    void shouldKeepServingBesideABrokenWar() throws Exception
    {
        assertTrue(Sipp.available(), "sipp is needed (apt-get install sip-tester)");
        final int calleePort = Sipp.freeUdpPort();
        final Path folder = Files.createDirectories(work.resolve("deploy"));
        Examples.configured("b2bua", Map.of("target", "sip:service@127.0.0.1:" + calleePort), folder);
        Files.writeString(folder.resolve("broken.war"), "this is not a zip file", StandardCharsets.US_ASCII);

        try (SiplineServer server = SiplineServer.start("deploy-folder", List.of("--deploy", folder.toString())))
        {
            assertTrue(server.awaitLine(l -> l.startsWith("sipline: deployed b2bua"), 30_000), server.output());
            assertTrue(server.awaitLine(l -> l.startsWith("sipline: cannot deploy " + folder.resolve("broken.war")
                + ": not a readable WAR (zip) file"), 30_000), server.output());
            calls(server, calleePort, "deploy-folder-1");

            // another broken WAR dropped while serving: reported, and the b2bua still serves
            final Path staged = work.resolve("late.war");
            Files.write(staged, new byte[] {'P', 'K', 3, 4, 0, 0});
            Files.move(staged, folder.resolve("late.war"), StandardCopyOption.ATOMIC_MOVE);
            assertTrue(server.awaitLine(l -> l.startsWith("sipline: cannot deploy " + folder.resolve("late.war")),
                30_000), server.output());
            calls(server, calleePort, "deploy-folder-2");
            assertEquals(2, server.output().lines().filter(l -> l.startsWith("sipline: cannot deploy")).count(),
                server.output());
            server.stopCleanly();
        }
    }

    private static void calls(final SiplineServer server, final int calleePort, final String name) throws Exception
    {
        SippRun.callThrough(name, server, calleePort, 20, 10, 2_000, List.of("-sn", "uas"),
            List.of("-sn", "uac", "-s", "service"));
    }
}
