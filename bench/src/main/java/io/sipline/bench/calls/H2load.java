package io.sipline.bench.calls;

import java.io.File;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code h2load} (nghttp2's load client; Debian's {@code nghttp2-client}) as the client of {@code bench calls
 * --http-load}: native, one thread on an event loop, it sends HTTP/1.1 GETs at a fixed rate for a fixed time at a
 * small part of the CPU the JDK's client ({@link HttpLoad}) needs for the same requests, so that the load generator
 * does not take the cores the measured server and sipp need. The rate is spread over {@link #clients} keep-alive
 * connections, each with one request in flight ({@code --rps} per connection): offered requests that find their
 * connection busy wait and are sent as soon as it answers, so a slow server delays them rather than losing them; at
 * the end of the time, whatever is still waiting is {@code not sent}.
 * <p>
 * h2load reports only when its time is over (a signal ends it without a report), so it is given the step's length
 * ({@code -D}) and runs under {@code sh}, whose {@code times} then prints the CPU h2load used (POSIX: the user and
 * system time of the shell's waited-for children). {@link #summary} reads both from the output.
 * <p>
 * Threading: static functions, no state.
 */
final class H2load
{
    /** Connections at most: a bound on requests in flight, as {@link HttpLoad#MAX_IN_FLIGHT} is for the JDK's. */
    static final int MAX_CLIENTS = 64;

    private static final Pattern FINISHED = Pattern.compile("^finished in (\\S+?),", Pattern.MULTILINE);
    private static final Pattern REQUESTS = Pattern.compile("^requests: (\\d+) total, (\\d+) started, (\\d+) done, "
        + "(\\d+) succeeded, (\\d+) failed, (\\d+) errored, (\\d+) timeout", Pattern.MULTILINE);
    private static final Pattern STATUS = Pattern.compile("^status codes: (\\d+) 2xx, (\\d+) 3xx, (\\d+) 4xx, "
        + "(\\d+) 5xx", Pattern.MULTILINE);
    /** min, max, mean of the answered requests. */
    private static final Pattern REQUEST_TIME = Pattern.compile("^time for request:\\s+(\\S+)\\s+(\\S+)\\s+(\\S+)",
        Pattern.MULTILINE);
    /** A line of {@code times}: user and system time, e.g. {@code 0m1.234s 0m0.050s} (bash) or {@code 0m1.234000s}. */
    private static final Pattern TIMES = Pattern.compile("^(\\d+)m(\\d+(?:\\.\\d+)?)s (\\d+)m(\\d+(?:\\.\\d+)?)s$",
        Pattern.MULTILINE);
    /** h2load's durations: {@code 512us}, {@code 1.20ms}, {@code 20.00s}. */
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(us|ms|s)");

    private H2load()
    {
    }

    /** {@code h2load} on the {@code PATH}, if installed. */
    static Optional<Path> binary()
    {
        final String path = System.getenv("PATH");
        if (null == path)
        {
            return Optional.empty();
        }
        for (final String dir : path.split(File.pathSeparator))
        {
            final Path candidate = Path.of(dir.isEmpty() ? "." : dir, "h2load");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate))
            {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** Connections for {@code rate} requests/s: one per 16 requests/s, 1 to {@link #MAX_CLIENTS}. */
    static int clients(final int rate)
    {
        return Math.max(1, Math.min(MAX_CLIENTS, rate / 16));
    }

    /**
     * {@code nice -n NICE sh -c '"$0" "$@"; times' BINARY --h1 -c C --rps RATE/C -D MSms URI}: {@code rate} GETs per
     * second over HTTP/1.1 for {@code millis} ms, then h2load's CPU time.
     */
    static List<String> command(final Path binary, final URI uri, final int rate, final long millis, final int nice)
    {
        final int c = clients(rate);
        return List.of("nice", "-n", Integer.toString(nice), "sh", "-c", "\"$0\" \"$@\"; times", binary.toString(),
            "--h1", "-c", Integer.toString(c), "--rps", String.format(Locale.ROOT, "%.6f", rate / (double) c), "-D",
            millis + "ms", uri.toString());
    }

    /**
     * The summary of one run from its output ({@link #command}'s standard output), {@code rate} having been offered
     * for {@code plannedSeconds}; empty when h2load printed none (it did not start, or was stopped before its time was
     * over). The cores are its CPU time over the time it ran ({@code finished in}).
     */
    static Optional<HttpLoadSummary> summary(final String output, final URI uri, final int rate,
        final double plannedSeconds)
    {
        final Matcher finished = FINISHED.matcher(output);
        final Matcher requests = REQUESTS.matcher(output);
        final Matcher status = STATUS.matcher(output);
        final Matcher time = REQUEST_TIME.matcher(output);
        if (!finished.find() || !requests.find() || !status.find() || !time.find())
        {
            return Optional.empty();
        }
        final long started = Long.parseLong(requests.group(2));
        final long otherStatus = Long.parseLong(status.group(2)) + Long.parseLong(status.group(3))
            + Long.parseLong(status.group(4));
        final long offered = Math.round(rate * plannedSeconds);
        final double ran = seconds(finished.group(1));
        final double cores = childrenCpuSeconds(output) / Math.max(1e-9, ran);
        return Optional.of(new HttpLoadSummary("h2load", uri, rate, ran, started, Long.parseLong(status.group(1)),
            otherStatus, Long.parseLong(requests.group(6)), Math.max(0, offered - started),
            seconds(time.group(3)) * 1e3, seconds(time.group(2)) * 1e3, cores));
    }

    /** One of h2load's durations in seconds. */
    static double seconds(final String duration)
    {
        final Matcher m = DURATION.matcher(duration);
        if (!m.matches())
        {
            throw new IllegalArgumentException("not an h2load duration: " + duration);
        }
        final double value = Double.parseDouble(m.group(1));
        return switch (m.group(2))
        {
            case "us" -> value / 1e6;
            case "ms" -> value / 1e3;
            default -> value;
        };
    }

    /** User and system seconds of the second {@code times} line (the shell's children); NaN without one. */
    private static double childrenCpuSeconds(final String output)
    {
        final Matcher m = TIMES.matcher(output);
        if (!m.find() || !m.find())
        {
            return Double.NaN;
        }
        return Long.parseLong(m.group(1)) * 60 + Double.parseDouble(m.group(2)) + Long.parseLong(m.group(3)) * 60
            + Double.parseDouble(m.group(4));
    }
}
