package io.sipline.bench.stack;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code bin/sipline bench stack [--ports N] [--shards N] [--start R] [--max R] [--step-seconds S]}: for the stateless
 * and the stateful OPTIONS responder, starts a {@link BenchServer} JVM on loopback, drives it with one sipp process
 * whose calls round-robin over every port ({@code setdest} from an injection file), steps the rate up (×1.5) until
 * sipp reports failed calls or retransmissions (&gt; 2%), after one unjudged warm-up step, or the server answers
 * fewer than 90% of the offered rate, and prints per step: offered and achieved transactions/s, CPU seconds of the
 * server per 1,000 transactions (from {@code /proc/<pid>/stat}), and bytes allocated by the shard threads per
 * transaction ({@code ThreadMXBean}).
 */
public final class StackBench
{
    private static final long CLK_TCK = 100; // USER_HZ on Linux
    /** What the parser below accepts, printed by {@code --help} and with a refused option. */
    static final String USAGE = """
        Usage: bin/sipline bench stack [--ports N] [--shards N] [--start R] [--max R] [--step-seconds S]
                                       [--mode stateless|stateful]
          --ports N          UDP ports the server listens on, sipp's calls round-robin over them (default 1)
          --shards N         the server's shards (default 2)
          --start R          first offered rate, transactions/s (default 2000)
          --max R            highest rate tried (default 200000)
          --step-seconds S   seconds per step (default 5)
          --mode M           only the stateless or only the stateful responder (default: both)
          -h, --help         this help""";

