package io.sipline.container;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import io.sipline.container.cli.Cli;
import io.sipline.container.cli.RunOptions;
import io.sipline.sip.transport.ShardCounters;
import io.sipline.sip.transport.StatelessResponder;
import io.sipline.sip.transport.UdpBindException;
import io.sipline.sip.transport.UdpTransport;
import io.sipline.sip.transport.UdpTransportConfig;

/**
 * The server's entry point, as {@code bin/sipline run} starts it:
 * {@code java <profile args> -cp ... io.sipline.container.Main run --profile NAME [options]}.
 *
 * <p>Until the container lands (issue 4) the server is the sharded UDP transport with the {@link StatelessResponder}:
 * OPTIONS gets 200, other requests 404 "No Application Deployed". It prints one line per listening address, then
 * {@code sipline: ready}. SIGTERM or SIGINT runs a shutdown hook that closes the channels and stops the shards
 * gracefully within {@value #SHUTDOWN_MILLIS} ms, prints {@code sipline: stopped}, and ends the process with exit
 * code 0 (1 when a shard did not stop in time). A port that cannot be bound ends it at once with one line naming the
 * address and the cause, and exit code 1; a usage error exits with 2.
 *
 * <p>Threading: runs on the main thread, which returns once the server is up; the shard threads keep the JVM alive.
 */
public final class Main
{
    /** The bound on a graceful stop. */
    public static final long SHUTDOWN_MILLIS = 5_000;

    private Main()
    {
    }

    public static void main(final String[] args)
    {
        // One line per log record ("sipline: WARNING: ..."), set before the first logger is made.
        if (null == System.getProperty("java.util.logging.SimpleFormatter.format"))
        {
            System.setProperty("java.util.logging.SimpleFormatter.format", "sipline: %4$s: %5$s%6$s%n");
        }
        final PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        final PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        final int code = Cli.execute(args, out, err, Main::serve);
        if (Cli.SERVING != code)
        {
            System.exit(code);
        }
    }

    /** Starts the transport; prints where it listens and "ready". */
    static int serve(final RunOptions options, final PrintWriter out, final PrintWriter err)
    {
        final UdpTransportConfig config =
            new UdpTransportConfig(options.bind(), options.allUdpPorts(), options.shards(), true);
        final UdpTransport transport;
        try
        {
            transport = UdpTransport.start(config, StatelessResponder.factory());
        }
        catch (final UdpBindException e)
        {
            err.println("sipline: " + e.getMessage());
            return 1;
        }
        final Thread hook = new Thread(() -> stop(transport, out, err), "sipline-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);

        final int n = transport.shardCount();
        final String how = " (" + n + (1 == n ? " shard, " : " shards, ") + transport.ioName() + ")";
        for (final InetSocketAddress endpoint : transport.localAddresses())
        {
            out.println("sipline: listening on " + UdpTransport.describe(endpoint) + how);
        }
        out.println("sipline: ready");
        return Cli.SERVING;
    }

    /**
     * The shutdown hook: stop within the bound, report, and end the process with 0. A JVM ended by a signal would
     * otherwise exit with 128 + the signal number even after a clean stop; {@code halt} from the last hook is how a
     * signal-driven stop reports success.
     */
    private static void stop(final UdpTransport transport, final PrintWriter out, final PrintWriter err)
    {
        out.println("sipline: stopping");
        final boolean clean = transport.close(SHUTDOWN_MILLIS);
        final ShardCounters totals = transport.totals();
        if (clean)
        {
            out.println("sipline: stopped (" + totals + ")");
        }
        else
        {
            err.println("sipline: shards did not stop within " + SHUTDOWN_MILLIS + " ms; exiting anyway");
        }
        out.flush();
        err.flush();
        Runtime.getRuntime().halt(clean ? 0 : 1);
    }
}
