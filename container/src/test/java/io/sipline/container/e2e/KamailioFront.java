package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import io.sipline.test.Sipp;

/**
 * Kamailio with the repository's {@code cluster/kamailio/kamailio.cfg} as the front of Sipline nodes, for the
 * end-to-end tests: a foreground process ({@code -DD -E}) on a free loopback UDP port, its dispatcher list naming
 * the given nodes, its output kept line by line and copied to {@code target/e2e/NAME/kamailio.log}. Stopped by its
 * process id (SIGTERM, then SIGKILL after a bound).
 * <p>
 * Threading: used by one test thread; one daemon thread reads its output.
 */
public final class KamailioFront implements AutoCloseable
{
    static final File BINARY = new File("/usr/sbin/kamailio");
    static final long START_MS = 20_000;

    private final Process process;
    private final int port;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    /** When each line was read ({@link System#nanoTime()}), index by index with {@link #lines}. */
    private final List<Long> times = new CopyOnWriteArrayList<>();

    private KamailioFront(final Process process, final int port)
    {
        this.process = process;
        this.port = port;
    }

    public static boolean available()
    {
        return BINARY.canExecute();
    }

    /**
     * Starts the front for {@code nodes} (their UDP ports on 127.0.0.1) probing every {@code pingSeconds}, and waits
     * until it answers an OPTIONS sent to itself.
     */
    public static KamailioFront start(final String name, final List<Integer> nodes, final int pingSeconds)
        throws IOException, InterruptedException
    {
        return start(name, Sipp.freeUdpPort(), nodes, pingSeconds);
    }

    /**
     * As {@link #start(String, List, int)} on the UDP port {@code port} (one the nodes were told of before, as their
     * {@code --cluster-front}).
     */
    public static KamailioFront start(final String name, final int port, final List<Integer> nodes,
        final int pingSeconds) throws IOException, InterruptedException
    {
        final Path dir = Files.createDirectories(Path.of("target", "e2e", name)).toAbsolutePath();
        final Path run = Files.createDirectories(dir.resolve("run"));
        final StringBuilder list = new StringBuilder("# written by the test from dispatcher.list.template\n");
        for (int i = 0; i < nodes.size(); i++)
        {
            list.append("1 sip:127.0.0.1:").append(nodes.get(i)).append(" 0 0 node=").append(i + 1).append('\n');
        }
        final Path listFile = Files.writeString(dir.resolve("dispatcher.list"), list);
        final List<String> cmd = new ArrayList<>(List.of(BINARY.getPath(),
            "-f", Examples.root().resolve("cluster/kamailio/kamailio.cfg").toString(),
            // one UDP worker (-n 1): two may reorder the callee's 180 and 200, which sipp's scenario refuses
            "-DD", "-E", "-Y", run.toString(), "-w", dir.toString(), "-m", "64", "-M", "8", "-n", "1",
            "-l", "udp:127.0.0.1:" + port,
            "-A", "DISPATCHER_LIST=\"" + listFile + "\"",
            "-A", "PING_INTERVAL=" + pingSeconds,
            "-A", "PROBE_TIMEOUT_MS=1000"));
        final Process process = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        final KamailioFront front = new KamailioFront(process, port);
        final PrintWriter log = new PrintWriter(Files.newBufferedWriter(dir.resolve("kamailio.log")), true);
        log.println("$ " + String.join(" ", cmd));
        Thread.ofPlatform().daemon().name("e2e-kamailio-output-" + name).start(() ->
        {
            try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
            {
                for (String line = in.readLine(); null != line; line = in.readLine())
                {
                    front.times.add(System.nanoTime()); // before the line: a line seen always has its time
                    front.lines.add(line);
                    log.println(line);
                }
            }
            catch (final IOException e)
            {
                log.println("(output closed: " + e + ")");
            }
            finally
            {
                log.close();
            }
        });
        if (!front.answersOptions(START_MS))
        {
            front.close();
            fail("kamailio did not answer OPTIONS on 127.0.0.1:" + port + " within " + START_MS + " ms (alive: "
                + process.isAlive() + "):\n" + front.output());
        }
        return front;
    }

    public int port()
    {
        return port;
    }

    public String output()
    {
        return String.join("\n", lines);
    }

    /** The lines printed so far that match {@code condition}. */
    public List<String> lines(final Predicate<String> condition)
    {
        return lines.stream().filter(condition).toList();
    }

    /** The lines printed from line {@code from} on that match {@code condition}. */
    public List<String> linesSince(final int from, final Predicate<String> condition)
    {
        final List<String> all = List.copyOf(lines);
        return all.subList(Math.min(from, all.size()), all.size()).stream().filter(condition).toList();
    }

    /** When the first line matching {@code condition} was read ({@link System#nanoTime()}), or -1 when none was. */
    public long firstLineNanos(final Predicate<String> condition)
    {
        final List<String> all = List.copyOf(lines);
        for (int i = 0; i < all.size(); i++)
        {
            if (condition.test(all.get(i)))
            {
                return times.get(i);
            }
        }
        return -1;
    }

    public int lineCount()
    {
        return lines.size();
    }

    /** Waits (polling, bounded) until a line matching {@code condition} was printed. */
    public boolean awaitLine(final Predicate<String> condition, final long timeoutMs)
        throws InterruptedException
    {
        return Sipp.await(() -> lines.stream().anyMatch(condition) || !process.isAlive(), timeoutMs)
            && lines.stream().anyMatch(condition);
    }

    /** Sends OPTIONS to the front itself until it answers 200 or {@code timeoutMs} pass. */
    private boolean answersOptions(final long timeoutMs) throws IOException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0)))
        {
            socket.setSoTimeout(200);
            final int local = socket.getLocalPort();
            for (int n = 1; System.nanoTime() < deadline && process.isAlive(); n++)
            {
                final String options = "OPTIONS sip:127.0.0.1:" + port + " SIP/2.0\r\n"
                    + "Via: SIP/2.0/UDP 127.0.0.1:" + local + ";branch=z9hG4bK-front-probe-" + n + ";rport\r\n"
                    + "Max-Forwards: 70\r\n"
                    + "From: <sip:test@127.0.0.1>;tag=probe\r\n"
                    + "To: <sip:127.0.0.1:" + port + ">\r\n"
                    + "Call-ID: front-probe-" + n + "@127.0.0.1\r\n"
                    + "CSeq: " + n + " OPTIONS\r\n"
                    + "Content-Length: 0\r\n\r\n";
                final byte[] bytes = options.getBytes(StandardCharsets.US_ASCII);
                socket.send(new DatagramPacket(bytes, bytes.length, InetAddress.ofLiteral("127.0.0.1"), port));
                final DatagramPacket answer = new DatagramPacket(new byte[4096], 4096);
                try
                {
                    socket.receive(answer);
                    if (new String(answer.getData(), 0, answer.getLength(), StandardCharsets.US_ASCII)
                        .startsWith("SIP/2.0 200"))
                    {
                        return true;
                    }
                }
                catch (final SocketTimeoutException e)
                {
                    // not listening yet: ask again
                }
            }
        }
        return false;
    }

    /** Stops Kamailio by its process id: SIGTERM, then SIGKILL when it has not ended within 10 s. */
    @Override
    public void close()
    {
        try
        {
            process.toHandle().destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS))
            {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (final InterruptedException e)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        assertTrue(!process.isAlive(), "kamailio did not stop");
    }
}
