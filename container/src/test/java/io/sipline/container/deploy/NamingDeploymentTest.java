package io.sipline.container.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sipline.container.dispatch.ContainerServer;
import io.sipline.container.router.DefaultApplicationRouter;
import io.sipline.sip.stack.SipStackConfig;

/**
 * Applications written for JSR 289 containers with JNDI and {@code @Resource} (JSR 289 §18), compiled here, deployed
 * by {@link ApplicationDeployer} and started on a container on loopback: one looks its names up with
 * {@code new InitialContext()} in {@code init()}, one receives them through {@code @Resource}; each answers an
 * OPTIONS with what it found. A {@code @Resource} naming nothing refuses its application with one line.
 */
class NamingDeploymentTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");

    @TempDir
    Path dir;

    private static String sipXml(final String app, final String servletClass, final String envEntries)
    {
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <sip-app xmlns="http://www.jcp.org/xml/ns/sipservlet" xmlns:javaee="http://java.sun.com/xml/ns/javaee">
              <app-name>%s</app-name>
              <javaee:servlet>
                <javaee:servlet-name>main</javaee:servlet-name>
                <javaee:servlet-class>%s</javaee:servlet-class>
                <javaee:load-on-startup>1</javaee:load-on-startup>
              </javaee:servlet>
              <servlet-selection><main-servlet>main</main-servlet></servlet-selection>
              %s
            </sip-app>
            """.formatted(app, servletClass, envEntries);
    }

    private static final String ENV_ENTRIES = """
        <javaee:env-entry>
          <javaee:env-entry-name>greeting</javaee:env-entry-name>
          <javaee:env-entry-type>java.lang.String</javaee:env-entry-type>
          <javaee:env-entry-value>hello from sip.xml</javaee:env-entry-value>
        </javaee:env-entry>
        <javaee:env-entry>
          <javaee:env-entry-name>maxCalls</javaee:env-entry-name>
          <javaee:env-entry-type>java.lang.Integer</javaee:env-entry-type>
          <javaee:env-entry-value>7</javaee:env-entry-value>
        </javaee:env-entry>
        """;

    private static final String WEB_XML = """
        <?xml version="1.0" encoding="UTF-8"?>
        <web-app xmlns="http://java.sun.com/xml/ns/javaee" version="2.5">
          <env-entry>
            <env-entry-name>greeting</env-entry-name>
            <env-entry-value>hello from web.xml</env-entry-value>
          </env-entry>
          <env-entry>
            <env-entry-name>webOnly</env-entry-name>
            <env-entry-type>java.lang.Boolean</env-entry-type>
            <env-entry-value>true</env-entry-value>
          </env-entry>
        </web-app>
        """;

    private static final String LOOKUP_SERVLET = """
        package com.example.jndi;

        import javax.naming.Context;
        import javax.naming.InitialContext;
        import javax.naming.NamingException;
        import javax.servlet.ServletException;
        import javax.servlet.sip.SipFactory;
        import javax.servlet.sip.SipServletRequest;
        import javax.servlet.sip.SipSessionsUtil;
        import javax.servlet.sip.TimerService;

        public class LookupServlet extends javax.servlet.sip.SipServlet
        {
            private static final long serialVersionUID = 1L;
            private String found;

            @Override
            public void init() throws ServletException
            {
                try
                {
                    final SipFactory factory =
                        (SipFactory) new InitialContext().lookup("java:comp/env/sip/lookup-app/SipFactory");
                    final Context env = (Context) new InitialContext().lookup("java:comp/env");
                    final TimerService timers = (TimerService) env.lookup("sip/lookup-app/TimerService");
                    final SipSessionsUtil util = (SipSessionsUtil) env.lookup("sip/lookup-app/SipSessionsUtil");
                    found = (factory == getServletContext().getAttribute(SIP_FACTORY))
                        + "," + (timers == getServletContext().getAttribute(TIMER_SERVICE))
                        + "," + (util == getServletContext().getAttribute(SIP_SESSIONS_UTIL))
                        + "," + env.lookup("greeting") + "," + env.lookup("maxCalls") + "," + env.lookup("webOnly");
                }
                catch (final NamingException e)
                {
                    throw new ServletException(e);
                }
            }

            @Override
            protected void doOptions(final SipServletRequest request) throws java.io.IOException
            {
                final javax.servlet.sip.SipServletResponse response = request.createResponse(200);
                response.setHeader("X-Found", found);
                response.send();
            }
        }
        """;

    private static final String RESOURCE_SERVLET = """
        package com.example.inject;

        import javax.annotation.Resource;
        import javax.servlet.sip.SipFactory;
        import javax.servlet.sip.SipServletRequest;
        import javax.servlet.sip.SipSessionsUtil;
        import javax.servlet.sip.TimerService;

        public class ResourceServlet extends javax.servlet.sip.SipServlet
        {
            private static final long serialVersionUID = 1L;
            @Resource
            private SipFactory sipFactory;
            @Resource(name = "sip/resource-app/TimerService")
            private TimerService timerService;
            private SipSessionsUtil sessionsUtil;
            @Resource(name = "maxCalls")
            private int maxCalls;

            @Resource
            public void setSessionsUtil(final SipSessionsUtil util)
            {
                this.sessionsUtil = util;
            }

            @Override
            protected void doOptions(final SipServletRequest request) throws java.io.IOException
            {
                final javax.servlet.sip.SipServletResponse response = sipFactory == null ? request.createResponse(500)
                    : request.createResponse(200);
                response.setHeader("X-Found", (sipFactory == getServletContext().getAttribute(SIP_FACTORY))
                    + "," + (timerService == getServletContext().getAttribute(TIMER_SERVICE))
                    + "," + (sessionsUtil == getServletContext().getAttribute(SIP_SESSIONS_UTIL))
                    + "," + maxCalls + "," + Listener.injected);
                response.send();
            }
        }
        """;

    private static final String LISTENER = """
        package com.example.inject;

        import javax.annotation.Resource;
        import javax.servlet.sip.SipFactory;
        import javax.servlet.sip.SipServletContextEvent;

        public class Listener implements javax.servlet.sip.SipServletListener
        {
            static volatile boolean injected;
            @Resource
            SipFactory factory;

            @Override
            public void servletInitialized(final SipServletContextEvent event)
            {
                injected = factory == event.getServletContext().getAttribute(javax.servlet.sip.SipServlet.SIP_FACTORY);
            }
        }
        """;

    private static final String BROKEN_SERVLET = """
        package com.example.broken;

        public class BrokenServlet extends javax.servlet.sip.SipServlet
        {
            private static final long serialVersionUID = 1L;
            @javax.annotation.Resource(name = "noSuchEntry")
            private String missing;
        }
        """;

    private Path application(final String name, final Map<String, String> sources, final String sipXml,
        final String webXml) throws Exception
    {
        final Path app = dir.resolve(name);
        TestApplications.compile(sources, app.resolve("WEB-INF/classes"));
        Files.writeString(app.resolve("WEB-INF/sip.xml"), sipXml);
        if (null != webXml)
        {
            Files.writeString(app.resolve("WEB-INF/web.xml"), webXml);
        }
        return app;
    }

    @Test
    void shouldServeAnApplicationThatLooksItsNamesUpInInit() throws Exception
    {
        final Path app = application("lookup", Map.of("com/example/jndi/LookupServlet.java", LOOKUP_SERVLET),
            sipXml("lookup-app", "com.example.jndi.LookupServlet", ENV_ENTRIES), WEB_XML);

        final String response = deployAndAsk(app);

        assertTrue(response.startsWith("SIP/2.0 200"), response);
        assertEquals("true,true,true,hello from sip.xml,7,true", header(response, "X-Found"));
    }

    @Test
    void shouldServeAnApplicationThatReceivesItsNamesThroughResource() throws Exception
    {
        final Path app = application("inject", Map.of("com/example/inject/ResourceServlet.java", RESOURCE_SERVLET,
                "com/example/inject/Listener.java", LISTENER),
            sipXml("resource-app", "com.example.inject.ResourceServlet",
                ENV_ENTRIES + "<listener><javaee:listener-class>com.example.inject.Listener</javaee:listener-class>"
                    + "</listener>"), null);

        final String response = deployAndAsk(app);

        assertTrue(response.startsWith("SIP/2.0 200"), response);
        assertEquals("true,true,true,7,true", header(response, "X-Found"));
    }

    @Test
    void shouldRefuseAnApplicationWhoseResourceNamesNothing() throws Exception
    {
        final Path app = application("broken", Map.of("com/example/broken/BrokenServlet.java", BROKEN_SERVLET),
            sipXml("broken-app", "com.example.broken.BrokenServlet", ENV_ENTRIES), null);
        final SipStackConfig config = new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0).shards(2);
        final DefaultApplicationRouter router = new DefaultApplicationRouter();
        router.init();
        try (ContainerServer server = ContainerServer.start(config, router);
            DeployedApplication deployed = new ApplicationDeployer().deploy(app))
        {
            final DeploymentException refused =
                assertThrows(DeploymentException.class, () -> server.registry().onDeployed(deployed));
            assertEquals(app + ": @Resource com.example.broken.BrokenServlet.missing: java:comp/env/noSuchEntry is "
                + "not bound (application 'broken-app' binds [greeting, maxCalls, sip/broken-app/SipFactory, "
                + "sip/broken-app/SipSessionsUtil, sip/broken-app/TimerService])", refused.getMessage());
            assertTrue(server.registry().isEmpty());
        }
    }

    /** Deploys the application alone on a fresh container and returns its answer to an OPTIONS. */
    private static String deployAndAsk(final Path app) throws Exception
    {
        final SipStackConfig config = new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0).shards(2);
        final DefaultApplicationRouter router = new DefaultApplicationRouter();
        router.init();
        try (ContainerServer server = ContainerServer.start(config, router);
            DeployedApplication deployed = new ApplicationDeployer().deploy(app))
        {
            server.registry().onDeployed(deployed);
            try
            {
                return exchange(server.localAddresses().getFirst());
            }
            finally
            {
                server.registry().onUndeployed(deployed);
            }
        }
    }

    private static String exchange(final InetSocketAddress server) throws Exception
    {
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            socket.setSoTimeout(5_000);
            final int port = socket.getLocalPort();
            final String request = "OPTIONS sip:service@127.0.0.1 SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:" + port + ";branch=z9hG4bK-naming-" + System.nanoTime() + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:alice@127.0.0.1>;tag=a1\r\n"
                + "To: <sip:service@127.0.0.1>\r\n"
                + "Call-ID: naming-" + System.nanoTime() + "\r\n"
                + "CSeq: 1 OPTIONS\r\n"
                + "Content-Length: 0\r\n\r\n";
            final byte[] bytes = request.getBytes(StandardCharsets.US_ASCII);
            socket.send(new DatagramPacket(bytes, bytes.length, server));
            final byte[] in = new byte[4096];
            final DatagramPacket packet = new DatagramPacket(in, in.length);
            socket.receive(packet);
            return new String(in, 0, packet.getLength(), StandardCharsets.US_ASCII);
        }
    }

    private static String header(final String message, final String name)
    {
        for (final String line : message.split("\r\n"))
        {
            if (line.regionMatches(true, 0, name + ':', 0, name.length() + 1))
            {
                return line.substring(name.length() + 1).strip();
            }
        }
        return null;
    }
}
