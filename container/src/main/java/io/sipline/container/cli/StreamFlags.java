package io.sipline.container.cli;

import io.sipline.sip.transport.tcp.StreamSettings;
import picocli.CommandLine.Option;

/**
 * The {@code sipline run} flags that bound SIP over TCP and TLS against connection abuse, a picocli mixin of the run
 * command: the message timeout (slowloris, headers that never end, connections opened and left silent) and the
 * connection caps in all and per IP address. Validated into a {@link RunOptions.StreamLimits} by {@link #options}.
 *
 * <p>Not thread-safe: filled by picocli, read once on the command's thread.
 */
final class StreamFlags
{
    @Option(names = "--tcp-message-timeout", paramLabel = "MS",
        defaultValue = "" + StreamSettings.DEFAULT_MESSAGE_TIMEOUT_MILLIS,
        description = "A SIP message on a TCP or TLS connection must arrive whole within MS milliseconds of its first "
            + "byte, and an accepted connection must send its first message (TLS handshake included) within MS of "
            + "its accept; else the connection is closed and counted (message_timeouts). A WebSocket message on a "
            + "WS or WSS connection has the same MS from its first byte (closed with 1008). 0: never (default "
            + "${DEFAULT-VALUE}).")
    long messageTimeoutMillis;

    @Option(names = "--tcp-max-connections", paramLabel = "N",
        defaultValue = "" + StreamSettings.DEFAULT_MAX_CONNECTIONS,
        description = "Accepted TCP and TLS connections open at once over all ports; more are closed at the accept "
            + "and counted (over_max_connections). 0: no limit but the file descriptors (default ${DEFAULT-VALUE}).")
    int maxConnections;

    @Option(names = "--tcp-max-per-address", paramLabel = "N",
        defaultValue = "" + StreamSettings.DEFAULT_MAX_PER_ADDRESS,
        description = "Accepted TCP and TLS connections open at once from one IP address; more are closed at the "
            + "accept and counted (over_max_per_address). 0: no limit (default ${DEFAULT-VALUE}).")
    int maxPerAddress;

    /**
     * @return the limits.
     * @throws IllegalArgumentException naming the flag that is wrong.
     */
    RunOptions.StreamLimits options()
    {
        if (messageTimeoutMillis < 0 || messageTimeoutMillis > 3_600_000)
        {
            throw new IllegalArgumentException("--tcp-message-timeout: " + messageTimeoutMillis
                + " is not within 0-3600000 ms");
        }
        if (maxConnections < 0 || maxPerAddress < 0)
        {
            throw new IllegalArgumentException("--tcp-max-connections and --tcp-max-per-address must not be negative");
        }
        return new RunOptions.StreamLimits(messageTimeoutMillis, maxConnections, maxPerAddress);
    }
}
