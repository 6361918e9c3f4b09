package io.sipline.container.dispatch;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EventListener;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

import javax.servlet.sip.SipServlet;

import io.sipline.container.deploy.ApplicationArchive;
import io.sipline.container.deploy.ApplicationClassLoader;
import io.sipline.container.deploy.DeployedApplication;
import io.sipline.container.deploy.DescriptorOrigin;
import io.sipline.container.deploy.ServletDefinition;
import io.sipline.container.deploy.SipApplicationDescriptor;
import io.sipline.container.router.DefaultApplicationRouter;
import io.sipline.container.security.UserRealm;
import io.sipline.sip.stack.SipStackConfig;
import io.sipline.sip.transport.RealtimeClock;

/**
 * Builds applications for the dispatch tests out of servlet and listener instances from the test class path (an
 * empty exploded directory gives them a class loader), starts a container on loopback port 0, and exchanges raw
 * datagrams with it.
 */
final class TestApps
{
    static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");

    private TestApps()
    {
    }

    /** A container with two shards on 127.0.0.1, port 0, and the default router (no DAR: one application). */
    static ContainerServer server() throws Exception
    {
        return server(new SipStackConfig().t1Ns());
    }

    /** A container of two shards on a free loopback port, with the default router, its T1 {@code t1Ns}. */
    static ContainerServer server(final long t1Ns) throws Exception
    {
        return server(config().t1Ns(t1Ns));
    }

    /** The settings of {@link #server()}: two shards on a free loopback port; change what a test needs. */
    static SipStackConfig config()
    {
        return new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0).shards(2);
    }

    /** A container with {@code config} and the default router. */
    static ContainerServer server(final SipStackConfig config) throws Exception
    {
        return server(config, RealtimeClock::nanos);
    }

    /** A container with {@code config} and the default router, its overload check reading {@code wallClock}. */
    static ContainerServer server(final SipStackConfig config, final LongSupplier wallClock) throws Exception
    {
        final DefaultApplicationRouter router = new DefaultApplicationRouter();
        router.init();
        return ContainerServer.start(config, router, UserRealm.empty(), wallClock);
    }

    /** An application named {@code name} whose main servlet is {@code servlet}. */
    static DeployedApplication application(final String name, final SipServlet servlet,
        final Map<String, String> contextParams, final EventListener... listeners) throws Exception
    {
        return application(name, servlet, contextParams, false, listeners);
    }

    /** As {@link #application(String, SipServlet, Map, EventListener...)}, {@code <distributable/>} or not. */
    static DeployedApplication application(final String name, final SipServlet servlet,
        final Map<String, String> contextParams, final boolean distributable, final EventListener... listeners)
        throws Exception
    {
        final Path dir = Files.createTempDirectory("sipline-test-app");
        Files.createDirectories(dir.resolve("WEB-INF"));
        final ApplicationClassLoader loader;
        try (ApplicationArchive archive = ApplicationArchive.open(dir))
        {
            loader = ApplicationClassLoader.create(archive, name, TestApps.class.getClassLoader());
        }
        final SipApplicationDescriptor.Builder b = SipApplicationDescriptor.builder().appName(name).source("test")
            .distributable(distributable);
        contextParams.forEach(b::putContextParam);
        b.putServlet(new ServletDefinition("main", servlet.getClass().getName(), null, null, Map.of(), 1,
            DescriptorOrigin.ANNOTATION, "test", -1));
        b.mainServlet("main", -1);
        return new DeployedApplication(name, b.build(), loader, Map.of("main", servlet), List.of(listeners), dir);
    }

    /** Sends one request as a datagram and returns the first final response's text (or the last one seen). */
    static String exchange(final InetSocketAddress server, final String request) throws Exception
    {
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            socket.setSoTimeout(5_000);
            final String text = request.replace("PORT", Integer.toString(socket.getLocalPort()));
            final byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
            socket.send(new DatagramPacket(bytes, bytes.length, server));
            final byte[] in = new byte[4096];
            String last = null;
            for (int i = 0; i < 5; i++)
            {
                final DatagramPacket p = new DatagramPacket(in, in.length);
                socket.receive(p);
                last = new String(in, 0, p.getLength(), StandardCharsets.US_ASCII);
                if (!last.startsWith("SIP/2.0 1"))
                {
                    return last;
                }
            }
            return last;
        }
    }

    /** A request (Via sent-by 127.0.0.1:PORT, replaced by {@link #exchange}). */
    static String request(final String method, final String callId)
    {
        return method + " sip:service@127.0.0.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:PORT;branch=z9hG4bK-" + callId + "\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:alice@127.0.0.1>;tag=a1\r\n"
            + "To: <sip:service@127.0.0.1>\r\n"
            + "Call-ID: " + callId + "\r\n"
            + "CSeq: 1 " + method + "\r\n"
            + "Contact: <sip:alice@127.0.0.1:PORT>\r\n"
            + "Content-Length: 0\r\n\r\n";
    }

    /** The SipFactory of a deployed application. */
    static javax.servlet.sip.SipFactory factory(final ContainerServer server, final String application)
    {
        return (javax.servlet.sip.SipFactory)server.registry().application(application).servletContext()
            .getAttribute(SipServlet.SIP_FACTORY);
    }

    /** Polls a condition for up to five seconds. */
    static boolean await(final java.util.function.BooleanSupplier condition) throws InterruptedException
    {
        return io.sipline.test.Sipp.await(condition, 5_000);
    }
}
