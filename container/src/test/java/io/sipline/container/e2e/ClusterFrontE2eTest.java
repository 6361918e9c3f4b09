package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sipline.test.Sipp;

/**
 * Two Sipline nodes running the b2bua example behind Kamailio with the repository's front configuration
 * ({@code cluster/kamailio/kamailio.cfg}): sipp's calls to the front spread over both nodes by Call-ID hash and
 * their ACK and BYE follow the front's Record-Route to the node that owns the call; one node stopped, the front's
 * OPTIONS probing takes it out and every new call goes to the survivor.
 */
class ClusterFrontE2eTest
{
    private static final int PING_SECONDS = 1;

    @TempDir
    static Path work;

    @Test
    void shouldSpreadCallsOverTheNodesAndSendNewCallsToTheSurvivor() throws Exception
    {
        assertTrue(Sipp.available(), "sipp is needed (apt-get install sip-tester)");
        assertTrue(KamailioFront.available(), "kamailio is needed (apt-get install kamailio)");
        final int calleePort = Sipp.freeUdpPort();
        final Path war = Examples.configured("b2bua", Map.of("target", "sip:service@127.0.0.1:" + calleePort),
            work.resolve("apps"));
        try (SiplineServer a = SiplineServer.start("cluster-node-a", node(war, 1));
            SiplineServer b = SiplineServer.start("cluster-node-b", node(war, 2));
            KamailioFront front = KamailioFront.start("cluster-front", List.of(a.port(), b.port()), PING_SECONDS))
        {
            final String toA = "to sip:127.0.0.1:" + a.port();
            final String toB = "to sip:127.0.0.1:" + b.port();
            final List<String> caller = List.of("-sf", scenario("routed-caller.xml"), "-s", "service");

            callThrough("cluster-both", front, a, calleePort, 60, caller);
            final long onA = front.lines(l -> l.contains("dispatch INVITE") && l.endsWith(toA)).size();
            final long onB = front.lines(l -> l.contains("dispatch INVITE") && l.endsWith(toB)).size();
            assertEquals(60, onA + onB, front.output());
            assertTrue(onA >= 10 && onB >= 10, "the Call-ID hash spreads the calls over both nodes: " + onA + " on A, "
                + onB + " on B");

            b.stopCleanly();
            assertTrue(front.awaitLine(l -> l.contains("sipline-front: node sip:127.0.0.1:" + b.port() + " down"),
                10_000L + 3_000L * PING_SECONDS), "the probe takes the stopped node out:\n" + front.output());
            final int mark = front.lineCount();
            callThrough("cluster-survivor", front, a, calleePort, 30, caller);
            final List<String> after = front.linesSince(mark, l -> l.contains("dispatch INVITE"));
            assertEquals(30, after.size(), front.output());
            assertTrue(after.stream().allMatch(l -> l.endsWith(toA)), "every new call goes to the survivor:\n"
                + String.join("\n", after));
            a.stopCleanly();
        }
    }

    /** A node of the cluster {@code front-e2e} with its own number (no peers: the front needs no grid). */
    private static List<String> node(final Path war, final int node) throws java.io.IOException
    {
        return List.of("--deploy", war.toString(), "--cluster-name", "front-e2e", "--cluster-bind",
            "127.0.0.1:" + Sipp.freeUdpPort(), "--cluster-node", Integer.toString(node));
    }

    private static void callThrough(final String name, final KamailioFront front, final SiplineServer node,
        final int calleePort, final int calls, final List<String> caller) throws Exception
    {
        final Process callee = SippRun.callee(name + "-uas", calleePort, calls, List.of("-sn", "uas"));
        try
        {
            final SippRun run = SippRun.call(name + "-uac", front.port(), calls, 20, calls * 50L, caller);
            assertEquals(calls, run.successful(), run + "\n" + Sipp.report(name + "-uac") + "\n== front\n"
                + front.output());
            assertEquals(0, run.failed(), run + "\n" + Sipp.report(name + "-uac"));
            SippRun.awaitCallee(name + "-uas", callee, calls, node);
        }
        finally
        {
            Sipp.stop(callee);
        }
    }

    private static String scenario(final String file)
    {
        return Path.of("src", "test", "resources", "sipp", file).toAbsolutePath().toString();
    }
}
