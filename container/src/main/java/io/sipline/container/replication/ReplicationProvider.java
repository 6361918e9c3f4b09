package io.sipline.container.replication;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * A grid that can stand behind {@link SessionReplicator}, found with {@link ServiceLoader} when the server runs in a
 * cluster ({@code --cluster-name}): a server without one on its class path, or outside a cluster, loads no grid and
 * pays nothing.
 * <p>
 * Threading: {@link #start} is called once, on the thread that starts the server.
 */
public interface ReplicationProvider
{
    /** The grid's name for the start-up line (like {@code Infinispan 16.0}). */
    String name();

    /**
     * Joins the grid as one member.
     *
     * @param cluster the cluster's name: members of other clusters never join this one.
     * @param bind    this member's address (TCP).
     * @param peers   the other members' addresses, a static list.
     * @param node    this node's number in the cluster.
     * @return the member's replicator; the caller closes it.
     */
    SessionReplicator start(String cluster, InetSocketAddress bind, List<InetSocketAddress> peers, int node);

    /** The first provider on the class path of {@code loader}, or empty when there is none. */
    static Optional<ReplicationProvider> find(final ClassLoader loader)
    {
        return ServiceLoader.load(ReplicationProvider.class, loader).findFirst();
    }
}
