package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import javax.servlet.ServletException;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.ar.SipApplicationRouter;
import javax.servlet.sip.ar.SipApplicationRouterInfo;
import javax.servlet.sip.ar.SipApplicationRoutingDirective;
import javax.servlet.sip.ar.SipApplicationRoutingRegion;
import javax.servlet.sip.ar.SipRouteModifier;
import javax.servlet.sip.ar.SipTargetedRequestInfo;

import org.junit.jupiter.api.Test;

import io.sipline.container.router.DarConfiguration;
import io.sipline.container.router.DefaultApplicationRouter;
import io.sipline.sip.stack.SipStackConfig;

/**
 * The route modifiers of the application router's answer for a received initial request (JSR 289 §15.4.1), with the
 * default router reading a DAR: {@code ROUTE} to an external route sends the request out without invoking an
 * application and relays the responses (and a CANCEL); {@code ROUTE_BACK} pushes the external route above a route back
 * to the container, and the request that comes back that way continues application selection from the router's state
 * info; the DAR's {@code ROUTE_FINAL} sends it out as {@code ROUTE} does. The next hop is a raw {@link SipPeer}.
 */
class RouterRouteDispatchTest
{
    /** Records every request it is given (method, region, subscriber, popped route's URI) and answers 486. */
    public static final class Busy extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        final transient Queue<String> seen = new ConcurrentLinkedQueue<>();

