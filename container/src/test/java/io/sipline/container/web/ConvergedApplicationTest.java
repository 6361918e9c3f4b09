package io.sipline.container.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.CookieManager;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.sipline.container.admin.ContainerStatus;
import io.sipline.container.admin.SipMetrics;
import io.sipline.container.deploy.ApplicationDeployer;
import io.sipline.container.deploy.DeployedApplication;
import io.sipline.container.deploy.DeploymentException;
import io.sipline.container.deploy.TestApplications;
import io.sipline.container.dispatch.ContainerServer;
import io.sipline.container.router.DefaultApplicationRouter;
import io.sipline.sip.stack.SipStackConfig;

/**
 * A converged application (JSR 289 §13), compiled and packed into a WAR here, deployed on a container on loopback with
 * the web engine on port 0, and driven as a user would: an HTTP request makes its servlet send a SIP MESSAGE to a
 * test UAS, in an application session of its HTTP session; the URL it encodes brings another client, without the
 * cookie, to that same application session; the SIP and HTTP halves share one class loader, one set of context
 * attributes and the JNDI names; a servlet that throws answers 500 for its request only; web.xml's welcome file is
 * served. A web half that cannot start refuses the WAR with one line and leaves no SIP half running.
 */
class ConvergedApplicationTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");

    @TempDir
    Path dir;

    private static final String SIP_XML = """
        <?xml version="1.0" encoding="UTF-8"?>
        <sip-app xmlns="http://www.jcp.org/xml/ns/sipservlet" xmlns:javaee="http://java.sun.com/xml/ns/javaee">
          <app-name>%s</app-name>
          <javaee:servlet>
            <javaee:servlet-name>sip</javaee:servlet-name>
            <javaee:servlet-class>com.example.c2c.SipHalf</javaee:servlet-class>
            <javaee:load-on-startup>1</javaee:load-on-startup>
          </javaee:servlet>
          <servlet-selection><main-servlet>sip</main-servlet></servlet-selection>
        </sip-app>
        """;

    private static final String WEB_XML = """
        <?xml version="1.0" encoding="UTF-8"?>
        <web-app xmlns="http://xmlns.jcp.org/xml/ns/javaee" version="3.1">
          <welcome-file-list><welcome-file>index.html</welcome-file></welcome-file-list>
        </web-app>
        """;

    private static final String SIP_HALF = """
        package com.example.c2c;

        public class SipHalf extends javax.servlet.sip.SipServlet
        {
            private static final long serialVersionUID = 1L;
            public static volatile String initialisedBy;
            public static volatile int answers;

            @Override
            public void init() throws javax.servlet.ServletException
            {
                initialisedBy = "sip-half";
                getServletContext().setAttribute("set-by-sip", "yes");
            }

            @Override
            protected void doSuccessResponse(final javax.servlet.sip.SipServletResponse response)
            {
                answers++;
                response.getApplicationSession().setAttribute("answered", response.getStatus());
            }
        }
        """;

    private static final String CALL_SERVLET = """
        package com.example.c2c;

        import java.io.IOException;
        import java.net.URL;
        import javax.naming.InitialContext;
        import javax.servlet.annotation.WebServlet;
        import javax.servlet.http.*;
        import javax.servlet.sip.*;

        @WebServlet("/call")
        public class CallServlet extends HttpServlet
        {
            private static final long serialVersionUID = 1L;

            @Override
            protected void doGet(final HttpServletRequest req, final HttpServletResponse resp)
                throws IOException, javax.servlet.ServletException
            {
                final ConvergedHttpSession http = (ConvergedHttpSession) req.getSession();
                final SipApplicationSession app = http.getApplicationSession();
                final SipFactory factory = (SipFactory) getServletContext().getAttribute(SipServlet.SIP_FACTORY);
                final Object named;
                try
                {
                    named = new InitialContext().lookup("java:comp/env/sip/c2c-app/SipFactory");
                }
                catch (final javax.naming.NamingException e)
                {
                    throw new IOException(e);
                }
                final SipServletRequest message = factory.createRequest(app, "MESSAGE", "sip:web@127.0.0.1",
                    req.getParameter("to"));
                message.setContent("hello from http", "text/plain");
                message.send();
                app.setAttribute("sent", "MESSAGE");
                final URL status = app.encodeURL(new URL(req.getRequestURL().toString().replace("/call", "/status")));
                resp.setContentType("text/plain");
                resp.getWriter().print(app.getId() + "\\n" + status + "\\n" + SipHalf.initialisedBy + ","
                    + getServletContext().getAttribute("set-by-sip") + "," + (named == factory) + ","
                    + (getServletContext().getAttribute(SipServlet.SIP_SESSIONS_UTIL) != null) + ","
                    + (getServletContext().getAttribute(SipServlet.TIMER_SERVICE) != null) + "," + WebStart.sawFactory);
            }
        }
        """;

    private static final String STATUS_SERVLET = """
        package com.example.c2c;

        import java.io.IOException;
        import java.util.Iterator;
        import javax.servlet.annotation.WebServlet;
        import javax.servlet.http.*;
        import javax.servlet.sip.*;

        @WebServlet(urlPatterns = "/status")
        public class StatusServlet extends HttpServlet
        {
            private static final long serialVersionUID = 1L;

            @Override
            protected void doGet(final HttpServletRequest req, final HttpServletResponse resp) throws IOException
            {
                final SipApplicationSession app = ((ConvergedHttpSession) req.getSession()).getApplicationSession();
                int http = 0;
                for (Iterator<?> i = app.getSessions("HTTP"); i.hasNext(); i.next())
                {
                    http++;
                }
                resp.getWriter().print(app.getId() + "," + app.getAttribute("sent") + "," + app.getAttribute("answered")
                    + "," + http);
            }
        }
        """;

    private static final String WEB_START = """
        package com.example.c2c;

        @javax.servlet.annotation.WebListener
        public class WebStart implements javax.servlet.ServletContextListener
        {
            public static volatile boolean sawFactory;

            @Override
            public void contextInitialized(final javax.servlet.ServletContextEvent event)
            {
                sawFactory = event.getServletContext().getAttribute(javax.servlet.sip.SipServlet.SIP_FACTORY) != null;
            }
        }
        """;

    private static final String BOOM_SERVLET = """
        package com.example.c2c;

        @javax.servlet.annotation.WebServlet("/boom")
        public class BoomServlet extends javax.servlet.http.HttpServlet
        {
            private static final long serialVersionUID = 1L;

            @Override
            protected void doGet(final javax.servlet.http.HttpServletRequest req,
                final javax.servlet.http.HttpServletResponse resp)
            {
                throw new IllegalStateException("the application failed");
            }
        }
        """;

    private static final String FAILING_LISTENER = """
        package com.example.broken;

        @javax.servlet.annotation.WebListener
        public class FailingListener implements javax.servlet.ServletContextListener
        {
            @Override
            public void contextInitialized(final javax.servlet.ServletContextEvent event)
            {
                throw new IllegalStateException("no database at db.example.com");
            }
        }
        """;

    private static final String PLAIN_SIP = """
        package com.example.broken;

        public class PlainSip extends javax.servlet.sip.SipServlet
        {
            private static final long serialVersionUID = 1L;
        }
        """;

    private static final String INJECTED_SERVLET = """
        package com.example.inject;

        import java.io.IOException;
        import javax.annotation.PostConstruct;
        import javax.annotation.Resource;
        import javax.naming.InitialContext;
        import javax.servlet.annotation.WebServlet;
        import javax.servlet.http.*;
        import javax.servlet.sip.*;

        @WebServlet("/inject")
        public class InjectedServlet extends HttpServlet
        {
            private static final long serialVersionUID = 1L;
            @Resource private SipFactory factory;
            @Resource private TimerService timers;
            private SipSessionsUtil util;
            private boolean constructed;

            @Resource
            void setUtil(final SipSessionsUtil util)
            {
                this.util = util;
            }

            @PostConstruct
            void constructed()
            {
                constructed = null != factory && null != timers && null != util;
            }

            @Override
            protected void doGet(final HttpServletRequest req, final HttpServletResponse resp) throws IOException
            {
                final Object named;
                try
                {
                    named = new InitialContext().lookup("java:comp/env/sip/inject-app/SipSessionsUtil");
                }
                catch (final javax.naming.NamingException e)
                {
                    throw new IOException(e);
                }
                final SipApplicationSession made = factory.createApplicationSession();
                made.setAttribute("k", "v");
                final SipApplicationSession found = util.getApplicationSessionById(made.getId());
                final SipApplicationSession keyed = factory.createApplicationSessionByKey("key-1");
                final SipApplicationSession byKey = util.getApplicationSessionByKey("key-1", false);
                resp.getWriter().print(constructed + "," + (named == util) + "," + req.getAttribute("filtered") + ","
                    + getServletContext().getAttribute("listened") + "," + made.getClass().getSimpleName() + ","
                    + found.getAttribute("k") + "," + found.equals(made) + "," + keyed.equals(byKey) + ","
                    + made.getAttribute("createdWithLoader"));
                made.invalidate();
                keyed.invalidate();
            }
        }
        """;

    private static final String INJECTED_FILTER = """
        package com.example.inject;

        import java.io.IOException;
        import javax.annotation.Resource;
        import javax.servlet.*;
        import javax.servlet.annotation.WebFilter;
        import javax.servlet.sip.SipFactory;

        @WebFilter("/*")
        public class InjectedFilter implements Filter
        {
            @Resource private SipFactory factory;

            @Override
            public void doFilter(final ServletRequest req, final ServletResponse resp, final FilterChain chain)
                throws IOException, ServletException
            {
                req.setAttribute("filtered", null != factory);
                chain.doFilter(req, resp);
            }
        }
        """;

    private static final String INJECTED_LISTENER = """
        package com.example.inject;

        import javax.annotation.Resource;
        import javax.servlet.ServletContextEvent;
        import javax.servlet.ServletContextListener;
        import javax.servlet.annotation.WebListener;
        import javax.servlet.sip.TimerService;

        @WebListener
        public class InjectedListener implements ServletContextListener
        {
            @Resource private TimerService timers;

            @Override
            public void contextInitialized(final ServletContextEvent event)
            {
                event.getServletContext().setAttribute("listened", null != timers);
            }
        }
        """;

    /** A SIP-side listener: whether the application's loader was the context class loader when it was called. */
    private static final String SESSION_LISTENER = """
        package com.example.inject;

        import javax.servlet.sip.*;

        public class LoaderListener implements SipApplicationSessionListener
        {
            @Override
            public void sessionCreated(final SipApplicationSessionEvent event)
            {
                event.getApplicationSession().setAttribute("createdWithLoader",
                    Thread.currentThread().getContextClassLoader() == LoaderListener.class.getClassLoader());
            }

            @Override
            public void sessionDestroyed(final SipApplicationSessionEvent event)
            {
            }

            @Override
            public void sessionExpired(final SipApplicationSessionEvent event)
            {
            }

            @Override
            public void sessionReadyToInvalidate(final SipApplicationSessionEvent event)
            {
            }
        }
        """;

    private static final String UNSATISFIED_LISTENER = """
        package com.example.broken;

        @javax.servlet.annotation.WebListener
        public class Unsatisfied implements javax.servlet.ServletContextListener
        {
            @javax.annotation.Resource(name = "maxCalls") private Integer maxCalls;
        }
        """;

    private Path war(final String name, final Map<String, String> sources, final String sipXml,
        final Map<String, String> files) throws Exception
    {
        final Path classes = dir.resolve(name + "-classes");
        TestApplications.compile(sources, classes);
        final Map<String, byte[]> entries = new LinkedHashMap<>();
        TestApplications.collect(classes, "WEB-INF/classes/", entries);
        entries.put("WEB-INF/sip.xml", sipXml.getBytes(StandardCharsets.UTF_8));
        files.forEach((path, text) -> entries.put(path, text.getBytes(StandardCharsets.UTF_8)));
        final Path war = dir.resolve(name + ".war");
        TestApplications.zip(war, entries);
        return war;
    }

    private static ContainerServer container() throws Exception
    {
        final DefaultApplicationRouter router = new DefaultApplicationRouter();
        router.init();
        return ContainerServer.start(new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0).shards(2), router);
    }

    @Test
    void shouldSendSipFromAnHttpServletAndFindItsApplicationSessionAgainFromAnEncodedUrl() throws Exception
    {
        final Path war = war("click-test", Map.of("com/example/c2c/SipHalf.java", SIP_HALF,
                "com/example/c2c/CallServlet.java", CALL_SERVLET, "com/example/c2c/StatusServlet.java", STATUS_SERVLET,
                "com/example/c2c/BoomServlet.java", BOOM_SERVLET, "com/example/c2c/WebStart.java", WEB_START),
            SIP_XML.formatted("c2c-app"), Map.of("WEB-INF/web.xml", WEB_XML, "index.html", "<h1>click to call</h1>"));
        try (ContainerServer server = container();
            WebServer web = WebServer.start(new InetSocketAddress(LOOPBACK, 0));
            DatagramSocket uas = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0));
            DeployedApplication deployed = new ApplicationDeployer().deploy(war))
        {
            final ConvergedDeployment deployment = new ConvergedDeployment(server.registry(), web);
            deployment.onDeployed(deployed);
            assertEquals("/click-test", deployment.contextPath(deployed));
            final String base = "http://127.0.0.1:" + web.address().getPort() + "/click-test";
            final HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager())
                .connectTimeout(Duration.ofSeconds(5)).build();

            final HttpResponse<String> call = browser.send(get(base + "/call?to=sip:uas@127.0.0.1:"
                + uas.getLocalPort()), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, call.statusCode(), call.body());
            final String[] lines = call.body().split("\n");
            final String applicationSessionId = lines[0];
            assertEquals(base + "/status?sipappsessionid=" + applicationSessionId, lines[1]);
            assertEquals("sip-half,yes,true,true,true,true", lines[2],
                "one class loader, one set of context attributes (seen by web listeners too) and the JNDI names");

            final String message = receive(uas);
            assertTrue(message.startsWith("MESSAGE sip:uas@127.0.0.1:" + uas.getLocalPort() + " SIP/2.0"), message);
            assertTrue(message.endsWith("hello from http"), message);
            answer(uas, message);
            pollUntil(() -> browser.send(get(base + "/status"), HttpResponse.BodyHandlers.ofString()).body(),
                applicationSessionId + ",MESSAGE,200,1");

            final HttpClient other = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            final HttpResponse<String> encoded = other.send(get(lines[1]), HttpResponse.BodyHandlers.ofString());
            assertEquals(applicationSessionId + ",MESSAGE,200,2", encoded.body(),
                "a request for the encoded URL, without the first client's cookie, is in the same application session");

            final HttpResponse<String> boom = browser.send(get(base + "/boom"), HttpResponse.BodyHandlers.ofString());
            assertEquals(500, boom.statusCode());
            assertEquals(200, browser.send(get(base + "/status"), HttpResponse.BodyHandlers.ofString()).statusCode(),
                "the application serves on after a servlet threw");
            final HttpResponse<String> welcome = browser.send(get(base + "/"), HttpResponse.BodyHandlers.ofString());
            assertEquals("<h1>click to call</h1>", welcome.body());
            assertTrue(web.serverErrors() >= 1, "the 500 is counted");
            assertEquals(404, browser.send(get("http://127.0.0.1:" + web.address().getPort() + "/nothing"),
                HttpResponse.BodyHandlers.ofString()).statusCode());
            final String metrics = scrape(server, web);
            assertTrue(metrics.contains("sipline_http_requests_total{application=\"c2c-app\",status=\"5xx\"} 1.0"),
                metrics);
            assertTrue(value(metrics, "sipline_http_requests_total{application=\"c2c-app\",status=\"2xx\"}") >= 5,
                "call, status (polled), encoded, status, welcome:\n" + metrics);
            assertTrue(metrics.contains("sipline_http_requests_total{application=\"none\",status=\"4xx\"} 1.0"),
                metrics);
            assertTrue(metrics.contains("sipline_http_active_requests{application=\"c2c-app\"} 0.0"), metrics);
            assertTrue(metrics.contains("sipline_http_requests_failed_total{application=\"c2c-app\"} 0.0"), metrics);

            deployment.onUndeployed(deployed);
            assertEquals(404, browser.send(get(base + "/status"), HttpResponse.BodyHandlers.ofString()).statusCode());
            assertTrue(server.registry().isEmpty());
        }
    }

    @Test
    void shouldRefuseAWarWhoseWebHalfCannotStartAndLeaveNoSipHalfRunning() throws Exception
    {
        final Path war = war("broken-web", Map.of("com/example/broken/PlainSip.java", PLAIN_SIP,
                "com/example/broken/FailingListener.java", FAILING_LISTENER),
            SIP_XML.formatted("broken-app").replace("com.example.c2c.SipHalf", "com.example.broken.PlainSip"),
            Map.of());
        try (ContainerServer server = container();
            WebServer web = WebServer.start(new InetSocketAddress(LOOPBACK, 0));
            DeployedApplication deployed = new ApplicationDeployer().deploy(war))
        {
            final ConvergedDeployment deployment = new ConvergedDeployment(server.registry(), web);
            final DeploymentException refused =
                assertThrows(DeploymentException.class, () -> deployment.onDeployed(deployed));
            assertEquals(war + ": web half cannot start: IllegalStateException: no database at db.example.com",
                refused.getMessage());
            assertTrue(server.registry().isEmpty(), "the SIP half was stopped again");
            assertNull(deployment.contextPath(deployed));
            final HttpClient client = HttpClient.newHttpClient();
            assertNotEquals(200, client.send(get("http://127.0.0.1:" + web.address().getPort() + "/broken-web/"),
                HttpResponse.BodyHandlers.ofString()).statusCode());
        }
    }

    @Test
    void shouldInjectHttpServletsFiltersAndListenersAndHandTheirApplicationSessionsToTheShards() throws Exception
    {
        final String sipXml = SIP_XML.formatted("inject-app").replace("</sip-app>",
            "  <listener><javaee:listener-class>com.example.inject.LoaderListener</javaee:listener-class></listener>\n"
                + "</sip-app>");
        final Path war = war("inject", Map.of("com/example/c2c/SipHalf.java", SIP_HALF,
            "com/example/inject/InjectedServlet.java", INJECTED_SERVLET,
            "com/example/inject/InjectedFilter.java", INJECTED_FILTER,
            "com/example/inject/InjectedListener.java", INJECTED_LISTENER,
            "com/example/inject/LoaderListener.java", SESSION_LISTENER), sipXml, Map.of());
        try (ContainerServer server = container();
            WebServer web = WebServer.start(new InetSocketAddress(LOOPBACK, 0));
            DeployedApplication deployed = new ApplicationDeployer().deploy(war))
        {
            final ConvergedDeployment deployment = new ConvergedDeployment(server.registry(), web);
            deployment.onDeployed(deployed);
            final HttpResponse<String> answer = HttpClient.newHttpClient().send(
                get("http://127.0.0.1:" + web.address().getPort() + "/inject/inject"),
                HttpResponse.BodyHandlers.ofString());
            assertEquals(200, answer.statusCode(), answer.body());
            assertEquals("true,true,true,true,ApplicationSessionHandle,v,true,true,true", answer.body(),
                "@Resource and @PostConstruct in a servlet, a filter and a listener; the JNDI name on an HTTP thread; "
                    + "sessions from SipFactory and SipSessionsUtil handed to their shard; the application's loader "
                    + "for the listener the shard called");
            deployment.onUndeployed(deployed);
        }
    }

    @Test
    void shouldRefuseAWebListenerWhoseResourceIsNotBound() throws Exception
    {
        final Path war = war("unsatisfied", Map.of("com/example/broken/PlainSip.java", PLAIN_SIP,
                "com/example/broken/Unsatisfied.java", UNSATISFIED_LISTENER),
            SIP_XML.formatted("unsatisfied-app").replace("com.example.c2c.SipHalf", "com.example.broken.PlainSip"),
            Map.of());
        try (ContainerServer server = container();
            WebServer web = WebServer.start(new InetSocketAddress(LOOPBACK, 0));
            DeployedApplication deployed = new ApplicationDeployer().deploy(war))
        {
            final ConvergedDeployment deployment = new ConvergedDeployment(server.registry(), web);
            final DeploymentException refused =
                assertThrows(DeploymentException.class, () -> deployment.onDeployed(deployed));
            assertTrue(refused.getMessage().startsWith(war + ": web half cannot start: "), refused.getMessage());
            assertTrue(refused.getMessage().contains("@Resource com.example.broken.Unsatisfied.maxCalls"),
                refused.getMessage());
            assertTrue(server.registry().isEmpty(), "the SIP half was stopped again");
        }
    }

    /** {@code /metrics} as the admin port writes it, with the web engine's counts registered. */
    private static String scrape(final ContainerServer server, final WebServer web) throws Exception
    {
        final SipMetrics metrics = new SipMetrics(server.stack(), ContainerStatus.NONE);
        metrics.registerHttp(web.metrics());
        final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, metrics.registry().scrape());
        return out.toString(StandardCharsets.UTF_8);
    }

    private static double value(final String metrics, final String series)
    {
        for (final String line : metrics.split("\n"))
        {
            if (line.startsWith(series + " "))
            {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        return -1;
    }

    private static HttpRequest get(final String url)
    {
        return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build();
    }

    /** Polls {@code probe} until it returns {@code expected}, for at most five seconds. */
    private static void pollUntil(final Probe probe, final String expected) throws Exception
    {
        final long deadline = System.nanoTime() + 5_000_000_000L;
        String last = probe.get();
        while (!expected.equals(last) && System.nanoTime() < deadline)
        {
            Thread.sleep(20);
            last = probe.get();
        }
        assertEquals(expected, last);
    }

    @FunctionalInterface
    private interface Probe
    {
        String get() throws Exception;
    }

    private static String receive(final DatagramSocket socket) throws Exception
    {
        socket.setSoTimeout(5_000);
        final byte[] in = new byte[8192];
        final DatagramPacket packet = new DatagramPacket(in, in.length);
        socket.receive(packet);
        socket.connect(packet.getSocketAddress());
        return new String(in, 0, packet.getLength(), StandardCharsets.US_ASCII);
    }

    /** Answers a request with 200, copying Via, From, To (with a tag), Call-ID and CSeq. */
    private static void answer(final DatagramSocket socket, final String request) throws Exception
    {
        final StringBuilder ok = new StringBuilder("SIP/2.0 200 OK\r\n");
        for (final String line : request.split("\r\n"))
        {
            final String lower = line.toLowerCase(java.util.Locale.ROOT);
            if (lower.startsWith("via:") || lower.startsWith("from:") || lower.startsWith("call-id:")
                || lower.startsWith("cseq:"))
            {
                ok.append(line).append("\r\n");
            }
            else if (lower.startsWith("to:"))
            {
                ok.append(line).append(";tag=uas1\r\n");
            }
        }
        ok.append("Content-Length: 0\r\n\r\n");
        final byte[] bytes = ok.toString().getBytes(StandardCharsets.US_ASCII);
        socket.send(new DatagramPacket(bytes, bytes.length));
    }
}
