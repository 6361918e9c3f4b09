package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.sipline.test.Sipp;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compatibility suite: public SIP servlet applications written for Mobicents/Restcomm ({@code src/test/compat},
 * copied unchanged), each built as its project built it, deployed with the DAR file it ships and the libraries its
 * old container provided ({@code --shared-lib}), and driven as its readme tells its users to: softphones played by
 * sipp, on the hard-coded addresses the applications send to (127.0.0.1:5090 and 6090).
 */
class CompatibilityE2eTest
{
    @TempDir
    static Path work;

    @BeforeAll
    static void sippIsThere()
    {
        assertTrue(Sipp.available(), "sipp is needed (apt-get install sip-tester)");
    }

    /** call-blocking (a UAS): a caller on its black list gets 403 Forbidden. */
    @Test
    void callBlockingRefusesABlockedCaller() throws Exception
    {
        try (SiplineServer server = start("call-blocking", "call-blocking-servlet-dar.properties", "call-blocking"))
        {
            final SippRun run = SippRun.call("compat-blocked", server, 1, 1, 2_000, caller("caller-refused.xml",
                "blocked-sender", "sip:anyone@127.0.0.1", "sip:anyone@127.0.0.1:" + server.port(), "403"));
            run.assertAll(1, server);
            server.stopCleanly();
        }
    }

    /**
     * call-forwarding (a B2BUA): a call to sip:receiver@127.0.0.1 is forwarded to sip:forward-receiver@127.0.0.1:5090;
     * the 200 it relays sets Content-Length before the content, and the caller's BYE is relayed.
     */
    @Test
    void callForwardingRelaysACallToItsForwardAddress() throws Exception
    {
        CompatApps.requireFree(5090);
        try (SiplineServer server = start("call-forwarding", "call-forwarding-b2bua-servlet-dar.properties",
            "call-forwarding"))
        {
            SippRun.callThrough("compat-forwarding", server, 5090, 3, 3, 3_000, List.of("-sn", "uas"),
                caller("caller-sdp.xml", "caller", "sip:receiver@127.0.0.1",
                    "sip:receiver@127.0.0.1:" + server.port(), null));
            server.stopCleanly();
        }
    }

    /**
     * location-service (a proxy): REGISTER is answered, and a call to sip:receiver@sip-servlets.com forks in
     * parallel to its two contacts, 127.0.0.1:5090 answers, 6090 rings and is cancelled; record-routed, so the BYE
     * goes through the proxy.
     */
    @Test
    void locationServiceForksACallInParallel() throws Exception
    {
        try (SiplineServer server = start("location-service", "locationservice-dar.properties", "location-service"))
        {
            forkToTwoContacts("compat-location", server, "sip:receiver@sip-servlets.com");
            server.stopCleanly();
        }
    }

    /**
     * speed-dial composed with location-service (the DAR the location-service project ships): speed-dial proxies
     * "1" to sip:receiver@sip-servlets.com, the router then gives the request to location-service, which forks it.
     */
    @Test
    void speedDialComposesWithLocationService() throws Exception
    {
        final Path dar = CompatApps.source("location-service").resolve("speeddial-locationservice-dar.properties");
        try (SiplineServer server = start("speed-dial-location", dar, "speed-dial", "location-service"))
        {
            forkToTwoContacts("compat-speed-dial", server, "sip:1@127.0.0.1:" + server.port());
            server.stopCleanly();
        }
    }

    /** simple-sip-servlet (a UAS that answers every call, a TimerListener declared as a listener). */
    @Test
    void simpleServletAnswersACall() throws Exception
    {
        try (SiplineServer server = start("simple-sip-servlet", "simple-dar.properties", "simple-sip-servlet"))
        {
            final SippRun run = SippRun.call("compat-simple", server, 3, 3, 3_000, caller("caller.xml", "caller",
                "sip:service@127.0.0.1", "sip:service@127.0.0.1:" + server.port(), null));
            run.assertAll(3, server);
            server.stopCleanly();
        }
    }