        @Override
        protected void doRequest(final SipServletRequest req) throws ServletException, IOException
        {
            seen.add(req.getMethod() + " " + req.getRegion().getType() + " " + req.getSubscriberURI() + " popped="
                + (null == req.getPoppedRoute() ? null : req.getPoppedRoute().getURI()));
            if (!"ACK".equals(req.getMethod()))
            {
                req.createResponse(486).send();
            }
        }
    }

    @Test
    void shouldSendTheRequestToAnExternalRouteAndRelayItsResponsesWithoutAnApplication() throws Exception
    {
        try (SipPeer next = new SipPeer(null))
        {
            final Busy app = new Busy();
            final String route = "sip:127.0.0.1:" + next.port() + ";lr";
            try (ContainerServer server = server("INVITE", "(\"app\", \"DAR:From\", \"ORIGINATING\", \"" + route
                + "\", \"ROUTE\", \"0\")");
                SipPeer caller = new SipPeer(DispatchSippTest.address(server));)
            {
                final SipPeer hop = next;
                hop.target(DispatchSippTest.address(server));
                server.registry().onDeployed(TestApps.application("app", app, Map.of()));
                caller.send(TestApps.request("INVITE", "routed-out"));

                final String invite = hop.await(m -> m.startsWith("INVITE "), "the INVITE at the external route");
                assertTrue(invite.startsWith("INVITE sip:service@127.0.0.1 SIP/2.0\r\n"), invite);
                assertEquals("<" + route + ">", SipPeer.header(invite, "Route"), "the router's route pushed");
                assertEquals("69", SipPeer.header(invite, "Max-Forwards"), "RFC 3261 §16.6 step 3");
                assertEquals(2, vias(invite).size(), "our Via above the caller's: " + invite);
                assertTrue(vias(invite).get(1).contains("branch=z9hG4bK-routed-out"), invite);

                hop.send(response(invite, 180, "Ringing", "callee"));
                final String ringing = caller.await(SipPeer.response(180, "INVITE"), "the 180 relayed");
                assertEquals(1, vias(ringing).size(), "our Via taken off: " + ringing);
                hop.send(response(invite, 200, "OK", "callee"));
                final String ok = caller.await(SipPeer.response(200, "INVITE"), "the 200 relayed");
                assertTrue(SipPeer.header(ok, "To").endsWith(";tag=callee"), ok);
                assertEquals(1, vias(ok).size(), ok);
                assertTrue(app.seen.isEmpty(), "JSR 289 §15.4.1: no application is invoked: " + app.seen);
                assertEquals(1, server.counters().routedOut.get());
                assertEquals(0, server.applicationSessions());
            }
        }
    }

    @Test
    void shouldCancelARequestSentToAnExternalRoute() throws Exception
    {
        try (SipPeer next = new SipPeer(null))
        {
            final String route = "sip:127.0.0.1:" + next.port() + ";lr";
            try (ContainerServer server = server("INVITE", "(\"absent\", \"DAR:From\", \"ORIGINATING\", \"" + route
                + "\", \"ROUTE\", \"0\")");
                SipPeer caller = new SipPeer(DispatchSippTest.address(server));)
            {
                final SipPeer hop = next;
                hop.target(DispatchSippTest.address(server));
                server.registry().onDeployed(TestApps.application("app", new Busy(), Map.of()));
                caller.send(TestApps.request("INVITE", "routed-cancel"));
                final String invite = hop.await(m -> m.startsWith("INVITE "), "the INVITE at the external route");
                hop.send(response(invite, 180, "Ringing", "callee"));
                caller.await(SipPeer.response(180, "INVITE"), "the 180 relayed");

                caller.send(TestApps.request("CANCEL", "routed-cancel"));
                caller.await(SipPeer.response(200, "CANCEL"), "RFC 3261 §16.10: 200 to the CANCEL");
                final String cancel = hop.await(m -> m.startsWith("CANCEL "), "the CANCEL downstream");
                assertEquals(vias(invite).get(0), vias(cancel).get(0), "RFC 3261 §9.1: the INVITE's branch");
                assertEquals(1, vias(cancel).size(), cancel);
                assertEquals(SipPeer.header(invite, "Route"), SipPeer.header(cancel, "Route"), cancel);
                assertEquals("1 CANCEL", SipPeer.header(cancel, "CSeq"));
                hop.send(SipPeer.okTo(cancel));
                hop.send(response(invite, 487, "Request Terminated", "callee"));
                caller.await(SipPeer.response(487, "INVITE"), "the 487 relayed");
                hop.await(m -> m.startsWith("ACK "), "RFC 3261 §17.1.1.3: the ACK of the 487, hop by hop");
            }
        }
    }

    @Test
    void shouldRouteBackAndContinueApplicationSelectionFromTheRoutersState() throws Exception
    {
        try (SipPeer next = new SipPeer(null))
        {
            final Busy app = new Busy();
            final String route = "sip:127.0.0.1:" + next.port() + ";lr";
            try (ContainerServer server = server("INVITE", "(\"screening\", \"DAR:From\", \"ORIGINATING\", \""
                + route + "\", \"ROUTE_BACK\", \"0\"), (\"app\", \"DAR:To\", \"TERMINATING\", \"\", \"NO_ROUTE\", "
                + "\"1\")");
                SipPeer caller = new SipPeer(DispatchSippTest.address(server));)
            {
                final SipPeer hop = next;
                hop.target(DispatchSippTest.address(server));
                server.registry().onDeployed(TestApps.application("app", app, Map.of()));
                caller.send(TestApps.request("INVITE", "routed-back"));

                final String invite = hop.await(m -> m.startsWith("INVITE "), "the INVITE at the external route");
                final List<String> routes = routes(invite);
                assertEquals(2, routes.size(), invite);
                assertEquals("<" + route + ">", routes.get(0), "the external route on top");
                assertTrue(routes.get(1).startsWith("<sip:127.0.0.1:" + DispatchSippTest.address(server).getPort()
                    + ";lr;" + ApplicationComposition.COMPOSITION_PARAMETER + "="),
                    "then the route back to us: " + routes);
                assertTrue(app.seen.isEmpty(), app.seen.toString());

                // the external hop proxies it on along the Route set: back to the container
                hop.send(proxied(invite));
                final String busy = hop.await(SipPeer.response(486, "INVITE"), "the application's 486");
                assertEquals(3, vias(busy).size(), "the external hop's, ours, the caller's: " + busy);
                assertEquals(List.of("INVITE TERMINATING sip:service@127.0.0.1 popped=" + routes.get(1)
                    .substring(1, routes.get(1).length() - 1)), List.copyOf(app.seen),
                    "selection continued after the ROUTE_BACK tuple: the next tuple's region and subscriber");
            }
        }
    }

    @Test
    void shouldSendARouteFinalRequestOutAndRelayItsFinalResponse() throws Exception
    {
        try (SipPeer next = new SipPeer(null))
        {
            final Busy app = new Busy();
            final String route = "sip:127.0.0.1:" + next.port() + ";lr";
            try (ContainerServer server = server("MESSAGE", "(\"gateway\", \"DAR:From\", \"NEUTRAL\", \"" + route
                + "\", \"ROUTE_FINAL\", \"0\"), (\"app\", \"DAR:From\", \"NEUTRAL\", \"\", \"NO_ROUTE\", \"1\")");
                SipPeer caller = new SipPeer(DispatchSippTest.address(server));)
            {
                final SipPeer hop = next;
                hop.target(DispatchSippTest.address(server));
                server.registry().onDeployed(TestApps.application("app", app, Map.of()));
                caller.send(TestApps.request("MESSAGE", "routed-final"));
                final String message = hop.await(m -> m.startsWith("MESSAGE "), "the MESSAGE at the final route");
                assertEquals(List.of("<" + route + ">"), routes(message));
                hop.send(response(message, 202, "Accepted", "gw"));
                final String accepted = caller.await(SipPeer.response(202, "MESSAGE"), "the 202 relayed");
                assertEquals(1, vias(accepted).size(), accepted);
                assertTrue(app.seen.isEmpty(), app.seen.toString());
            }
        }
    }

    /**
     * JSR 289 §15.4.1 for a request an application sends: the router's external route is pushed on it, so it leaves
     * towards that route (and its Request-URI is kept).
     */
    @Test
    void shouldPushAnExternalRouteOnARequestAnApplicationSends() throws Exception
    {
        try (SipPeer next = new SipPeer(null))
        {
            final String route = "sip:127.0.0.1:" + next.port() + ";lr";
            try (ContainerServer server = server("MESSAGE", "(\"gateway\", \"DAR:From\", \"ORIGINATING\", \""
                + route + "\", \"ROUTE\", \"0\")"))
            {
                next.target(DispatchSippTest.address(server));
                server.registry().onDeployed(TestApps.application("app", new Busy(), Map.of()));
                final javax.servlet.sip.SipFactory factory = TestApps.factory(server, "app");
                final SipServletRequest message = factory.createRequest(factory.createApplicationSession(),
                    "MESSAGE", "<sip:app@127.0.0.1>", "<sip:bob@192.0.2.7>");
                message.send();
                final String out = next.await(m -> m.startsWith("MESSAGE "), "the MESSAGE at the router's route");
                assertTrue(out.startsWith("MESSAGE sip:bob@192.0.2.7 SIP/2.0\r\n"), out);
                assertEquals(List.of("<" + route + ">"), routes(out));
                next.send(SipPeer.okTo(out).replace("To: <sip:bob@192.0.2.7>", "To: <sip:bob@192.0.2.7>;tag=b1"));
                assertEquals(0, server.counters().routedOut.get(), "the application's own request, not a relay");
            }
        }
    }

    /**
     * A router that names this container in its route (an internal route; the port is known only once the server
     * is up): the application is invoked with that route as its popped route.
     */
    @Test
    void shouldInvokeTheApplicationWithAnInternalRouteAsItsPoppedRoute() throws Exception
    {
        final Busy app = new Busy();
        final String[] route = new String[1];
        final DefaultApplicationRouter dar = new DefaultApplicationRouter(DarConfiguration.empty());
        final SipApplicationRouter router = new SipApplicationRouter()
        {
            @Override
            public void init()
            {
            }

            @Override
            public void init(final java.util.Properties properties)
            {
            }

            @Override
            public void applicationDeployed(final List<String> names)
            {
                dar.applicationDeployed(names);
            }

            @Override
            public void applicationUndeployed(final List<String> names)
            {
                dar.applicationUndeployed(names);
            }

            @Override
            public void destroy()
            {
            }

            @Override
            public SipApplicationRouterInfo getNextApplication(final SipServletRequest request,
                final SipApplicationRoutingRegion region, final SipApplicationRoutingDirective directive,
                final SipTargetedRequestInfo targeted, final Serializable state)
            {
                return SipApplicationRoutingDirective.NEW != directive ? null : new SipApplicationRouterInfo("app",
                    SipApplicationRoutingRegion.ORIGINATING_REGION, "sip:alice@127.0.0.1", route,
                    SipRouteModifier.ROUTE, "0");
            }
        };
        try (ContainerServer server = ContainerServer.start(new SipStackConfig().addresses(List.of(TestApps.LOOPBACK))
            .ports(0).shards(2), router))
        {
            final int port = DispatchSippTest.address(server).getPort();
            route[0] = "sip:127.0.0.1:" + port + ";lr;internal";
            server.registry().onDeployed(TestApps.application("app", app, Map.of()));
            final String answer = TestApps.exchange(DispatchSippTest.address(server),
                TestApps.request("OPTIONS", "internal-route"));
            assertTrue(answer.startsWith("SIP/2.0 486 "), answer);
            assertEquals(List.of("OPTIONS ORIGINATING sip:alice@127.0.0.1 popped=" + route[0]),
                List.copyOf(app.seen));
            assertEquals(0, server.counters().routedOut.get());
        }
    }

    // ================================================================================================================

    private static ContainerServer server(final String method, final String tuples) throws Exception
    {
        final java.util.Properties dar = new java.util.Properties();
        dar.setProperty(method, tuples);
        final DefaultApplicationRouter router = new DefaultApplicationRouter(DarConfiguration.fromProperties(dar,
            "test"));
        router.init();
        return ContainerServer.start(new SipStackConfig().addresses(List.of(TestApps.LOOPBACK)).ports(0)
            .shards(2), router);
    }

    private static List<String> vias(final String message)
    {
        return headers(message, "Via");
    }

    private static List<String> routes(final String message)
    {
        return headers(message, "Route");
    }

    private static List<String> headers(final String message, final String name)
    {
        final String head = message.substring(0, message.indexOf("\r\n\r\n"));
        return head.lines().filter(l -> l.regionMatches(true, 0, name + ":", 0, name.length() + 1))
            .map(l -> l.substring(name.length() + 1).strip()).toList();
    }

    /** A response of the next hop to a request it received (its Vias, From, To with {@code tag}, Call-ID, CSeq). */
    private static String response(final String request, final int status, final String reason, final String tag)
    {
        final StringBuilder b = new StringBuilder("SIP/2.0 ").append(status).append(' ').append(reason)
            .append("\r\n");
        for (final String via : vias(request))
        {
            b.append("Via: ").append(via).append("\r\n");
        }
        SipPeer.copyHeaders(request, b, "From");
        b.append("To: ").append(SipPeer.header(request, "To")).append(";tag=").append(tag).append("\r\n");
        SipPeer.copyHeaders(request, b, "Call-ID", "CSeq");
        b.append("Contact: <sip:callee@127.0.0.1:PORT>\r\n");
        return b.append("Content-Length: 0\r\n\r\n").toString();
    }

    /** The request as a loose-routing proxy forwards it (RFC 3261 §16.4, §16.6): top Route popped, its Via added. */
    private static String proxied(final String request)
    {
        final StringBuilder b = new StringBuilder();
        boolean popped = false;
        boolean via = false;
        for (final String line : request.substring(0, request.indexOf("\r\n\r\n")).split("\r\n"))
        {
            if (!popped && line.startsWith("Route:"))
            {
                popped = true;
                continue;
            }
            if (!via && line.startsWith("Via:"))
            {
                via = true;
                b.append("Via: SIP/2.0/UDP 127.0.0.1:PORT;branch=z9hG4bK-external-hop\r\n");
            }
            b.append(line).append("\r\n");
        }
        return b.append("\r\n").toString();
    }
}
