package io.sipline.cluster;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.StringJoiner;

/**
 * The JGroups stack of the grid, as the XML JGroups reads: TCP on this member's address, members found from a static
 * list (TCPPING: no multicast, so loopback and clouds work), failure detection by socket and heartbeat, reliable
 * unicast and multicast over TCP, flow control and fragmentation.
 * <p>
 * Stateless; thread-safe.
 */
final class JGroupsStack
{
    /** How long a silent member is suspected before it leaves the view: a dead node's calls wait this long. */
    static final int FAILURE_TIMEOUT_MS = 6_000;

    private JGroupsStack()
    {
    }

    /** The stack for the member on {@code bind} with the other members {@code peers}. */
    static String tcp(final InetSocketAddress bind, final List<InetSocketAddress> peers)
    {
        final StringJoiner hosts = new StringJoiner(",");
        hosts.add(host(bind));
        for (final InetSocketAddress p : peers)
        {
            hosts.add(host(p));
        }
        return "<config xmlns=\"urn:org:jgroups\">"
            + "<TCP bind_addr=\"" + bind.getAddress().getHostAddress() + "\" bind_port=\"" + bind.getPort()
            + "\" port_range=\"0\" recv_buf_size=\"256k\" send_buf_size=\"256k\" sock_conn_timeout=\"300\"/>"
            + "<TCPPING initial_hosts=\"" + hosts + "\" port_range=\"0\"/>"
            + "<MERGE3 min_interval=\"5000\" max_interval=\"15000\"/>"
            + "<FD_SOCK2/>"
            + "<FD_ALL3 timeout=\"" + FAILURE_TIMEOUT_MS + "\" interval=\"" + FAILURE_TIMEOUT_MS / 4 + "\"/>"
            + "<VERIFY_SUSPECT2 timeout=\"1000\"/>"
            + "<pbcast.NAKACK2 use_mcast_xmit=\"false\"/>"
            + "<UNICAST3/>"
            + "<pbcast.STABLE desired_avg_gossip=\"5000\" max_bytes=\"1M\"/>"
            + "<pbcast.GMS join_timeout=\"2000\" print_local_addr=\"false\"/>"
            + "<UFC max_credits=\"2M\"/>"
            + "<MFC max_credits=\"2M\"/>"
            + "<FRAG4 frag_size=\"60000\"/>"
            + "</config>";
    }

    /** {@code addr[port]}, as TCPPING lists its hosts. */
    private static String host(final InetSocketAddress a)
    {
        return a.getAddress().getHostAddress() + "[" + a.getPort() + "]";
    }
}
