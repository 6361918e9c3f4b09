package io.sipline.container.router;

import static javax.servlet.sip.ar.SipApplicationRoutingDirective.CONTINUE;
import static javax.servlet.sip.ar.SipApplicationRoutingDirective.NEW;
import static javax.servlet.sip.ar.SipApplicationRoutingDirective.REVERSE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.ar.SipApplicationRouterInfo;
import javax.servlet.sip.ar.SipApplicationRoutingRegion;
import javax.servlet.sip.ar.SipRouteModifier;
import javax.servlet.sip.ar.SipTargetedRequestInfo;
import javax.servlet.sip.ar.SipTargetedRequestType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DefaultApplicationRouterTest
{
    private static final Map<String, String> CALL = Map.of(
        "From", "\"Alice\" <sip:alice@atlanta.example.com>;tag=1928301774",
        "To", "<sip:bob@biloxi.example.com>",
        "P-Asserted-Identity", "<sip:+15550100@atlanta.example.com;user=phone>");

    @Test
    void shouldComposeApplicationsInTupleOrder() throws Exception
    {
        final DefaultApplicationRouter router = router("call-screening", "b2bua", "voicemail");
        final SipServletRequest invite = FakeRequests.request("INVITE", CALL);

        final SipApplicationRouterInfo first = router.getNextApplication(invite, null, NEW, null, null);
        assertEquals("call-screening", first.getNextApplicationName());
        assertEquals(SipApplicationRoutingRegion.ORIGINATING_REGION, first.getRoutingRegion());
        assertEquals("sip:alice@atlanta.example.com", first.getSubscriberURI());
        assertEquals(SipRouteModifier.NO_ROUTE, first.getRouteModifier());
        assertEquals(0, first.getRoutes().length);

        // call-screening proxies the request: the container asks again with the state it was given
        final SipApplicationRouterInfo second =
            router.getNextApplication(invite, first.getRoutingRegion(), CONTINUE, null, first.getStateInfo());
        assertEquals("b2bua", second.getNextApplicationName());
        assertEquals("sip:alice@atlanta.example.com", second.getSubscriberURI());

        // the B2BUA creates the outgoing leg with CONTINUE
        final SipApplicationRouterInfo third =
            router.getNextApplication(invite, second.getRoutingRegion(), CONTINUE, null, second.getStateInfo());
        assertEquals("voicemail", third.getNextApplicationName());
        assertEquals(SipApplicationRoutingRegion.TERMINATING_REGION, third.getRoutingRegion());
        assertEquals("sip:bob@biloxi.example.com", third.getSubscriberURI());

        assertNull(router.getNextApplication(invite, third.getRoutingRegion(), CONTINUE, null, third.getStateInfo()),
            "walk exhausted: the request leaves the container");
        assertEquals("b2bua",
            router.getNextApplication(invite, null, REVERSE, null, first.getStateInfo()).getNextApplicationName(),
            "REVERSE continues the walk too");
    }

    @Test
    void shouldRestartTheWalkForANewRequest() throws Exception
    {
        final DefaultApplicationRouter router = router("call-screening", "b2bua", "voicemail");
        final SipServletRequest invite = FakeRequests.request("INVITE", CALL);

        assertEquals("call-screening",
            router.getNextApplication(invite, null, NEW, null, "1").getNextApplicationName());
        assertEquals("call-screening",
            router.getNextApplication(invite, null, CONTINUE, null, "not ours").getNextApplicationName());
        assertNull(router.getNextApplication(FakeRequests.request("BYE", CALL), null, NEW, null, null),
            "no line for the method");
        assertNull(router.getNextApplication(null, null, NEW, null, null));
    }

    @Test
    void shouldSkipApplicationsThatAreNotDeployed() throws Exception
    {
        final DefaultApplicationRouter router = router("call-screening", "voicemail");
        final SipServletRequest invite = FakeRequests.request("INVITE", CALL);

        final SipApplicationRouterInfo first = router.getNextApplication(invite, null, NEW, null, null);
        assertEquals("call-screening", first.getNextApplicationName());
        final SipApplicationRouterInfo second =
            router.getNextApplication(invite, null, CONTINUE, null, first.getStateInfo());
        assertEquals("voicemail", second.getNextApplicationName(), "b2bua is not deployed");

        router.applicationUndeployed(List.of("call-screening"));
        assertEquals("voicemail", router.getNextApplication(invite, null, NEW, null, null).getNextApplicationName());
        router.applicationDeployed(List.of("b2bua"));
        assertEquals("b2bua", router.getNextApplication(invite, null, NEW, null, null).getNextApplicationName());
        assertEquals(List.of("voicemail", "b2bua"), List.copyOf(router.deployedApplications()));

        router.destroy();
        assertNull(router.getNextApplication(invite, null, NEW, null, null));
    }

    @Test
    void shouldHandleLiteralSubscribersAndRouteModifiers() throws Exception
    {
        final DefaultApplicationRouter router = router("registrar", "im-archive");

        final SipApplicationRouterInfo register =
            router.getNextApplication(FakeRequests.request("REGISTER", CALL), null, NEW, null, null);
        assertEquals("registrar", register.getNextApplicationName());
        assertEquals("sip:registrar@example.com", register.getSubscriberURI());
        assertEquals(SipApplicationRoutingRegion.NEUTRAL_REGION, register.getRoutingRegion());

        final SipServletRequest message = FakeRequests.request("MESSAGE", CALL);
        final SipApplicationRouterInfo archive = router.getNextApplication(message, null, NEW, null, null);
        assertEquals("im-archive", archive.getNextApplicationName());
        assertEquals(SipRouteModifier.ROUTE_BACK, archive.getRouteModifier());
        assertEquals("sip:+15550100@atlanta.example.com;user=phone", archive.getSubscriberURI());

        final SipApplicationRouterInfo external =
            router.getNextApplication(message, null, CONTINUE, null, archive.getStateInfo());
        assertEquals(SipRouteModifier.ROUTE, external.getRouteModifier(), "ROUTE_FINAL is ROUTE for a 1.1 container");
        assertArrayEquals(new String[] {"sip:im-gw.example.net;lr"}, external.getRoutes());
        assertNull(external.getSubscriberURI());
        assertNull(router.getNextApplication(message, null, CONTINUE, null, external.getStateInfo()),
            "ROUTE_FINAL ends the selection: 'never' is not reached");

        final SipApplicationRouterInfo options =
            router.getNextApplication(FakeRequests.request("OPTIONS", CALL), null, NEW, null, null);
        assertEquals("keepalive", options.getNextApplicationName(), "a ROUTE tuple needs no deployed application");
        assertArrayEquals(new String[] {"sip:127.0.0.1:5080;lr"}, options.getRoutes());
    }

    @Test
    void shouldFallBackToTheRawHeaderForTheSubscriber() throws Exception
    {
        final DefaultApplicationRouter router = router("call-screening");
        final SipServletRequest bare = FakeRequests.request("INVITE", Map.of("From", "sip:carol@example.com;tag=9"));
        assertEquals("sip:carol@example.com",
            router.getNextApplication(bare, null, NEW, null, null).getSubscriberURI());
        final SipServletRequest none = FakeRequests.request("INVITE", Map.of());
        assertNull(router.getNextApplication(none, null, NEW, null, null).getSubscriberURI());
    }

    @Test
    void shouldGiveEveryInitialRequestToTheSoleApplicationWithoutDar()
    {
        final DefaultApplicationRouter router = new DefaultApplicationRouter(DarConfiguration.empty());
        router.init();
        router.applicationDeployed(List.of("b2bua"));
        final SipServletRequest invite = FakeRequests.request("INVITE", CALL);

        for (final String method : List.of("INVITE", "REGISTER", "MESSAGE", "SUBSCRIBE"))
        {
            final SipApplicationRouterInfo info =
                router.getNextApplication(FakeRequests.request(method, CALL), null, NEW, null, null);
            assertEquals("b2bua", info.getNextApplicationName(), method);
            assertEquals(SipApplicationRoutingRegion.NEUTRAL_REGION, info.getRoutingRegion());
            assertEquals(SipRouteModifier.NO_ROUTE, info.getRouteModifier());
        }
        final SipApplicationRouterInfo once = router.getNextApplication(invite, null, NEW, null, null);
        assertNull(router.getNextApplication(invite, null, CONTINUE, null, once.getStateInfo()),
            "the B2BUA's outgoing leg leaves the container");
        assertNull(router.getNextApplication(FakeRequests.request("OPTIONS", CALL, "b2bua"), null, NEW, null, null),
            "a request the application originated is not routed back to it");

        router.applicationDeployed(List.of("registrar"));
        assertNull(router.getNextApplication(invite, null, NEW, null, null), "two applications need a DAR");
        router.applicationUndeployed(List.of("b2bua"));
        assertEquals("registrar", router.getNextApplication(invite, null, NEW, null, null).getNextApplicationName());
        router.applicationUndeployed(List.of("registrar"));
        assertNull(router.getNextApplication(invite, null, NEW, null, null));
    }

    @Test
    void shouldNotRouteARequestBackToTheApplicationThatSentItInTheSameRegion() throws Exception
    {
        // The chat room of the compatibility suite: MESSAGE goes to it, and the MESSAGEs it sends to its users with
        // a NEW directive must leave the container (JSR 289 Appendix C leaves this open; the reference DAR skips).
        final DefaultApplicationRouter router = new DefaultApplicationRouter(DarConfiguration.parse(
            "MESSAGE: (\"chat\", \"DAR:From\", \"ORIGINATING\", \"\", \"NO_ROUTE\", \"0\"), "
                + "(\"chat\", \"DAR:To\", \"TERMINATING\", \"\", \"NO_ROUTE\", \"1\"), "
                + "(\"archive\", \"DAR:From\", \"ORIGINATING\", \"\", \"NO_ROUTE\", \"2\")\n", "chat.dar"));
        router.init();
        router.applicationDeployed(List.of("chat", "archive"));
        assertEquals("chat", router.getNextApplication(FakeRequests.request("MESSAGE", CALL), null, NEW, null, null)
            .getNextApplicationName(), "from the network: the first tuple");
        final SipApplicationRouterInfo sent = router.getNextApplication(
            FakeRequests.request("MESSAGE", CALL, "chat"), null, NEW, null, null);
        assertEquals("chat", sent.getNextApplicationName(), "the same application in another region");
        assertEquals(SipApplicationRoutingRegion.TERMINATING_REGION, sent.getRoutingRegion());
        assertEquals("archive", router.getNextApplication(FakeRequests.request("MESSAGE", CALL, "chat"), null,
            CONTINUE, null, "1").getNextApplicationName(), "after the terminating chat, the next application");
        router.applicationUndeployed(List.of("archive"));
        assertNull(router.getNextApplication(FakeRequests.request("MESSAGE", CALL, "chat"), null, CONTINUE, null,
            "1"), "nothing after it: the request leaves the container");
    }

    @Test
    void shouldRouteTargetedRequestsToTheirApplication() throws Exception
    {
        final DefaultApplicationRouter router = router("b2bua", "voicemail");
        final SipServletRequest invite = FakeRequests.request("INVITE", CALL);

        final SipApplicationRouterInfo info = router.getNextApplication(invite, null, NEW,
            new SipTargetedRequestInfo(SipTargetedRequestType.JOIN, "voicemail"), null);
        assertEquals("voicemail", info.getNextApplicationName());
        assertEquals(SipApplicationRoutingRegion.TERMINATING_REGION, info.getRoutingRegion());
        assertEquals("sip:bob@biloxi.example.com", info.getSubscriberURI());

        assertNull(router.getNextApplication(invite, null, NEW,
            new SipTargetedRequestInfo(SipTargetedRequestType.ENCODED_URI, "call-screening"), null),
            "targeted application not deployed");
    }

    @Test
    void shouldInitFromTheSystemPropertyOrProperties(@TempDir final Path dir) throws Exception
    {
        final Path dar = dir.resolve("dar.properties");
        Files.writeString(dar, "INVITE: (\"b2bua\", \"DAR:From\", \"ORIGINATING\", \"\", \"NO_ROUTE\", \"0\")\n");
        final String previous = System.getProperty(DarConfiguration.CONFIGURATION_PROPERTY);
        try
        {
            System.setProperty(DarConfiguration.CONFIGURATION_PROPERTY, dar.toUri().toString());
            final DefaultApplicationRouter fromUri = new DefaultApplicationRouter();
            fromUri.init();
            assertEquals(List.of("INVITE"), List.copyOf(fromUri.configuration().methods()));

            Files.writeString(dar, "INVITE: (\"b2bua\", \"DAR:From\", \"SIDEWAYS\", \"\", \"NO_ROUTE\", \"0\")\n");
            System.setProperty(DarConfiguration.CONFIGURATION_PROPERTY, dar.toString());
            final IllegalStateException bad = assertThrows(IllegalStateException.class,
                () -> new DefaultApplicationRouter().init());
            assertTrue(bad.getMessage().startsWith(dar + ":1: "), bad.getMessage());

            System.clearProperty(DarConfiguration.CONFIGURATION_PROPERTY);
            final DefaultApplicationRouter none = new DefaultApplicationRouter();
            none.init();
            assertTrue(none.configuration().isEmpty());
        }
        finally
        {
            if (null == previous)
            {
                System.clearProperty(DarConfiguration.CONFIGURATION_PROPERTY);
            }
            else
            {
                System.setProperty(DarConfiguration.CONFIGURATION_PROPERTY, previous);
            }
        }

        final Properties properties = new Properties();
        properties.setProperty("MESSAGE", "(\"im\", \"DAR:To\", \"TERMINATING\", \"\", \"NO_ROUTE\", \"0\")");
        final DefaultApplicationRouter fromProperties = new DefaultApplicationRouter();
        fromProperties.init(properties);
        fromProperties.applicationDeployed(List.of("im"));
        assertEquals("im", fromProperties.getNextApplication(FakeRequests.request("MESSAGE", CALL), null, NEW, null,
            null).getNextApplicationName());
    }

    private static DefaultApplicationRouter router(final String... deployed) throws Exception
    {
        final DefaultApplicationRouter router =
            new DefaultApplicationRouter(DarConfigurationTest.fixture("composition.dar"));
        router.init();
        router.applicationDeployed(List.of(deployed));
        return router;
    }
}
