package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import javax.servlet.ServletContextEvent;
import javax.servlet.ServletContextListener;
import javax.servlet.ServletException;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletContextEvent;
import javax.servlet.sip.SipServletListener;
import javax.servlet.sip.SipServletRequest;

import io.sipline.container.deploy.DeploymentException;
import org.junit.jupiter.api.Test;

/**
 * What an exception thrown at deploy time does to the application: a {@code SipServletListener} that throws from
 * {@code servletInitialized} is logged with the application and listener named and the application serves (as in the
 * reference container); a servlet's {@code init} or a {@code ServletContextListener} that throws refuses it.
 */
class DeployListenerFailureTest
{
    /** Answers OPTIONS with 200. */
    public static final class Answering extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doOptions(final SipServletRequest req) throws IOException
        {
            req.createResponse(200, "Still Serving").send();
        }
    }

    /** Fails in init. */
    public static final class FailingInit extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        @Override
        public void init() throws ServletException
        {
            throw new ServletException("no database");
        }
    }

    /** Throws from servletInitialized. */
    public static final class ThrowingSipServletListener implements SipServletListener
    {
        @Override
        public void servletInitialized(final SipServletContextEvent event)
        {
            throw new IllegalStateException("listener broken on purpose");
        }
    }

    /** Throws from contextInitialized. */
    public static final class ThrowingContextListener implements ServletContextListener
    {
        @Override
        public void contextInitialized(final ServletContextEvent event)
        {
            throw new IllegalStateException("context listener broken on purpose");
        }

        @Override
        public void contextDestroyed(final ServletContextEvent event)
        {
        }
    }

    @Test
    void servletInitializedThatThrowsIsLoggedAndTheApplicationServes() throws Exception
    {
        final List<LogRecord> records = new CopyOnWriteArrayList<>();
        final Handler capture = new Handler()
        {
            @Override
            public void publish(final LogRecord record)
            {
                records.add(record);
            }

            @Override
            public void flush()
            {
            }

            @Override
            public void close()
            {
            }
        };
        final Logger appLog = Logger.getLogger("io.sipline.container.app");
        appLog.addHandler(capture);
        try (ContainerServer server = TestApps.server())
        {
            server.registry().onDeployed(TestApps.application("listening", new Answering(), Map.of(),
                new ThrowingSipServletListener()));
            assertNotNull(server.registry().application("listening"), "deployed despite the listener");
            final String ok = TestApps.exchange(DispatchSippTest.address(server),
                TestApps.request("OPTIONS", "listener-threw-1"));
            assertTrue(ok.startsWith("SIP/2.0 200 Still Serving\r\n"), ok);
        }
        finally
        {
            appLog.removeHandler(capture);
        }
        final LogRecord logged = records.stream().filter(r -> null != r.getThrown()).findFirst().orElseThrow();
        final String message = logged.getMessage();
        assertTrue(message.startsWith("listening: "), "the application is named: " + message);
        assertTrue(message.contains(ThrowingSipServletListener.class.getName()), "the listener is named: " + message);
        assertTrue(message.contains("servletInitialized"), message);
        assertTrue(logged.getThrown().getMessage().contains("listener broken on purpose"));
    }

    @Test
    void initThatThrowsRefusesTheApplication() throws Exception
    {
        try (ContainerServer server = TestApps.server())
        {
            final DeploymentException refused = assertThrows(DeploymentException.class,
                () -> server.registry().onDeployed(TestApps.application("failing", new FailingInit(), Map.of())));
            assertTrue(refused.getMessage().contains("failed in init"), refused.getMessage());
            assertTrue(refused.getMessage().contains(FailingInit.class.getName()), refused.getMessage());
            assertNull(server.registry().application("failing"));
        }
    }

    @Test
    void contextInitializedThatThrowsRefusesTheApplication() throws Exception
    {
        try (ContainerServer server = TestApps.server())
        {
            final DeploymentException refused = assertThrows(DeploymentException.class,
                () -> server.registry().onDeployed(TestApps.application("ctx", new Answering(), Map.of(),
                    new ThrowingContextListener())));
            assertTrue(refused.getMessage().contains(ThrowingContextListener.class.getName()), refused.getMessage());
            assertNull(server.registry().application("ctx"));
        }
    }
}