    private StackBench()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        int ports = 1;
        int shards = 2;
        int start = 2_000;
        int max = 200_000;
        int stepSeconds = 5;
        String only = null;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--ports" -> ports = Integer.parseInt(args[++i]);
                case "--shards" -> shards = Integer.parseInt(args[++i]);
                case "--start" -> start = Integer.parseInt(args[++i]);
                case "--max" -> max = Integer.parseInt(args[++i]);
                case "--step-seconds" -> stepSeconds = Integer.parseInt(args[++i]);
                case "--mode" -> only = args[++i];
                case "-h", "--help" ->
                {
                    System.out.println(USAGE);
                    return;
                }
                default ->
                {
                    System.err.println("unknown option '" + args[i] + "'\n" + USAGE);
                    System.exit(2);
                }
            }
        }
        if (!new File("/usr/bin/sipp").canExecute())
        {
            System.err.println("sipp is not installed (apt-get install sip-tester)");
            System.exit(2);
        }
        final Path dir = Files.createDirectories(Path.of("target", "bench-stack")).toAbsolutePath();
        System.out.printf("bench stack: ports=%d shards=%d step=%ds (loopback, sipp in another process)%n", ports,
            shards, stepSeconds);
        System.out.printf("%-9s %9s %9s %9s %11s %9s %9s %s%n", "mode", "offered", "tx/s", "failed", "retrans",
            "cpu-s/1k", "B/tx", "");
        for (final String mode : new String[] {"stateless", "stateful"})
        {
            if (null == only || only.equals(mode))
            {
                runMode(mode, ports, shards, start, max, stepSeconds, dir);
            }
        }
    }

    private static void runMode(final String mode, final int ports, final int shards, final int start, final int max,
        final int stepSeconds, final Path dir) throws Exception
    {
        final String java = ProcessHandle.current().info().command().orElse("java");
        // No io.netty.recycler.ratio here: the server runs with what SipStack sets for every user (see
        // SipStack.RECYCLER_RATIO_PROPERTY), so the figure is the product's.
        final Process server = new ProcessBuilder(java, "-XX:+UseParallelGC", "-Xms512m", "-Xmx512m",
            "-Dio.netty.leakDetection.level=disabled", "--enable-native-access=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"), BenchServer.class.getName(), mode,
            Integer.toString(ports), Integer.toString(shards))
            .redirectError(dir.resolve("server-" + mode + ".err").toFile()).start();
        try
        {
            final BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(),
                StandardCharsets.US_ASCII));
            final PrintStream cmd = new PrintStream(server.getOutputStream(), true, StandardCharsets.US_ASCII);
            final String ready = out.readLine();
            if (null == ready || !ready.startsWith("READY"))
            {
                throw new IOException("server did not start: " + ready);
            }
            final String[] fields = ready.substring(6).trim().split(" ");
            final Path inf = dir.resolve("ports-" + mode + ".csv");
            final StringBuilder sb = new StringBuilder("SEQUENTIAL\n");
            for (final String p : fields)
            {
                sb.append(p).append('\n');
            }
            Files.writeString(inf, sb);
            final Path scenario = dir.resolve("options-ports.xml");
            Files.writeString(scenario, SCENARIO);
            // Warm-up (JIT, pools, first allocations), not judged: one step at the start rate.
            runSipp(dir, scenario, inf, fields[0], start, start * stepSeconds, stepSeconds);
            double rate = start;
            double best = 0;
            while (rate <= max)
            {
                final long[] before = stats(out, cmd);
                final long cpuBefore = cpuTicks(server.pid());
                final long t0 = System.nanoTime();
                final int calls = (int)(rate * stepSeconds);
                final long[] sipp = runSipp(dir, scenario, inf, fields[0], rate, calls, stepSeconds);
                final long wallNs = System.nanoTime() - t0;
                final long[] after = stats(out, cmd);
                final long cpu = cpuTicks(server.pid()) - cpuBefore;
                final long tx = after[0] - before[0];
                final double tps = tx * 1e9 / wallNs;
                final double cpuPer1k = tx == 0 ? 0 : (cpu / (double)CLK_TCK) * 1000.0 / tx;
                final double bytesPerTx = tx == 0 ? 0 : (after[1] - before[1]) / (double)tx;
                final boolean bad = sipp[1] > 0 || sipp[2] > calls / 50 || tps < 0.9 * rate || sipp[0] < calls;
                System.out.printf("%-9s %9.0f %9.0f %9d %11d %9.4f %9.1f %s%n", mode, rate, tps, sipp[1], sipp[2],
                    cpuPer1k, bytesPerTx, bad ? "<- limit" : "");
                if (bad)
                {
                    break;
                }
                best = tps;
                rate *= 1.5;
            }
            System.out.printf("%-9s best sustained: %.0f tx/s (ports=%d shards=%d)%n", mode, best, ports, shards);
            if (best > 0)
            {
                steady(mode, best / 2, stepSeconds, dir, scenario, inf, fields[0], out, cmd, server.pid());
            }
            cmd.println("quit");
            server.waitFor(10, TimeUnit.SECONDS);
        }
        finally
        {
            server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /**
     * The bytes per transaction of a run at one rate once the pools are at that rate's size. While the rate climbs,
     * every step also pays for the transaction and buffer pools growing to it (a UDP server transaction lives 64*T1 =
     * 32 s after its final response, RFC 3261 §17.2.2 Timer J), which is capacity, not garbage per transaction. So
     * the stack first runs 40 s at half the best rate, then one measured step at the same rate.
     */
    private static void steady(final String mode, final double rate, final int stepSeconds, final Path dir,
        final Path scenario, final Path inf, final String firstPort, final BufferedReader out, final PrintStream cmd,
        final long pid) throws Exception
    {
        final int settleSeconds = 40;
        runSipp(dir, scenario, inf, firstPort, rate, (int)(rate * settleSeconds), settleSeconds);
        final long[] before = stats(out, cmd);
        final long cpuBefore = cpuTicks(pid);
        final long t0 = System.nanoTime();
        final int calls = (int)(rate * stepSeconds);
        final long[] sipp = runSipp(dir, scenario, inf, firstPort, rate, calls, stepSeconds);
        final long wallNs = System.nanoTime() - t0;
        final long[] after = stats(out, cmd);
        final long tx = after[0] - before[0];
        final double cpuPer1k = tx == 0 ? 0 : (cpuTicks(pid) - cpuBefore) / (double)CLK_TCK * 1000.0 / tx;
        System.out.printf("%-9s %9.0f %9.0f %9d %11d %9.4f %9.1f %s%n", mode, rate, tx * 1e9 / wallNs, sipp[1],
            sipp[2], cpuPer1k, tx == 0 ? 0 : (after[1] - before[1]) / (double)tx,
            "<- steady: after " + settleSeconds + " s at this rate (pools at its size)");
    }

    /** Returns {successful, failed, retransmissions} from sipp's -trace_stat file. */
    private static long[] runSipp(final Path dir, final Path scenario, final Path inf, final String firstPort,
        final double rate, final int calls, final int stepSeconds) throws Exception
    {
        final Path stat = dir.resolve("sipp-stat.csv");
        Files.deleteIfExists(stat);
        final List<String> cmd = new ArrayList<>(List.of("/usr/bin/sipp", "127.0.0.1:" + firstPort,
            "-sf", scenario.toString(), "-inf", inf.toString(), "-m", Integer.toString(calls),
            "-r", Long.toString(Math.round(rate)), "-rp", "1000", "-l", "100000",
            "-i", "127.0.0.1", "-p", "0", "-timeout", (stepSeconds * 4 + 20) + "s", "-timeout_error",
            "-nostdin", "-trace_stat", "-stf", stat.toString(), "-fd", "1", "-buff_size", "8388608",
            "-max_socket", "4"));
        final Process sipp = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
            .redirectOutput(dir.resolve("sipp.log").toFile()).start();
        try
        {
            sipp.waitFor(stepSeconds * 4L + 30, TimeUnit.SECONDS);
        }
        finally
        {
            sipp.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        final List<String> lines = Files.exists(stat) ? Files.readAllLines(stat) : List.of();
        if (lines.size() < 2)
        {
            return new long[] {0, calls, 0};
        }
        final String[] head = lines.get(0).split(";");
        final String[] last = lines.get(lines.size() - 1).split(";");
        final long[] r = new long[3];
        for (int i = 0; i < head.length && i < last.length; i++)
        {
            switch (head[i])
            {
                case "SuccessfulCall(C)" -> r[0] = Long.parseLong(last[i].trim());
                case "FailedCall(C)" -> r[1] = Long.parseLong(last[i].trim());
                case "Retransmissions(C)" -> r[2] = Long.parseLong(last[i].trim());
                default ->
                {
                }
            }
        }
        return r;
    }

    private static long[] stats(final BufferedReader out, final PrintStream cmd) throws IOException
    {
        cmd.println("stats");
        final String line = out.readLine();
        if (null == line || !line.startsWith("STATS "))
        {
            throw new IOException("bad stats line: " + line);
        }
        final String[] f = line.split(" ");
        return new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])};
    }

    /** utime + stime of a process, in clock ticks (/proc/pid/stat fields 14 and 15). */
    private static long cpuTicks(final long pid) throws IOException
    {
        final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    private static final String SCENARIO = """
        <?xml version="1.0" encoding="ISO-8859-1" ?>
        <scenario name="Sipline OPTIONS over every port">
          <nop>
            <action>
              <setdest host="127.0.0.1" port="[field0]" protocol="udp" />
            </action>
          </nop>
          <send retrans="500">
            <![CDATA[

              OPTIONS sip:[service]@127.0.0.1:[field0] SIP/2.0
              Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch];rport
              Max-Forwards: 70
              From: sipp <sip:sipp@[local_ip]:[local_port]>;tag=[pid]SIPpTag[call_number]
              To: <sip:[service]@127.0.0.1:[field0]>
              Call-ID: [call_id]
              CSeq: 1 OPTIONS
              Content-Length: 0

            ]]>
          </send>
          <recv response="200"/>
        </scenario>
        """;
}
