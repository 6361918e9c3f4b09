package io.sipline.container.cli;

import java.net.Inet4Address;
import java.net.InetAddress;

import picocli.CommandLine.Option;

/**
 * The {@code sipline run} flags of the media relay behind the media service, a picocli mixin of the run command: the
 * UDP port range, the address media sockets bind, the address written into SDP for peers behind or in front of a NAT,
 * the media threads and the idle time. Validated into a {@link RunOptions.Media} by {@link #options}.
 *
 * <p>Not thread-safe: filled by picocli, read once on the command's thread.
 */
final class MediaFlags
{
    private static final int PORT_MIN_DEFAULT = 20000;
    private static final int PORT_MAX_DEFAULT = 29999;

    @Option(names = "--media-ports", paramLabel = "MIN-MAX",
        description = "UDP ports of the media relay: RTP on even ports, RTCP on the odd one above, two pairs per "
            + "relayed stream. Default " + PORT_MIN_DEFAULT + "-" + PORT_MAX_DEFAULT + ".")
    String ports;

    @Option(names = "--media-bind", paramLabel = "ADDR",
        description = "IP address the media sockets bind. Default: the first --bind address.")
    String bind;

    @Option(names = "--media-advertise", paramLabel = "ADDR",
        description = "IP address written into SDP for peers to send media to (the public address of a relay behind "
            + "NAT). Default: the media bind address.")
    String advertise;

    @Option(names = "--media-threads", paramLabel = "N", defaultValue = "0",
        description = "Media threads, each owning its sockets; 0 (default): one per core.")
    int threads;

    @Option(names = "--media-idle", paramLabel = "SECONDS", defaultValue = "30",
        description = "An anchored stream with no packet either way for this long is reported to the application "
            + "(default ${DEFAULT-VALUE}); 0: never.")
    int idleSeconds;

    /**
     * @return the media relay's options.
     * @throws IllegalArgumentException naming the flag that is wrong.
     */
    RunOptions.Media options()
    {
        int min = PORT_MIN_DEFAULT;
        int max = PORT_MAX_DEFAULT;
        if (null != ports)
        {
            final String v = ports.strip();
            final int dash = v.indexOf('-');
            if (dash <= 0)
            {
                throw new IllegalArgumentException("--media-ports: '" + ports + "' is not a range like 20000-29999");
            }
            min = number(v.substring(0, dash));
            max = number(v.substring(dash + 1));
            if (min < 1024 || max > 65535 || min >= max)
            {
                throw new IllegalArgumentException("--media-ports: " + min + "-" + max +
                    " is not a range within 1024-65535 with the lower port first");
            }
            if (((min + 1) & ~1) + 1 > max)
            {
                throw new IllegalArgumentException("--media-ports: " + min + "-" + max +
                    " holds no even/odd port pair for RTP and RTCP");
            }
        }
        final InetAddress bindAddress = null == bind ? null : address("--media-bind", bind);
        final InetAddress advertised = null == advertise ? null : address("--media-advertise", advertise);
        if (null != advertised && advertised.isAnyLocalAddress())
        {
            throw new IllegalArgumentException("--media-advertise: " + advertise +
                " is a wildcard; give the address peers can send media to");
        }
        if (null != bindAddress && bindAddress.isAnyLocalAddress() && null == advertised)
        {
            throw new IllegalArgumentException("--media-bind " + bind +
                " binds every address: give --media-advertise, the address peers send media to");
        }
        if (null != bindAddress && null != advertised && !bindAddress.isAnyLocalAddress() &&
            bindAddress instanceof Inet4Address != advertised instanceof Inet4Address)
        {
            throw new IllegalArgumentException("--media-bind and --media-advertise must both be IPv4 or both IPv6");
        }
        if (threads < 0 || threads > 256)
        {
            throw new IllegalArgumentException("--media-threads: " + threads + " is not within 0-256");
        }
        if (idleSeconds < 0)
        {
            throw new IllegalArgumentException("--media-idle: must not be negative");
        }
        return new RunOptions.Media(min, max, bindAddress, advertised, threads, idleSeconds * 1000L);
    }

    private int number(final String text)
    {
        try
        {
            return Integer.parseInt(text.strip());
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException("--media-ports: '" + ports + "' is not a range like 20000-29999");
        }
    }

    private static InetAddress address(final String flag, final String value)
    {
        try
        {
            return InetAddress.ofLiteral(value.strip());
        }
        catch (final IllegalArgumentException e)
        {
            throw new IllegalArgumentException(flag + ": '" + value + "' is not an IP address");
        }
    }
}
