package io.sipline.bench.ws;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code bin/sipline bench ws}: SIP over WebSocket against SIP over TCP on this machine, in one run against one
 * server JVM ({@link WsBenchServer}: the stack on loopback, every request answered 200 by its server transaction).
 * <ol>
 *   <li>Load: {@code --connections} client connections per transport, each keeping {@code --window} REGISTERs
 *       outstanding; after {@code --warmup} seconds, {@code --seconds} are measured: REGISTER transactions/s, server
 *       CPU ms per 1,000 transactions ({@code /proc/<pid>/stat}) and bytes allocated by the shard threads per
 *       transaction (one request and one response: half of it per message). TCP and WS alternate for
 *       {@code --rounds} rounds; each figure is the best round's.</li>
 *   <li>Idle connections: {@code --idle} WebSocket connections opened and upgraded, then as many plain TCP ones,
 *       each held without traffic; heap and direct memory per connection are the server's
 *       {@code sipline_jvm_heap_used_bytes} and {@code sipline_jvm_direct_memory_used_bytes} figures (after two full
 *       collections) with the connections open minus before, divided by their number. The client and the server each
 *       need a file descriptor per connection: {@code ulimit -n} above the count.</li>
 * </ol>
 * Prints a Markdown table. The clients are this JVM's blocking sockets ({@link SipClientConnection}), the same code
 * for both transports but the framing.
 */
public final class WsBench
{
    static final String USAGE = """
        Usage: bin/sipline bench ws [--idle N] [--connections C] [--window W] [--seconds S] [--warmup S]
                                    [--rounds R] [--shards N]
          --idle N          idle WebSocket (then TCP) connections held for the memory figures (default 10000)
          --connections C   loaded connections per transport (default 4)
          --window W        REGISTERs outstanding per loaded connection (default 16)
          --seconds S       measured seconds per transport and round (default 5)
          --warmup S        unmeasured seconds before each measurement (default 2)
          --rounds R        TCP then WS, R times; the best round of each counts (default 2)
          --shards N        the server's shards (default 2)
          -h, --help        this help""";

    private static final long CLK_TCK = 100; // USER_HZ on Linux

    private final Process server;
    private final BufferedReader serverOut;
    private final PrintStream serverIn;
    private final int tcpPort;
    private final int wsPort;

    private WsBench(final Process server, final BufferedReader serverOut, final PrintStream serverIn,
        final int tcpPort, final int wsPort)
    {
        this.server = server;
        this.serverOut = serverOut;
        this.serverIn = serverIn;
        this.tcpPort = tcpPort;
        this.wsPort = wsPort;
    }

    /** One transport's load figures. */
    record Load(String transport, double perSecond, double cpuMsPerThousand, double bytesPerTransaction)
    {
    }

