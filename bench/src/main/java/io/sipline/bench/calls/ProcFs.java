package io.sipline.bench.calls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

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
        long sockets = 0;
        long drops = 0;
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
                if (f.length < 13 || Integer.parseInt(local.substring(local.indexOf(':') + 1), 16) != port)
                {
                    continue;
                }
                sockets++;
                drops += Long.parseLong(f[f.length - 1]);
            }
        }
        return new long[] {sockets, drops};
    }
}
