package io.sipline.container.cli;

import java.net.InetAddress;
import java.util.List;

/**
 * The validated options of {@code sipline run}.
 *
 * @param bind     the addresses to listen on, at least one, no duplicates.
 * @param port     the SIP port, 1 to 65535.
 * @param udpPorts the extra UDP ports, none equal to {@code port}.
 * @param shards   the number of event-loop shards.
 * @param profile  the GC profile the launcher started the JVM with (informational here).
 */
public record RunOptions(List<InetAddress> bind, int port, PortList udpPorts, int shards, String profile)
{
    public RunOptions
    {
        bind = List.copyOf(bind);
    }

    /** {@link #port()} first, then the extra UDP ports. */
    public int[] allUdpPorts()
    {
        final int[] extra = udpPorts.ports();
        final int[] all = new int[extra.length + 1];
        all[0] = port;
        System.arraycopy(extra, 0, all, 1, extra.length);
        return all;
    }
}
