package io.sipline.media.turn;

import io.sipline.media.stun.StunMessageFlyweight;
import io.sipline.media.stun.StunMessageType;
import io.sipline.media.stun.StunMessageWriter;

import java.io.File;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A coturn {@code turnserver} child process on 127.0.0.1 for tests: listening port and relay port range probed free,
 * long-term credentials {@code test:secret} in realm {@code sipline.test}, loopback peers allowed, no TLS/DTLS, no
 * CLI, its own pid file and user database under a temporary directory, log in that directory. Started by
 * {@link #start()}, which returns once the server answers a STUN Binding request; stopped by its process handle in
 * {@link #close()}.
 *
 * <p>Owned by the test thread that starts it.
 */
public final class Coturn implements AutoCloseable
{
    /** The binary the Debian package installs. */
    public static final Path BINARY = Path.of("/usr/bin/turnserver");
    /** Test user. */
    public static final String USER = "test";
    /** Test password. */
    public static final String PASSWORD = "secret";
    /** Test realm. */
    public static final String REALM = "sipline.test";

    private static final int RELAY_PORTS = 40;

    private final Process process;
    private final InetSocketAddress address;
    private final Path directory;

    private Coturn(final Process process, final InetSocketAddress address, final Path directory)
    {
        this.process = process;
        this.address = address;
        this.directory = directory;
    }

    /**
     * @return whether the binary is installed.
     */
    public static boolean available()
    {
        return Files.isExecutable(BINARY);
    }

    /**
     * Starts a server and waits (at most 10 s) until it answers STUN; once more on other ports if it does not (the
     * ports are probed free, then bound by turnserver: another process may take one in between).
     *
     * @return the running server.
     * @throws IOException when it cannot be started or does not answer, with each attempt's log.
     */
    public static Coturn start() throws IOException
    {
        try
        {
            return startOnce();
        }
        catch (final IOException first)
        {
            try
            {
                return startOnce();
            }
            catch (final IOException second)
            {
                second.addSuppressed(first);
                throw second;
            }
        }
    }

    private static Coturn startOnce() throws IOException
    {
        final Path directory = Files.createTempDirectory("sipline-coturn");
        final int port = freeUdpPort();
        final int minPort = freeUdpRange(RELAY_PORTS);
        final Path log = directory.resolve("turnserver.log");
        final List<String> command = List.of(BINARY.toString(), "-n", "--lt-cred-mech", "--user",
            USER + ":" + PASSWORD, "--realm", REALM, "--no-tls", "--no-dtls", "--listening-ip", "127.0.0.1",
            "--relay-ip", "127.0.0.1", "--listening-port", Integer.toString(port), "--min-port",
            Integer.toString(minPort), "--max-port", Integer.toString(minPort + RELAY_PORTS - 1),
            "--allow-loopback-peers", "--no-cli", "--log-file", "stdout", "--simple-log", "--pidfile",
            directory.resolve("turnserver.pid").toString(), "--db", directory.resolve("turndb").toString());
        final Process process = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(log.toFile()).start();
        final Coturn coturn = new Coturn(process, new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
            directory);
        try
        {
            coturn.awaitStun(10_000);
        }
        catch (final IOException | RuntimeException ex)
        {
            final String output = coturn.log(); // before close, which deletes the directory with the log
            coturn.close();
            throw new IOException("turnserver on 127.0.0.1:" + port + " did not answer; log: " + output, ex);
        }
        return coturn;
    }

    /**
     * @return the listening address (UDP, 127.0.0.1).
     */
    public InetSocketAddress address()
    {
        return address;
    }

    /**
     * @return the server's log so far (for failure messages).
     */
    public String log()
    {
        try
        {
            return Files.readString(directory.resolve("turnserver.log"));
        }
        catch (final IOException ex)
        {
            return "(no log: " + ex + ")";
        }
    }

    @Override
    public void close()
    {
        process.destroy();
        try
        {
            if (!process.waitFor(5, TimeUnit.SECONDS))
            {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        final File[] files = directory.toFile().listFiles();
        if (null != files)
        {
            for (final File file : files)
            {
                file.delete();
            }
        }
        directory.toFile().delete();
    }

    private void awaitStun(final long timeoutMs) throws IOException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        final byte[] request = new byte[20];
        final int length = new StunMessageWriter().wrap(request, 0, request.length)
            .header(StunMessageType.BINDING_REQUEST, ThreadLocalRandom.current().nextInt(), 1L).length();
        final StunMessageFlyweight response = new StunMessageFlyweight();
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            socket.setSoTimeout(100);
            final byte[] in = new byte[1500];
            while (System.nanoTime() - deadline < 0)
            {
                if (!process.isAlive())
                {
                    throw new IOException("turnserver exited with " + process.exitValue());
                }
                socket.send(new DatagramPacket(request, length, address));
                final DatagramPacket packet = new DatagramPacket(in, in.length);
                try
                {
                    socket.receive(packet);
                }
                catch (final SocketTimeoutException ex)
                {
                    continue;
                }
                if (response.wrap(in, 0, packet.getLength()) >= 0
                    && StunMessageType.BINDING_SUCCESS_RESPONSE == response.messageType())
                {
                    return;
                }
            }
        }
        throw new IOException("no STUN answer within " + timeoutMs + " ms");
    }

    /**
     * @return a UDP port free on 127.0.0.1 right now.
     * @throws IOException never in practice.
     */
    public static int freeUdpPort() throws IOException
    {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }

    /** A run of {@code count} consecutive UDP ports all free on 127.0.0.1, probed at random in 20000-59999. */
    private static int freeUdpRange(final int count) throws IOException
    {
        for (int attempt = 0; attempt < 50; attempt++)
        {
            final int first = 20_000 + ThreadLocalRandom.current().nextInt(40_000 - count);
            boolean free = true;
            for (int p = first; p < first + count && free; p++)
            {
                try (DatagramSocket _ = new DatagramSocket(p, InetAddress.getLoopbackAddress()))
                {
                    free = true;
                }
                catch (final IOException ex)
                {
                    free = false;
                }
            }
            if (free)
            {
                return first;
            }
        }
        throw new IOException("no free UDP port range of " + count);
    }
}
