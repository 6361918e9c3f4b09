package io.sipline.distribution;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.BindException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * What the distribution's tests share: one SIP request over UDP and its final response, and a server started as a
 * child process on free loopback ports, its output kept by line. Not threadsafe; used by one test at a time.
 */
final class Loopback
{
    private Loopback()
    {
    }

    /** Sends one request over UDP from loopback and returns the first final response, or fails after 10 s. */
    static String exchange(final int port, final String method, final String headers) throws IOException
    {
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
        {
            socket.setSoTimeout(10_000);
            final int local = socket.getLocalPort();
            final String request = method + " sip:alice@127.0.0.1:" + port + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:" + local + ";branch=z9hG4bK-dist-" + method + System.nanoTime() + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:alice@127.0.0.1>;tag=dist1\r\n"
                + "To: <sip:alice@127.0.0.1>\r\n"
                + "Call-ID: dist-" + method + "-" + System.nanoTime() + "@127.0.0.1\r\n"
                + "CSeq: 1 " + method + "\r\n"
                + headers
                + "Content-Length: 0\r\n\r\n";
            final byte[] bytes = request.getBytes(StandardCharsets.US_ASCII);
            socket.send(new DatagramPacket(bytes, bytes.length, InetAddress.getLoopbackAddress(), port));
            final byte[] buffer = new byte[8192];
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < deadline)
            {
                final DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
                try
                {
                    socket.receive(packet);
                }
                catch (final SocketTimeoutException e)
                {
                    break;
                }
                final String response = new String(buffer, 0, packet.getLength(), StandardCharsets.US_ASCII);
                if (!response.startsWith("SIP/2.0 1"))
                {
                    return response;
                }
            }
            return fail("no final response to " + method + " within 10 s");
        }
    }

    /** A SIP port free for UDP and for TCP (the server binds both, RFC 3261 §18) and a free admin port. */
    static Ports freePorts() throws IOException
    {
        while (true)
        {
            try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                ServerSocket admin = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
            {
                try (ServerSocket tcp = new ServerSocket())
                {
                    tcp.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), udp.getLocalPort()), 1);
                }
                return new Ports(udp.getLocalPort(), admin.getLocalPort());
            }
            catch (final BindException e)
            {
                // the UDP port's TCP twin is in use: take another
            }
        }
    }

    /**
     * Starts a server on free ports ({@code start} makes it from them) and waits up to {@code timeoutMs} for a line
     * matching {@code ready}. A port found free can be taken by another process before the server binds it; a server
     * that exits saying so is started again on other ports, at most three times in all.
     */
    static Started startReady(final Starter start, final Predicate<String> ready, final long timeoutMs)
        throws IOException, InterruptedException
    {
        for (int attempt = 1; ; attempt++)
        {
            final Ports ports = freePorts();
            final Server server = start.start(ports);
            final boolean up = server.await(ready, timeoutMs);
            if (up || attempt == 3 || server.process.isAlive() || !server.output().contains("Address already in use"))
            {
                return new Started(server, ports, up);
            }
            server.kill();
        }
    }

    /** Starts a server on the ports given. */
    interface Starter
    {
        Server start(Ports ports) throws IOException;
    }

    /** The SIP port (UDP and TCP) and the admin port a test server is given. */
    record Ports(int sip, int admin)
    {
    }

    /** A server from {@link #startReady}, its ports, and whether it said it was ready. */
    record Started(Server server, Ports ports, boolean ready)
    {
    }

    /** Polls {@code condition} every 20 ms until it holds or {@code timeoutMs} passed; whether it held. */
    static boolean poll(final BooleanSupplier condition, final long timeoutMs) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    /** A server started as a child process, its output (stdout and stderr) kept by line. */
    static final class Server
    {
        final Process process;
        final List<String> lines = new CopyOnWriteArrayList<>();
        private final long stopMs;

        private Server(final Process process, final long stopMs)
        {
            this.process = process;
            this.stopMs = stopMs;
        }

        /** Starts {@code builder} with its standard error merged into its output; {@code stopMs} bounds a stop. */
        static Server start(final ProcessBuilder builder, final long stopMs) throws IOException
        {
            final Server server = new Server(builder.redirectErrorStream(true).start(), stopMs);
            Thread.ofPlatform().daemon().name("dist-server-output").start(() ->
            {
                try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(server.process.getInputStream(), StandardCharsets.UTF_8)))
                {
                    for (String line = in.readLine(); null != line; line = in.readLine())
                    {
                        server.lines.add(line);
                    }
                }
                catch (final IOException e)
                {
                    server.lines.add("(output closed: " + e + ")");
                }
            });
            return server;
        }

        boolean await(final Predicate<String> condition, final long timeoutMs) throws InterruptedException
        {
            return poll(() -> lines.stream().anyMatch(condition) || !process.isAlive(), timeoutMs)
                && lines.stream().anyMatch(condition);
        }

        String output()
        {
            return String.join("\n", lines);
        }

        /** SIGTERM to the server's process id (the launcher execs the JVM), then its exit code. */
        int stop() throws InterruptedException
        {
            process.toHandle().destroy();
            if (!process.waitFor(stopMs, TimeUnit.MILLISECONDS))
            {
                kill();
                fail("the server did not stop within " + stopMs + " ms of SIGTERM:\n" + output());
            }
            return process.exitValue();
        }

        void kill() throws InterruptedException
        {
            if (process.isAlive())
            {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