    public static void main(final String[] args) throws Exception
    {
        int idle = 10_000;
        int connections = 4;
        int window = 16;
        int seconds = 5;
        int warmup = 2;
        int rounds = 2;
        int shards = 2;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--idle" -> idle = Integer.parseInt(args[++i]);
                case "--connections" -> connections = Integer.parseInt(args[++i]);
                case "--window" -> window = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--shards" -> shards = Integer.parseInt(args[++i]);
                case "-h", "--help" ->
                {
                    System.out.println(USAGE);
                    return;
                }
                default ->
                {
                    System.err.println("bench ws: unknown option " + args[i] + "\n" + USAGE);
                    System.exit(2);
                }
            }
        }
        final Path dir = Files.createDirectories(Path.of("target", "bench-ws"));
        final String java = ProcessHandle.current().info().command().orElse("java");
        final Process server = new ProcessBuilder(java, "-XX:+UseParallelGC", "-Xms1g", "-Xmx1g",
            "-Dio.netty.leakDetection.level=disabled", "--enable-native-access=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"), WsBenchServer.class.getName(), Integer.toString(shards))
            .redirectError(dir.resolve("server.err").toFile()).start();
        try
        {
            final BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(),
                StandardCharsets.US_ASCII));
            final String ready = out.readLine();
            if (null == ready || !ready.startsWith("READY "))
            {
                throw new IOException("server did not start: " + ready + " (see " + dir.resolve("server.err") + ")");
            }
            final String[] ports = ready.split(" ");
            final WsBench bench = new WsBench(server, out, new PrintStream(server.getOutputStream(), true,
                StandardCharsets.US_ASCII), Integer.parseInt(ports[1]), Integer.parseInt(ports[2]));
            bench.run(idle, connections, window, seconds, warmup, rounds, shards);
        }
        finally
        {
            server.destroy();
            if (!server.waitFor(10, TimeUnit.SECONDS))
            {
                server.destroyForcibly();
            }
        }
    }

    private void run(final int idle, final int connections, final int window, final int seconds, final int warmup,
        final int rounds, final int shards) throws Exception
    {
        System.out.printf(Locale.ROOT, "bench ws: %d shards, %d connections x %d outstanding per transport, %d s "
            + "measured after %d s, %d rounds; %d idle connections%n", shards, connections, window, seconds, warmup,
            rounds, idle);
        Load tcp = null;
        Load ws = null;
        for (int r = 0; r < rounds; r++)
        {
            tcp = best(tcp, load(false, connections, window, seconds, warmup));
            ws = best(ws, load(true, connections, window, seconds, warmup));
        }
        final long[] wsMemory = idle(true, idle);
        final long[] tcpMemory = idle(false, idle);
        System.out.println();
        System.out.println("| | TCP | WS | WS / TCP |");
        System.out.println("|---|---:|---:|---:|");
        row("REGISTER transactions/s", tcp.perSecond(), ws.perSecond(), "%,.0f");
        row("server CPU ms per 1,000 transactions", tcp.cpuMsPerThousand(), ws.cpuMsPerThousand(), "%,.1f");
        row("bytes allocated per transaction (shard threads)", tcp.bytesPerTransaction(), ws.bytesPerTransaction(),
            "%,.0f");
        row("bytes allocated per message", tcp.bytesPerTransaction() / 2, ws.bytesPerTransaction() / 2, "%,.0f");
        row("idle connections held", tcpMemory[0], wsMemory[0], "%,.0f");
        row("heap per idle connection, bytes", tcpMemory[1], wsMemory[1], "%,.0f");
        row("direct memory per idle connection, bytes (Netty + JDK)", tcpMemory[2], wsMemory[2], "%,.0f");
        serverIn.println("quit");
    }

    private static Load best(final Load a, final Load b)
    {
        return null == a || b.perSecond() > a.perSecond() ? b : a;
    }

    private static void row(final String what, final double tcp, final double ws, final String format)
    {
        System.out.println("| " + what + " | " + String.format(Locale.ROOT, format, tcp) + " | "
            + String.format(Locale.ROOT, format, ws) + " | "
            + (0 == tcp ? "-" : String.format(Locale.ROOT, "%.2f", ws / tcp)) + " |");
    }

    /** One measured load run of one transport. */
    private Load load(final boolean websocket, final int connections, final int window, final int seconds,
        final int warmup) throws Exception
    {
        final String name = websocket ? "WS" : "TCP";
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < connections; c++)
        {
            final SipClientConnection conn = SipClientConnection.open(websocket ? wsPort : tcpPort, websocket,
                16 * 1024);
            final int id = threads.size();
            threads.add(Thread.ofPlatform().name("bench-ws-" + name + "-" + id).start(() ->
                drive(conn, websocket, id, window, stop, failure)));
        }
        TimeUnit.SECONDS.sleep(warmup);
        final long[] before = stats();
        final long cpuBefore = cpuTicks(server.pid());
        final long start = System.nanoTime();
        TimeUnit.SECONDS.sleep(seconds);
        final long[] after = stats();
        final long cpuAfter = cpuTicks(server.pid());
        final double elapsed = (System.nanoTime() - start) / 1e9;
        stop.set(true);
        for (final Thread t : threads)
        {
            t.join(TimeUnit.SECONDS.toMillis(30));
        }
        if (null != failure.get())
        {
            throw new IOException(name + " load failed", failure.get());
        }
        final long transactions = after[0] - before[0];
        final Load load = new Load(name, transactions / elapsed,
            (cpuAfter - cpuBefore) * (1000.0 / CLK_TCK) * 1000.0 / Math.max(1, transactions),
            (after[1] - before[1]) / (double)Math.max(1, transactions));
        System.out.printf(Locale.ROOT, "bench ws: %-3s %,10.0f REGISTER/s, %6.1f CPU ms per 1,000, %,6.0f B/tx%n", name,
            load.perSecond(), load.cpuMsPerThousand(), load.bytesPerTransaction());
        return load;
    }

    /** A loaded connection: {@code window} REGISTERs outstanding until stopped, then the last answers read. */
    private static void drive(final SipClientConnection conn, final boolean websocket, final int id, final int window,
        final AtomicBoolean stop, final AtomicReference<Throwable> failure)
    {
        try (conn)
        {
            long seq = 1;
            for (int i = 0; i < window; i++)
            {
                conn.write(register(websocket, id, seq++));
            }
            conn.flush();
            int outstanding = window;
            while (outstanding > 0)
            {
                final String status = conn.readResponse();
                if (!status.startsWith("SIP/2.0 200 "))
                {
                    throw new IOException("unexpected response: " + status);
                }
                outstanding--;
                if (!stop.get())
                {
                    conn.write(register(websocket, id, seq++));
                    conn.flush();
                    outstanding++;
                }
            }
        }
        catch (final IOException | RuntimeException e)
        {
            failure.compareAndSet(null, e);
        }
    }

    /** A REGISTER of client {@code id}: the same bytes over both transports but for the Via's and Contact's. */
    private static byte[] register(final boolean websocket, final int id, final long seq)
    {
        final String host = websocket ? "c" + id + "bench.invalid" : "127.0.0.1:" + (40000 + id);
        return ("REGISTER sip:127.0.0.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/" + (websocket ? "WS " : "TCP ") + host + ";branch=z9hG4bK-" + id + "-" + seq + "\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:u" + id + "@127.0.0.1>;tag=t" + id + "\r\n"
            + "To: <sip:u" + id + "@127.0.0.1>\r\n"
            + "Call-ID: reg-" + id + (websocket ? "-ws" : "-tcp") + "@bench\r\n"
            + "CSeq: " + seq + " REGISTER\r\n"
            + "Contact: <sip:u" + id + "@" + host + ";transport=" + (websocket ? "ws" : "tcp") + ">\r\n"
            + "Expires: 300\r\n"
            + "Content-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Opens {@code count} idle connections (WebSocket ones upgraded) and measures the server's memory with them.
     *
     * @return the connections held, heap bytes and direct bytes per connection.
     */
    private long[] idle(final boolean websocket, final int count) throws Exception
    {
        final long[] base = memory();
        final List<SipClientConnection> held = new ArrayList<>(count);
        try
        {
            for (int i = 0; i < count; i++)
            {
                held.add(SipClientConnection.open(websocket ? wsPort : tcpPort, websocket, 256));
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            long open = 0;
            while (System.nanoTime() < deadline && (open = stats()[websocket ? 3 : 2]) < count)
            {
                TimeUnit.MILLISECONDS.sleep(100);
            }
            final long[] with = memory();
            final long n = Math.max(1, open);
            System.out.printf(Locale.ROOT, "bench ws: %,d idle %s connections open on the server%n", open,
                websocket ? "WS" : "TCP");
            return new long[] {open, (with[0] - base[0]) / n, (with[1] + with[2] - base[1] - base[2]) / n};
        }
        finally
        {
            for (final SipClientConnection c : held)
            {
                c.close();
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline && stats()[websocket ? 3 : 2] > 0)
            {
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
    }

    /** {answered, allocated bytes, TCP connections, WS connections} of the server now. */
    private long[] stats() throws IOException
    {
        serverIn.println("stats");
        final String line = serverOut.readLine();
        if (null == line || !line.startsWith("STATS "))
        {
            throw new IOException("bad stats line: " + line);
        }
        final String[] f = line.split(" ");
        return new long[] {Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4])};
    }

    /** {heap used, Netty direct, JDK direct} of the server after two full collections. */
    private long[] memory() throws IOException
    {
        serverIn.println("mem");
        final String line = serverOut.readLine();
        if (null == line || !line.startsWith("MEM "))
        {
            throw new IOException("bad mem line: " + line);
        }
        final String[] f = line.split(" ");
        return new long[] {Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3])};
    }

    /** utime + stime of a process, in clock ticks (/proc/pid/stat fields 14 and 15). */
    private static long cpuTicks(final long pid) throws IOException
    {
        final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }
}
