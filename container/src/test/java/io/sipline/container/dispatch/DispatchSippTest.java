package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.servlet.ServletException;
import javax.servlet.sip.B2buaHelper;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletMessage;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.SipSession;
import javax.servlet.sip.UAMode;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.sipline.container.router.DarConfiguration;
import io.sipline.container.router.DefaultApplicationRouter;
import io.sipline.sip.stack.SipStackConfig;
import io.sipline.test.Sipp;

/**
 * SIP servlet applications in the container against sipp on loopback: a UAS answering every call, and a B2BUA
 * relaying calls from sipp's uac to sipp's uas (200 calls at 50 calls/s, CANCEL, 486). Asserts on sipp's counts.
 * Every sipp process is stopped by its handle.
 */
class DispatchSippTest
{
    /** Answers INVITE with 180 and 200, BYE with 200. */
    public static final class Uas extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doInvite(final SipServletRequest req) throws IOException
        {
            req.createResponse(180).send();
            req.createResponse(200).send();
        }

        @Override
        protected void doBye(final SipServletRequest req) throws IOException
        {
            req.createResponse(200).send();
        }
    }

    /** A UAS that blocks 100 ms before answering (a database lookup, say): it must not hold a shard. */
    public static final class BlockingUas extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doInvite(final SipServletRequest req) throws IOException
        {
            try
            {
                Thread.sleep(100); // the blocking work this servlet stands for (not a wait in the test)
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            req.createResponse(180).send();
            req.createResponse(200).send();
        }

        @Override
        protected void doBye(final SipServletRequest req) throws IOException
        {
            req.createResponse(200).send();
        }
    }

    /** A B2BUA to the target in the context parameter {@code target}, with the JSR 289 B2buaHelper only. */
    public static class B2bua extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doInvite(final SipServletRequest req) throws ServletException, IOException
        {
            if (!req.isInitial())
            {
                return;
            }
            final SipFactory factory = (SipFactory)getServletContext().getAttribute(SIP_FACTORY);
            final SipServletRequest out = req.getB2buaHelper().createRequest(req, true, null);
            out.setRequestURI(factory.createURI(getServletContext().getInitParameter("target")));
            out.send();
        }

        @Override
        protected void doResponse(final SipServletResponse resp) throws ServletException, IOException
        {
            final B2buaHelper helper = resp.getRequest().getB2buaHelper();
            final SipServletRequest other = helper.getLinkedSipServletRequest(resp.getRequest());
            if (null == other)
            {
                return;
            }
            final boolean forked = "INVITE".equals(resp.getMethod()) && resp.getStatus() > 100
                && resp.getStatus() < 300 && resp.getSession() != helper.getLinkedSession(other.getSession());
            if (forked)
            {
                // JSR 289 §6.2.3.2: another dialog of the forked INVITE, in a derived session; relayed to the
                // caller as a dialog of its own (B2buaHelper.createResponseToOriginalRequest on that session)
                final SipServletResponse relayed = forkedResponse(helper, resp, other);
                if (resp.getContentLength() > 0)
                {
                    relayed.setContent(resp.getRawContent(), resp.getContentType());
                }
                relayed.send();
                return;
            }
            if (other.isCommitted())
            {
                return; // e.g. the 487 after a CANCEL: the container already answered the caller
            }
            final SipServletResponse relayed = other.createResponse(resp.getStatus(), resp.getReasonPhrase());
            if (resp.getContentLength() > 0)
            {
                relayed.setContent(resp.getRawContent(), resp.getContentType());
            }
            relayed.send();
        }

        /** The response that relays a forked dialog's {@code resp} to the caller (whose INVITE is {@code other}). */
        protected SipServletResponse forkedResponse(final B2buaHelper helper, final SipServletResponse resp,
            final SipServletRequest other)
        {
            return helper.createResponseToOriginalRequest(resp.getSession(), resp.getStatus(), resp.getReasonPhrase());
        }

        @Override
        protected void doAck(final SipServletRequest req) throws IOException
        {
            final B2buaHelper helper = req.getB2buaHelper();
            final SipSession other = helper.getLinkedSession(req.getSession());
            for (final SipServletMessage m : helper.getPendingMessages(other, UAMode.UAC))
            {
                if (m instanceof SipServletResponse r && "INVITE".equals(r.getMethod()) && r.getStatus() < 300)
                {
                    r.createAck().send();
                }
            }
        }

        @Override
        protected void doBye(final SipServletRequest req) throws IOException
        {
            final B2buaHelper helper = req.getB2buaHelper();
            helper.createRequest(helper.getLinkedSession(req.getSession()), req, null).send();
        }

        @Override
        protected void doCancel(final SipServletRequest req) throws IOException
        {
            final B2buaHelper helper = req.getB2buaHelper();
            final SipSession other = helper.getLinkedSession(req.getSession());
            if (null != other && SipSession.State.CONFIRMED != other.getState())
            {
                helper.createCancel(other).send();
            }
        }
    }

    @Test
    void shouldAnswerOneHundredCallsFromAServlet() throws Exception
    {
        Assumptions.assumeTrue(Sipp.available(), "sipp is not installed (apt-get install sip-tester)");
        try (ContainerServer server = TestApps.server())
        {
            server.registry().onDeployed(TestApps.application("uas", new Uas(), Map.of()));
            final int port = server.localAddresses().getFirst().getPort();
            final String name = "container-uas";
            runUac(name, List.of("127.0.0.1:" + port, "-sn", "uac", "-m", "100", "-r", "50"));
            final long[] okFailed = Sipp.successAndFailed(name);
            assertEquals(100, okFailed[0], Sipp.report(name));
            assertEquals(0, okFailed[1], Sipp.report(name));
            assertEquals(0, server.counters().servletErrors.get());
            assertTrue(Sipp.await(() -> 0 == server.applicationSessions(), 10_000),
                "application sessions left: " + server.applicationSessions());
        }
    }

    @Test
    void shouldRunABlockingApplicationOnVirtualThreads() throws Exception
    {
        Assumptions.assumeTrue(Sipp.available(), "sipp is not installed (apt-get install sip-tester)");
        try (ContainerServer server = TestApps.server())
        {
            server.registry().onDeployed(TestApps.application("blocking", new BlockingUas(),
                Map.of(RunningApplicationImpl.THREADING_PARAMETER, "virtual")));
            final String name = "container-virtual";
            runUac(name, List.of("127.0.0.1:" + address(server).getPort(), "-sn", "uac", "-m", "50", "-r", "25"));
            final long[] okFailed = Sipp.successAndFailed(name);
            assertEquals(50, okFailed[0], Sipp.report(name));
            assertEquals(0, okFailed[1], Sipp.report(name));
            assertEquals(0, server.counters().slowCalls.get(), "no call held a shard");
            assertTrue(Sipp.await(() -> 0 == server.applicationSessions(), 10_000),
                "application sessions left: " + server.applicationSessions());
        }
    }

    @Test
    void shouldRelayTwoHundredCallsThroughAB2bua() throws Exception
    {
        Assumptions.assumeTrue(Sipp.available(), "sipp is not installed (apt-get install sip-tester)");
        final int uasPort = Sipp.freeUdpPort();
        Process uas = null;
        try (ContainerServer server = TestApps.server())
        {
            server.registry().onDeployed(TestApps.application("b2bua", new B2bua(),
                Map.of("target", "sip:service@127.0.0.1:" + uasPort)));
            uas = Sipp.start("container-b2bua-uas", List.of("-sn", "uas", "-m", "200"), uasPort);
            final int port = server.localAddresses().getFirst().getPort();
            final String name = "container-b2bua-uac";
            runUac(name, List.of("127.0.0.1:" + port, "-sn", "uac", "-m", "200", "-r", "50"));
            final long[] okFailed = Sipp.successAndFailed(name);
            System.out.println("b2bua: sipp uac ok/failed " + okFailed[0] + "/" + okFailed[1] + ", retransmissions "
                + Sipp.statistic(name, "Retransmissions(C)"));
            assertEquals(200, okFailed[0], Sipp.report(name));
            assertEquals(0, okFailed[1], Sipp.report(name));
            assertTrue(uas.waitFor(30, TimeUnit.SECONDS), Sipp.report("container-b2bua-uas"));
            assertEquals(200, Sipp.successAndFailed("container-b2bua-uas")[0], Sipp.report("container-b2bua-uas"));
            assertEquals(0, server.counters().servletErrors.get());
            assertTrue(Sipp.await(() -> 0 == server.applicationSessions(), 10_000),
                "application sessions left: " + server.applicationSessions());
        }
        finally
        {
            Sipp.stop(uas);
        }
    }

    @Test
    void shouldCancelTheCalleeLegWhenTheCallerCancels() throws Exception
    {
        relay("cancel", "caller-cancel.xml", "callee-cancelled.xml", 20);
    }

    @Test
    void shouldRelayBusyHere() throws Exception
    {
        relay("busy", "caller-busy.xml", "callee-busy.xml", 20);
    }

    /** Caller scenario -> B2BUA -> callee scenario, {@code calls} calls; both sides must count every call. */
    private static void relay(final String name, final String caller, final String callee, final int calls)
        throws Exception
    {
        relay(name, new B2bua(), caller, callee, calls);
    }

    /**
     * Caller scenario -> {@code servlet} (its context parameter {@code target} the callee) -> callee scenario,
     * {@code calls} calls at 10/s; both sides must count every call, no servlet may throw, every session must end.
     */
    static void relay(final String name, final SipServlet servlet, final String caller, final String callee,
        final int calls) throws Exception
    {
        Assumptions.assumeTrue(Sipp.available(), "sipp is not installed (apt-get install sip-tester)");
        final int uasPort = Sipp.freeUdpPort();
        final String uasName = "container-" + name + "-callee";
        final String uacName = "container-" + name + "-caller";
        Process uas = null;
        try (ContainerServer server = TestApps.server())
        {
            server.registry().onDeployed(TestApps.application(name, servlet,
                Map.of("target", "sip:service@127.0.0.1:" + uasPort)));
            uas = Sipp.start(uasName, List.of("-sf", scenario(callee).toString(), "-m", Integer.toString(calls)),
                uasPort);
            runUac(uacName, List.of("127.0.0.1:" + address(server).getPort(), "-sf", scenario(caller).toString(),
                "-m", Integer.toString(calls), "-r", "10"));
            final long[] okFailed = Sipp.successAndFailed(uacName);
            assertEquals(calls, okFailed[0], Sipp.report(uacName) + Sipp.report(uasName));
            assertEquals(0, okFailed[1], Sipp.report(uacName));
            assertTrue(uas.waitFor(30, TimeUnit.SECONDS), Sipp.report(uasName));
            assertEquals(calls, Sipp.successAndFailed(uasName)[0], Sipp.report(uasName));
            assertEquals(0, server.counters().servletErrors.get());
            assertTrue(Sipp.await(() -> 0 == server.applicationSessions(), 10_000),
                "application sessions left: " + server.applicationSessions());
        }
        finally
        {
            Sipp.stop(uas);
        }
    }

    /**
     * Application composition (JSR 289 §15.4): the DAR routes INVITE through two B2BUA applications in turn; the
     * second one's new leg leaves the container for sipp's uas. Every call crosses four legs.
     */
    @Test
    void shouldRouteCallsThroughTwoApplicationsInTurn() throws Exception
    {
        Assumptions.assumeTrue(Sipp.available(), "sipp is not installed (apt-get install sip-tester)");
        final int uasPort = Sipp.freeUdpPort();
        final Properties dar = new Properties();
        dar.setProperty("INVITE", "(\"first\", \"DAR:From\", \"ORIGINATING\", \"\", \"NO_ROUTE\", \"0\"), "
            + "(\"second\", \"DAR:To\", \"TERMINATING\", \"\", \"NO_ROUTE\", \"1\")");
        final DefaultApplicationRouter router = new DefaultApplicationRouter(DarConfiguration.fromProperties(dar,
            "test"));
        router.init();
        Process uas = null;
        try (ContainerServer server = ContainerServer.start(new SipStackConfig().addresses(
            List.of(TestApps.LOOPBACK)).ports(0).shards(2), router))
        {
            final Counting first = new Counting();
            final Counting second = new Counting();
            final String target = "sip:service@127.0.0.1:" + uasPort;
            server.registry().onDeployed(TestApps.application("first", first, Map.of("target", target)));
            server.registry().onDeployed(TestApps.application("second", second, Map.of("target", target)));
            uas = Sipp.start("container-composed-uas", List.of("-sn", "uas", "-m", "20"), uasPort);
            final String name = "container-composed-uac";
            runUac(name, List.of("127.0.0.1:" + address(server).getPort(), "-sn", "uac", "-m", "20", "-r", "10"));
            final long[] okFailed = Sipp.successAndFailed(name);
            assertEquals(20, okFailed[0], Sipp.report(name));
            assertEquals(0, okFailed[1], Sipp.report(name));
            assertEquals(20, first.invites.get(), "every call through the first application");
            assertEquals(20, second.invites.get(), "and then through the second");
            assertTrue(uas.waitFor(30, TimeUnit.SECONDS), Sipp.report("container-composed-uas"));
            assertEquals(0, server.counters().servletErrors.get());
            assertTrue(Sipp.await(() -> 0 == server.applicationSessions(), 10_000),
                "application sessions left: " + server.applicationSessions());
        }
        finally
        {
            Sipp.stop(uas);
        }
    }

    /** The B2BUA, counting initial INVITEs. */
    public static final class Counting extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        final transient AtomicInteger invites = new AtomicInteger();
        private final transient B2bua relay = new B2bua();

        @Override
        public void init(final javax.servlet.ServletConfig config) throws ServletException
        {
            super.init(config);
            relay.init(config);
        }

        @Override
        protected void doRequest(final SipServletRequest req) throws ServletException, IOException
        {
            if ("INVITE".equals(req.getMethod()) && req.isInitial())
            {
                invites.incrementAndGet();
            }
            relay.service(req, null);
        }

        @Override
        protected void doResponse(final SipServletResponse resp) throws ServletException, IOException
        {
            relay.service(null, resp);
        }
    }

    static void runUac(final String name, final List<String> args) throws Exception
    {
        final List<String> all = new ArrayList<>(args);
        all.addAll(List.of("-timeout", "60s", "-timeout_error", "-max_retrans", "10", "-l", "500"));
        Process sipp = null;
        try
        {
            sipp = Sipp.start(name, all);
            assertTrue(sipp.waitFor(70, TimeUnit.SECONDS), "sipp did not end in time\n" + Sipp.report(name));
        }
        finally
        {
            Sipp.stop(sipp);
        }
    }

    static InetSocketAddress address(final ContainerServer server)
    {
        return server.localAddresses().getFirst();
    }

    static Path scenario(final String file)
    {
        return Path.of("src", "test", "resources", "sipp", file).toAbsolutePath();
    }
}
