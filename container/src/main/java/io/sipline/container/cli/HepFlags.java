package io.sipline.container.cli;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import io.sipline.sip.capture.HepConfig;
import picocli.CommandLine.Option;

/**
 * The {@code sipline run} flags of HEPv3 capture, a picocli mixin of the run command: the collector's address (a
 * Homer {@code heplify-server} or any HEP collector on UDP), the capture agent id and the optional password. Validated
 * into a {@link HepConfig} by {@link #options()}.
 *
 * <p>Not thread-safe: filled by picocli, read once on the command's thread.
 */
final class HepFlags
{
    /** The capture agent id when {@code --hep-id} is not given. */
    static final long DEFAULT_ID = 1;
    private static final long MAX_ID = 0xFFFF_FFFFL;

    @Option(names = "--hep", paramLabel = "ADDR:PORT",
        description = "Mirror every SIP message received and sent, on every transport, to this HEPv3 collector over "
            + "UDP (Homer's heplify-server listens on 9060), like 10.0.0.5:9060 or [2001:db8::5]:9060. A collector "
            + "that cannot keep up loses captures (counted in /metrics), never SIP. Off by default.")
    String collector;

    @Option(names = "--hep-id", paramLabel = "N",
        description = "The capture agent id Homer files this server's messages under, 0-4294967295 "
            + "(default " + DEFAULT_ID + ").")
    Long id;

    @Option(names = "--hep-password", paramLabel = "P",
        description = "The password the collector expects in each capture (HEP authentication key chunk). "
            + "Default: none.")
    String password;

    /**
     * @return the capture, or null when {@code --hep} was not given.
     * @throws IllegalArgumentException naming the flag that is wrong.
     */
    HepConfig options()
    {
        if (null == collector)
        {
            if (null != id || null != password)
            {
                throw new IllegalArgumentException("--hep-id and --hep-password need --hep ADDR:PORT");
            }
            return null;
        }
        final long captureId = null == id ? DEFAULT_ID : id;
        if (captureId < 0 || captureId > MAX_ID)
        {
            throw new IllegalArgumentException("--hep-id: " + captureId + " is out of range (0-4294967295)");
        }
        if (null != password && password.isEmpty())
        {
            throw new IllegalArgumentException("--hep-password is empty; leave it out for no password");
        }
        try
        {
            return new HepConfig(collector(collector.strip()), (int)captureId, password);
        }
        catch (final IllegalArgumentException e)
        {
            throw new IllegalArgumentException("--hep" + (e.getMessage().contains("password") ? "-password: " : ": ")
                + e.getMessage(), e);
        }
    }

    /** {@code host:port}, {@code a.b.c.d:port} or {@code [v6]:port}, resolved now. */
    static InetSocketAddress collector(final String value)
    {
        final String host;
        final String port;
        if (value.startsWith("["))
        {
            final int close = value.indexOf(']');
            if (close < 0 || close + 1 >= value.length() || value.charAt(close + 1) != ':')
            {
                throw new IllegalArgumentException("'" + value + "' is not [IPv6]:PORT");
            }
            host = value.substring(1, close);
            port = value.substring(close + 2);
        }
        else
        {
            final int colon = value.lastIndexOf(':');
            if (colon <= 0)
            {
                throw new IllegalArgumentException("'" + value + "' has no port: give ADDR:PORT, like 10.0.0.5:9060");
            }
            if (value.indexOf(':') != colon)
            {
                throw new IllegalArgumentException("'" + value + "': write an IPv6 address in brackets, like "
                    + "[2001:db8::5]:9060");
            }
            host = value.substring(0, colon);
            port = value.substring(colon + 1);
        }
        final int number = PortList.port(port, port);
        try
        {
            return new InetSocketAddress(InetAddress.getByName(host), number);
        }
        catch (final UnknownHostException e)
        {
            throw new IllegalArgumentException("'" + host + "' does not resolve", e);
        }
    }
}
