package io.sipline.cluster;

import java.net.InetSocketAddress;
import java.util.List;

import io.sipline.container.replication.ReplicationProvider;
import io.sipline.container.replication.SessionReplicator;

/**
 * The embedded Infinispan grid as the container's {@link ReplicationProvider}, listed in
 * {@code META-INF/services}: a server started with {@code --cluster-name} and this module on its class path joins
 * the grid through it.
 * <p>
 * Stateless; thread-safe.
 */
public final class InfinispanReplicationProvider implements ReplicationProvider
{
    @Override
    public String name()
    {
        return "Infinispan " + org.infinispan.commons.util.Version.getMajorMinor();
    }

    @Override
    public SessionReplicator start(final String cluster, final InetSocketAddress bind,
        final List<InetSocketAddress> peers, final int node)
    {
        return InfinispanReplicator.start(cluster, bind, peers, node);
    }
}