    /**
     * shootist-sip-servlet (a UAC): when it is deployed, its listener calls sip:LittleGuy@127.0.0.1:5090 (a host
     * with its port given to createSipURI), ACKs the 200 and hangs up two seconds later.
     */
    @Test
    void shootistCallsOutWhenDeployed() throws Exception
    {
        CompatApps.requireFree(5090);
        final Process callee = SippRun.callee("compat-shootist-uas", 5090, 1, List.of("-sn", "uas"));
        try (SiplineServer server = start("shootist-sip-servlet", (Path)null, "shootist-sip-servlet"))
        {
            SippRun.awaitCallee("compat-shootist-uas", callee, 1, server);
            server.stopCleanly();
        }
        finally
        {
            Sipp.stop(callee);
        }
    }

    /** chatserver (MESSAGE): finds its SipFactory in JNDI, welcomes each user, relays a line to the others. */
    @Test
    void chatServerRelaysMessagesBetweenUsers() throws Exception
    {
        try (SiplineServer server = start("chatserver", "dar-chatserver.properties", "chatserver");
            ChatUser alice = new ChatUser("alice", server.port());
            ChatUser bob = new ChatUser("bob", server.port()))
        {
            assertEquals(200, alice.say("/join"));
            assertTrue(alice.nextMessage().startsWith("Welcome to chatroom sip:just4fun@127.0.0.1:5080."));
            assertEquals(200, bob.say("/join"));
            assertTrue(bob.nextMessage().startsWith("Welcome to chatroom"));
            assertEquals(200, bob.say("hello, room"));
            assertEquals(bob.uri() + " sent message: \nhello, room", alice.nextMessage());
            assertEquals(200, alice.say("/who"));
            final String who = alice.nextMessage();
            assertTrue(who.contains(alice.uri()) && who.contains(bob.uri()), who);
            server.stopCleanly();
        }
    }

    /** Calls {@code ruri}, whose two contacts are 127.0.0.1:5090 (answers) and 127.0.0.1:6090 (rings, cancelled). */
    private static void forkToTwoContacts(final String name, final SiplineServer server, final String ruri)
        throws Exception
    {
        CompatApps.requireFree(5090);
        CompatApps.requireFree(6090);
        final Process ringing = SippRun.callee(name + "-6090", 6090, 1,
            List.of("-sf", Examples.scenario("callee-cancelled.xml", Map.of())));
        try
        {
            SippRun.callThrough(name, server, 5090, 1, 1, 3_000,
                List.of("-sf", Examples.scenario("compat/callee.xml", Map.of())),
                caller("caller.xml", "caller", "sip:receiver@sip-servlets.com", ruri, null));
            SippRun.awaitCallee(name + "-6090", ringing, 1, server);
        }
        finally
        {
            Sipp.stop(ringing);
        }
    }

    private static SiplineServer start(final String name, final String darFile, final String... apps)
        throws Exception
    {
        return start(name, CompatApps.source(apps[0]).resolve(darFile), apps);
    }

    private static SiplineServer start(final String name, final Path dar, final String... apps) throws Exception
    {
        final List<String> args = new ArrayList<>(List.of("--shared-lib", CompatApps.sharedLib().toString()));
        for (final String app : apps)
        {
            args.addAll(List.of("--deploy", CompatApps.war(app, work).toString()));
        }
        if (null != dar)
        {
            args.addAll(List.of("--dar", dar.toString()));
        }
        final SiplineServer server = SiplineServer.start("compat-" + name, args);
        for (final String app : apps)
        {
            assertTrue(server.output().contains("sipline: deployed"), server.output());
        }
        return server;
    }

    private static List<String> caller(final String scenario, final String from, final String to, final String ruri,
        final String status) throws Exception
    {
        final Map<String, String> values = null == status ? Map.of("from", from, "to", to, "ruri", ruri)
            : Map.of("from", from, "to", to, "ruri", ruri, "status", status);
        return List.of("-sf", Examples.scenario("compat/" + scenario, values));
    }
}
