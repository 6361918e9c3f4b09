package io.sipline.container.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.sipline.test.Sipp;

/**
 * One sipp caller run to its end against the server, with its figures; the end-to-end tests' way of driving calls.
 * <p>
 * Threading: used by one test thread.
 */
public record SippRun(String name, long successful, long failed, int exitCode, long millis)
{
    /** The bound on one sipp run beyond its own duration. */
    static final long SLACK_MS = 60_000;

    /**
     * Runs a sipp caller ({@code -m calls -r rate}) to the server and waits for it to end.
     *
     * @param scenario {@code -sn uac} or {@code -sf FILE} and any other arguments, without the destination.
     */
    static SippRun call(final String name, final SiplineServer server, final int calls, final int rate,
        final long expectedMs, final List<String> scenario) throws IOException, InterruptedException
    {
        return call(name, server.port(), calls, rate, expectedMs, scenario);
    }

    /** As {@link #call(String, SiplineServer, int, int, long, List)}, to any UDP port on loopback (a front). */
    public static SippRun call(final String name, final int port, final int calls, final int rate,
        final long expectedMs, final List<String> scenario) throws IOException, InterruptedException
    {
        final List<String> args = new ArrayList<>(scenario);
        args.addAll(List.of("-m", Integer.toString(calls), "-r", Integer.toString(rate), "-l", "1000",
            "-timeout", Long.toString((expectedMs + SLACK_MS) / 1000) + "s", "-timeout_error",
            "127.0.0.1:" + port));
        final long start = System.nanoTime();
        Process p = null;
        try
        {
            p = Sipp.start(name, args);
            final boolean ended = p.waitFor(expectedMs + SLACK_MS + 10_000, TimeUnit.MILLISECONDS);
            final long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(ended, "sipp " + name + " did not end in time:\n" + Sipp.report(name));
            final long[] counts = Sipp.successAndFailed(name);
            return new SippRun(name, counts[0], counts[1], p.exitValue(), millis);
        }
        finally
        {
            Sipp.stop(p);
        }
    }

    /**
     * Starts a sipp callee on {@code port} for {@code calls} calls ({@code -m}); it exits once they are done.
     *
     * @param scenario {@code -sn uas} or {@code -sf FILE}.
     */
    public static Process callee(final String name, final int port, final int calls,
        final List<String> scenario) throws IOException
    {
        final List<String> args = new ArrayList<>(scenario);
        args.addAll(List.of("-m", Integer.toString(calls)));
        return Sipp.start(name, args, port);
    }

    /**
     * Waits (bounded) for a callee started by {@link #callee} to end and checks every one of its calls succeeded:
     * the B2BUA delivered each INVITE, CANCEL, ACK and BYE the scenario expects.
     */
    public static SippRun awaitCallee(final String name, final Process callee, final int calls,
        final SiplineServer server)
        throws InterruptedException
    {
        final long start = System.nanoTime();
        final boolean ended = callee.waitFor(SLACK_MS, TimeUnit.MILLISECONDS);
        final long[] counts = Sipp.successAndFailed(name);
        final SippRun run = new SippRun(name, counts[0], counts[1], ended ? callee.exitValue() : -1,
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        assertTrue(ended, "callee " + run + " did not end\n" + Sipp.report(name) + "\n== server\n" + server.output());
        run.assertAll(calls, server);
        return run;
    }

    /**
     * Calls through the server: starts a sipp callee on {@code calleePort} ({@code NAME-uas}), runs a sipp caller
     * ({@code NAME-uac}) to its end, and checks every call succeeded on both sides.
     *
     * @return the caller's and the callee's runs.
     */
    static SippRun[] callThrough(final String name, final SiplineServer server, final int calleePort, final int calls,
        final int rate, final long expectedMs, final List<String> calleeScenario, final List<String> callerScenario)
        throws IOException, InterruptedException
    {
        final Process callee = callee(name + "-uas", calleePort, calls, calleeScenario);
        try
        {
            final SippRun caller = call(name + "-uac", server, calls, rate, expectedMs, callerScenario);
            caller.assertAll(calls, server);
            return new SippRun[] {caller, awaitCallee(name + "-uas", callee, calls, server)};
        }
        finally
        {
            Sipp.stop(callee);
        }
    }

    /** Checks every call succeeded, with sipp's report and the server's output in the message. */
    public void assertAll(final int calls, final SiplineServer server)
    {
        final String why = this + "\n" + Sipp.report(name) + "\n== server\n" + server.output();
        assertEquals(calls, successful, why);
        assertEquals(0, failed, why);
        assertEquals(0, exitCode, why);
    }

    /** Whether sipp run NAME's built-in UAS counted the ACK of its call ({@code -trace_counts}, every second). */
    static boolean acked(final String name)
    {
        try (Stream<Path> files = Files.list(Path.of("target", "sipp", name)))
        {
            for (final Path f : files.filter(p -> p.getFileName().toString().endsWith("_counts.csv")).toList())
            {
                final List<String> lines = Files.readAllLines(f);
                if (lines.size() < 2)
                {
                    continue;
                }
                final List<String> columns = List.of(lines.getFirst().split(";"));
                final String[] last = lines.getLast().split(";");
                final int i = columns.indexOf("3_ACK_Recv");
                if (i >= 0 && i < last.length && Long.parseLong(last[i].trim()) > 0)
                {
                    return true;
                }
            }
            return false;
        }
        catch (final IOException | RuntimeException e)
        {
            return false;
        }
    }

    @Override
    public String toString()
    {
        return "sipp " + name + ": " + successful + " successful, " + failed + " failed calls in " + millis
            + " ms (exit " + exitCode + ")";
    }
}
