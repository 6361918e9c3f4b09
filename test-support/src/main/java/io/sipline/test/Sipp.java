package io.sipline.test;

import java.io.File;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Runs sipp (Debian sip-tester) as a child process for the stack tests; every process is stopped by its handle. */
public final class Sipp
{
    public static final File BINARY = new File("/usr/bin/sipp");

    private Sipp()
    {
    }

    public static boolean available()
    {
        return BINARY.canExecute();
    }

    /** A UDP port free right now on 127.0.0.1 (the child binds it a moment later). */
    public static int freeUdpPort() throws IOException
    {
        try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0)))
        {
            return probe.getLocalPort();
        }
    }

    /**
     * Starts sipp with the given arguments (plus {@code -nostdin}, {@code -i 127.0.0.1}, {@code -p port},
     * {@code -trace_stat}, {@code -trace_err}) in {@code target/sipp/name}, and returns the process; the caller
     * stops it in {@code finally} with {@link #stop}.
     */
    public static Process start(final String name, final List<String> args) throws IOException
    {
        return start(name, args, freeUdpPort());
    }

    /** As {@link #start(String, List)}, with sipp's local UDP port chosen by the caller (a UAS others must reach). */
    public static Process start(final String name, final List<String> args, final int localPort) throws IOException
    {
        final Path dir = Files.createDirectories(Path.of("target", "sipp", name)).toAbsolutePath();
        final List<String> cmd = new ArrayList<>();
        cmd.add(BINARY.getPath());
        cmd.addAll(args);
        cmd.addAll(List.of("-nostdin", "-i", "127.0.0.1", "-p", Integer.toString(localPort),
            "-trace_stat", "-stf", dir.resolve("stat.csv").toString(), "-fd", "1",
            "-trace_screen", "-screen_file", dir.resolve("screen.log").toString(),
            "-trace_err", "-error_file", dir.resolve("errors.log").toString()));
        return new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
            .redirectOutput(dir.resolve("out.log").toFile()).start();
    }

    public static void stop(final Process p) throws InterruptedException
    {
        if (null != p)
        {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** The screen file sipp wrote at exit, or its output log, for assertion messages. */
    public static String report(final String name)
    {
        final Path dir = Path.of("target", "sipp", name);
        final StringBuilder sb = new StringBuilder();
        for (final String f : new String[] {"screen.log", "out.log", "errors.log"})
        {
            try
            {
                final List<String> lines = Files.readAllLines(dir.resolve(f));
                sb.append("== ").append(f).append('\n')
                    .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())))
                    .append('\n');
            }
            catch (final IOException e)
            {
                sb.append("== ").append(f).append(": ").append(e).append('\n');
            }
        }
        return sb.toString();
    }

    /**
     * The "Successful call" and "Failed call" cumulative counts from the last line of sipp's -trace_stat file
     * ({@code SuccessfulCall(C)}, {@code FailedCall(C)} columns), or {-1, -1}.
     */
    public static long[] successAndFailed(final String name)
    {
        return new long[] {statistic(name, "SuccessfulCall(C)"), statistic(name, "FailedCall(C)")};
    }

    /**
     * One cumulative column of the last line of sipp's -trace_stat file, e.g. {@code Retransmissions(C)} or
     * {@code OutOfCallMsgs(C)}; -1 when the file or the column is missing.
     */
    public static long statistic(final String name, final String column)
    {
        try
        {
            final List<String> lines = Files.readAllLines(Path.of("target", "sipp", name, "stat.csv"));
            if (lines.size() < 2)
            {
                return -1;
            }
            final String[] head = lines.get(0).split(";");
            final String[] last = lines.get(lines.size() - 1).split(";");
            for (int i = 0; i < head.length && i < last.length; i++)
            {
                if (column.equals(head[i]))
                {
                    return Long.parseLong(last[i].trim());
                }
            }
            return -1;
        }
        catch (final IOException | RuntimeException e)
        {
            return -1;
        }
    }

    /** Polls a condition until it holds or the deadline passes (no sleeps: yields between polls). */
    public static boolean await(final BooleanSupplier condition, final long timeoutMs) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        return true;
    }
}
