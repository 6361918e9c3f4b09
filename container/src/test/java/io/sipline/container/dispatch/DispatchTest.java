package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Map;

import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;

import org.junit.jupiter.api.Test;

/**
 * Dispatch without sipp: raw datagrams on loopback to a container with two shards. The behaviour without any
 * application (the server's answers before the container), an exception thrown by a servlet (500 naming the class,
 * and the shard keeps serving), and in-dialog requests for no dialog (481).
 */
class DispatchTest
{
    /** Throws on MESSAGE, answers OPTIONS. */
    public static final class Thrower extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doMessage(final SipServletRequest req)
        {
            throw new IllegalStateException("deliberately broken");
        }

        @Override
        protected void doOptions(final SipServletRequest req) throws IOException
        {
            req.createResponse(200, "From The Servlet").send();
        }
    }

    @Test
    void shouldAnswerAsBeforeTheContainerWhenNoApplicationIsDeployed() throws Exception
    {
        try (ContainerServer server = TestApps.server())
        {
            final String options = TestApps.exchange(DispatchSippTest.address(server),
                TestApps.request("OPTIONS", "no-app-1"));
            assertTrue(options.startsWith("SIP/2.0 200 OK\r\n"), options);
            assertTrue(options.contains("Allow: INVITE"), options);
            final String message = TestApps.exchange(DispatchSippTest.address(server),
                TestApps.request("MESSAGE", "no-app-2"));
            assertTrue(message.startsWith("SIP/2.0 404 No Application Deployed\r\n"), message);
        }
    }

    @Test
    void shouldAnswerFiveHundredNamingTheExceptionAndKeepServing() throws Exception
    {
        try (ContainerServer server = TestApps.server())
        {
            server.registry().onDeployed(TestApps.application("thrower", new Thrower(), Map.of()));
            for (int i = 0; i < 3; i++)
            {
                final String failed = TestApps.exchange(DispatchSippTest.address(server),
                    TestApps.request("MESSAGE", "throw-" + i));
                assertTrue(failed.startsWith("SIP/2.0 500 Server Internal Error (java.lang.IllegalStateException)"),
                    failed);
                final String ok = TestApps.exchange(DispatchSippTest.address(server),
                    TestApps.request("OPTIONS", "after-throw-" + i));
                assertTrue(ok.startsWith("SIP/2.0 200 From The Servlet\r\n"), ok);
            }
            assertEquals(3, server.counters().servletErrors.get());
            assertEquals(0, server.stack().listenerErrors(), "no exception may reach the shard");
        }
    }

    @Test
    void shouldCountAndLogAServletThatHoldsItsShard() throws Exception
    {
        try (ContainerServer server = TestApps.server())
        {
            server.registry().onDeployed(TestApps.application("blocking", new DispatchSippTest.BlockingUas(),
                Map.of()));
            final String ok = TestApps.exchange(DispatchSippTest.address(server), TestApps.request("INVITE", "slow"));
            assertTrue(ok.startsWith("SIP/2.0 200 OK\r\n"), ok);
            assertTrue(TestApps.await(() -> server.counters().slowCalls.get() >= 1),
                "a 100 ms servlet call on the shard is counted (limit " + ContainerServer.SLOW_CALL_MILLIS + " ms)");
        }
    }

    @Test
    void shouldAnswer481ToAnInDialogRequestWithoutADialog() throws Exception
    {
        try (ContainerServer server = TestApps.server())
        {
            server.registry().onDeployed(TestApps.application("thrower", new Thrower(), Map.of()));
            final String bye = TestApps.exchange(DispatchSippTest.address(server),
                TestApps.request("BYE", "no-dialog").replace("To: <sip:service@127.0.0.1>",
                    "To: <sip:service@127.0.0.1>;tag=s0000123456789abcd"));
            assertTrue(bye.startsWith("SIP/2.0 481 Call/Transaction Does Not Exist\r\n"), bye);
        }
    }
}
