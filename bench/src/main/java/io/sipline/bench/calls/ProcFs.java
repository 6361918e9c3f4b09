package io.sipline.bench.calls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the harness reads from Linux's {@code /proc}: CPU time of a process tree ({@code /proc/PID/stat} utime +
 * stime of the process and every descendant, so Kamailio's forked workers count) and the UDP sockets bound to a port
 * with their kernel drop counters ({@code /proc/net/udp} and {@code /proc/net/udp6}, last column: datagrams the
 * kernel dropped because the socket's receive buffer was full). Stateless; any thread.
 */
public final class ProcFs
{
    /** USER_HZ: the unit of utime and stime in /proc/PID/stat on Linux. */
    public static final long CLOCK_TICKS_PER_SECOND = 100;

    private ProcFs()
    {
    }

    /** utime + stime, in clock ticks, of {@code process} and all its live descendants. */
    public static long cpuTicks(final ProcessHandle process)
    {
        long ticks = ticksOf(process.pid());
        for (final ProcessHandle child : process.descendants().toList())
        {
            ticks += ticksOf(child.pid());
        }
        return ticks;
    }

    private static long ticksOf(final long pid)
    {
        try
        {
            final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // Fields after the command name in parentheses; utime and stime are fields 14 and 15 of proc(5).
            final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);
        }
        catch (final NoSuchFileException gone)
        {
            return 0; // the process ended between listing and reading
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Busy CPU time of the whole machine, in clock ticks, from the first line of {@code /proc/stat} (user, nice,
     * system, irq, softirq, steal): what every process used, ours and everybody else's.
     */
    public static long machineBusyTicks()
    {
        try
        {
            final String[] f = Files.readAllLines(Path.of("/proc/stat")).getFirst().trim().split("\\s+");
            return Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3]) + Long.parseLong(f[6])
                + Long.parseLong(f[7]) + Long.parseLong(f[8]);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Sockets bound to UDP {@code port} (any address) and their summed drop counts: {@code {sockets, drops}}.
     * SO_REUSEPORT shards show up as several sockets on one port.
     */
    public static long[] udpSockets(final int port)
    {
        final Map<Long, Long> drops = udpDrops(port);
        long sum = 0;
        for (final long d : drops.values())
        {
            sum += d;
        }
        return new long[] {drops.size(), sum};
    }

    /**
     * The drop count of every UDP socket bound to one of {@code ports} (any address), by the socket's inode: the
     * listening sockets and the connected ones a server opens on the same port for busy peers.
     */
    public static Map<Long, Long> udpDrops(final int... ports)
    {
        final Map<Long, Long> drops = new HashMap<>();
        for (final String table : new String[] {"/proc/net/udp", "/proc/net/udp6"})
        {
            final List<String> lines;
            try
            {
                lines = Files.readAllLines(Path.of(table));
            }
            catch (final IOException ex)
            {
                continue;
            }
            for (int i = 1; i < lines.size(); i++)
            {
                final String[] f = lines.get(i).trim().split("\\s+");
                final String local = f[1];
                if (f.length < 13 || !contains(ports, Integer.parseInt(local.substring(local.indexOf(':') + 1), 16)))
                {
                    continue;
                }
                drops.put(Long.parseLong(f[9]), Long.parseLong(f[f.length - 1]));
            }
        }
        return drops;
    }

    /**
     * Datagrams dropped between two {@link #udpDrops} snapshots: the growth of each socket seen in both, and every
     * drop of a socket opened since. A socket closed in between is not in {@code after}, so its drops of the interval
     * are not counted; its earlier ones never lower the sum (a plain difference of totals would go below zero when a
     * server closes a connected socket that had dropped datagrams before the interval).
     */
    public static long dropsBetween(final Map<Long, Long> before, final Map<Long, Long> after)
    {
        long sum = 0;
        for (final Map.Entry<Long, Long> e : after.entrySet())
        {
            sum += Math.max(0, e.getValue() - before.getOrDefault(e.getKey(), 0L));
        }
        return sum;
    }

    private static boolean contains(final int[] ports, final int port)
    {
        for (final int p : ports)
        {
            if (p == port)
            {
                return true;
            }
        }
        return false;
    }
}
