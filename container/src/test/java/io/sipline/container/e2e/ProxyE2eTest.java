package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.sipline.test.Sipp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proxy example in the real server, driven by sipp on loopback. Two servers:
 * <ul>
 * <li>a forking proxy: every INVITE forked in parallel to two sipp callees (targets of its init parameters),
 * record-routing, refusing requests with {@code X-Block};</li>
 * <li>an outbound proxy: each INVITE proxied to its own Request-URI, one branch after the other with a 2 s branch
 * timeout, recursing on 3xx.</li>
 * </ul>
 */
class ProxyE2eTest
{
    @TempDir
    static Path work;

    static SiplineServer forking;
    static SiplineServer outbound;
    static int calleeA;
    static int calleeB;

    @BeforeAll
    static void startTheServers() throws Exception
    {
        assertTrue(Sipp.available(), "sipp is needed (apt-get install sip-tester)");
        calleeA = Sipp.freeUdpPort();
        calleeB = Sipp.freeUdpPort();
        final Path fork = Examples.configured("proxy", Map.of("targets", "sip:service@127.0.0.1:" + calleeA
            + ", sip:service@127.0.0.1:" + calleeB), work.resolve("forking"));
        forking = SiplineServer.start("proxy-forking", List.of("--deploy", fork.toString()));
        assertTrue(forking.output().contains("sipline: deployed proxy"), forking.output());
        final Path out = Examples.configured("proxy", Map.of("targets", "", "parallel", "false",
            "branch-timeout", "2"), work.resolve("outbound"));
        outbound = SiplineServer.start("proxy-outbound", List.of("--deploy", out.toString()));
        assertTrue(outbound.output().contains("sipline: deployed proxy"), outbound.output());
    }

    @AfterAll
    static void stopTheServers() throws Exception
    {
        SiplineServer.stopCleanly(forking);
        SiplineServer.stopCleanly(outbound);
    }

    /**
     * Two callees, one busy (180 then 486), one answering after 300 ms: the caller gets the 200, the 486 branch is
     * ACKed and closed, and the ACK, a re-INVITE and the BYE pass through the record-routed proxy to the callee.
     */
    @Test
    void shouldForwardThe200OfOneBranchAndCloseTheBusyOne() throws Exception
    {
        final int calls = 10;
        final Process busy = SippRun.callee("proxy-fork-486", calleeA, calls, List.of("-sf",
            Examples.scenario("callee-final.xml", Map.of("STATUS", "486", "REASON", "Busy Here"))));
        final Process answering = SippRun.callee("proxy-fork-200", calleeB, calls, List.of("-sf",
            Examples.scenario("proxy-callee.xml", Map.of("DELAY", "300"))));
        try
        {
            final SippRun caller = SippRun.call("proxy-fork-uac", forking, calls, 5, 4_000, List.of("-sf",
                Examples.scenario("proxy-caller.xml", Map.of("TARGETPORT", Integer.toString(calleeA))),
                "-s", "service"));
            caller.assertAll(calls, forking);
            SippRun.awaitCallee("proxy-fork-486", busy, calls, forking);
            SippRun.awaitCallee("proxy-fork-200", answering, calls, forking);
        }
        finally
        {
            Sipp.stop(busy);
            Sipp.stop(answering);
        }
    }

    @Test
    void shouldRefuseARequestWithTheConfiguredHeader() throws Exception
    {
        SippRun.call("proxy-403", forking, 3, 10, 1_000, List.of("-sf", Examples.scenario("proxy-caller-final.xml",
            Map.of("STATUS", "403", "TARGETPORT", Integer.toString(calleeA), "MAXFWD", "70",
                "EXTRA", "X-Block: yes")), "-s", "service")).assertAll(3, forking);
    }

    @Test
    void shouldAnswer483WhenNoHopIsLeft() throws Exception
    {
        SippRun.call("proxy-483", forking, 3, 10, 1_000, List.of("-sf", Examples.scenario("proxy-caller-final.xml",
            Map.of("STATUS", "483", "TARGETPORT", Integer.toString(calleeA), "MAXFWD", "0",
                "EXTRA", "X-Note: none")), "-s", "service")).assertAll(3, forking);
    }

    /** An INVITE for the proxy's own address comes back to it with its own Via and the same hash: 482. */
    @Test
    void shouldAnswer482ForALoop() throws Exception
    {
        SippRun.call("proxy-482", outbound, 3, 10, 1_000, List.of("-sf", Examples.scenario("proxy-caller-final.xml",
            Map.of("STATUS", "482", "TARGETPORT", Integer.toString(outbound.port()), "MAXFWD", "70",
                "EXTRA", "X-Note: loop")), "-s", "service")).assertAll(3, outbound);
    }

    /** The first callee redirects (302) to the second, which answers: the caller sees only the 200. */
    @Test
    void shouldRecurseOnA302() throws Exception
    {
        final int calls = 5;
        final Process redirecting = SippRun.callee("proxy-302", calleeA, calls, List.of("-sf",
            Examples.scenario("callee-redirect.xml", Map.of("CONTACTS", "<sip:service@127.0.0.1:" + calleeB + ">"))));
        final Process answering = SippRun.callee("proxy-302-200", calleeB, calls, List.of("-sf",
            Examples.scenario("proxy-callee.xml", Map.of("DELAY", "0"))));
        try
        {
            SippRun.call("proxy-302-uac", outbound, calls, 5, 2_000, List.of("-sf",
                Examples.scenario("proxy-caller.xml", Map.of("TARGETPORT", Integer.toString(calleeA))),
                "-s", "service")).assertAll(calls, outbound);
            SippRun.awaitCallee("proxy-302", redirecting, calls, outbound);
            SippRun.awaitCallee("proxy-302-200", answering, calls, outbound);
        }
        finally
        {
            Sipp.stop(redirecting);
            Sipp.stop(answering);
        }
    }

    /**
     * Sequential search: the 302 names a callee that only rings, then one that answers; after the 2 s branch
     * timeout the ringing branch is cancelled (200 to the CANCEL, 487, ACK) and the next one tried.
     */
    @Test
    void shouldTryTheNextTargetAfterTheBranchTimeout() throws Exception
    {
        final int calls = 2;
        final int ringing = Sipp.freeUdpPort();
        final Process redirecting = SippRun.callee("proxy-seq-302", calleeA, calls, List.of("-sf",
            Examples.scenario("callee-redirect.xml", Map.of("CONTACTS", "<sip:service@127.0.0.1:" + ringing
                + ">, <sip:service@127.0.0.1:" + calleeB + ">"))));
        final Process cancelled = SippRun.callee("proxy-seq-ring", ringing, calls, List.of("-sf",
            Examples.scenario("callee-cancelled.xml", Map.of())));
        final Process answering = SippRun.callee("proxy-seq-200", calleeB, calls, List.of("-sf",
            Examples.scenario("proxy-callee.xml", Map.of("DELAY", "0"))));
        try
        {
            SippRun.call("proxy-seq-uac", outbound, calls, 1, 6_000, List.of("-sf",
                Examples.scenario("proxy-caller.xml", Map.of("TARGETPORT", Integer.toString(calleeA))),
                "-s", "service")).assertAll(calls, outbound);
            SippRun.awaitCallee("proxy-seq-302", redirecting, calls, outbound);
            SippRun.awaitCallee("proxy-seq-ring", cancelled, calls, outbound);
            SippRun.awaitCallee("proxy-seq-200", answering, calls, outbound);
        }
        finally
        {
            Sipp.stop(redirecting);
            Sipp.stop(cancelled);
            Sipp.stop(answering);
        }
    }
}
