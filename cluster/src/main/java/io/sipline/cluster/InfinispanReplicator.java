package io.sipline.cluster;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.infinispan.Cache;
import org.infinispan.configuration.cache.CacheMode;
import org.infinispan.configuration.cache.ConfigurationBuilder;
import org.infinispan.configuration.global.GlobalConfigurationBuilder;
import org.infinispan.distribution.DistributionManager;
import org.infinispan.factories.ComponentRegistry;
import org.infinispan.manager.DefaultCacheManager;
import org.infinispan.remoting.transport.jgroups.JGroupsTransport;

import io.sipline.container.replication.ApplicationSnapshot;
import io.sipline.container.replication.SessionReplicator;
import io.sipline.container.replication.SnapshotCodec;

/**
 * One member of the embedded Infinispan grid that keeps distributable application sessions: a distributed cache
 * ({@code DIST_SYNC}) with one backup owner, one entry per application session holding its SIP sessions and timers
 * (so they live on one owner and its backup, never split), over JGroups TCP with a static member list (TCPPING): it
 * works on loopback and without multicast.
 *
 * <pre>
 *   key:   the application session's id (String)
 *   value: SnapshotCodec bytes (byte[]): the grid never sees an application class
 *   key:   "call:" + the Call-ID of each of its dialogs
 *   value: the application session's id, UTF-8: how a node that gets a request of a call it never saw finds it
 * </pre>
 * <p>
 * Thread-safe (Infinispan's cache); never called on a shard's event loop.
 */
public final class InfinispanReplicator implements SessionReplicator
{
    /** The cache of application sessions. */
    static final String CACHE = "sipline-sessions";
    /** Owners of an entry: its primary and one backup, so one member lost loses no session. */
    static final int OWNERS = 2;

    private final DefaultCacheManager manager;
    private final Cache<String, byte[]> sessions;

    private InfinispanReplicator(final DefaultCacheManager manager)
    {
        this.manager = manager;
        this.sessions = manager.getCache(CACHE);
    }

    /**
     * Joins the grid of {@code cluster} as the member on {@code bind}; returns once the member has joined (alone,
     * when no peer is up yet).
     */
    static InfinispanReplicator start(final String cluster, final InetSocketAddress bind,
        final List<InetSocketAddress> peers, final int node)
    {
        final GlobalConfigurationBuilder global = GlobalConfigurationBuilder.defaultClusteredBuilder();
        global.transport().clusterName(cluster).nodeName("sipline-node-" + node)
            .addProperty(JGroupsTransport.CONFIGURATION_STRING, JGroupsStack.tcp(bind, peers));
        global.jmx().enabled(false);
        final ConfigurationBuilder cache = new ConfigurationBuilder();
        cache.clustering().cacheMode(CacheMode.DIST_SYNC).hash().numOwners(OWNERS);
        final DefaultCacheManager manager = new DefaultCacheManager(global.build(), false);
        try
        {
            manager.defineConfiguration(CACHE, cache.build());
            manager.start();
            return new InfinispanReplicator(manager);
        }
        catch (final RuntimeException e)
        {
            manager.stop();
            throw e;
        }
    }

    /** The prefix of the keys that index an application session by the Call-ID of one of its dialogs. */
    static final String CALL_PREFIX = "call:";

    @Override
    public CompletionStage<Void> write(final ApplicationSnapshot snapshot)
    {
        final Map<String, byte[]> entries = new HashMap<>();
        entries.put(snapshot.id(), SnapshotCodec.encode(snapshot));
        final byte[] id = snapshot.id().getBytes(StandardCharsets.UTF_8);
        for (final ApplicationSnapshot.DialogSnapshot d : snapshot.sessions())
        {
            entries.put(CALL_PREFIX + d.callId(), id);
        }
        return sessions.putAllAsync(entries);
    }

    @Override
    public Optional<ApplicationSnapshot> read(final String id)
    {
        final byte[] bytes = sessions.get(id);
        return null == bytes ? Optional.empty() : Optional.of(SnapshotCodec.decode(bytes));
    }

    @Override
    public Optional<ApplicationSnapshot> readByCallId(final String callId)
    {
        final byte[] id = sessions.get(CALL_PREFIX + callId);
        return null == id ? Optional.empty() : read(new String(id, StandardCharsets.UTF_8));
    }

    @Override
    public CompletionStage<Void> remove(final String id)
    {
        return sessions.getAsync(id).thenCompose(bytes ->
        {
            final Map<String, byte[]> keys = new HashMap<>();
            if (null != bytes)
            {
                for (final ApplicationSnapshot.DialogSnapshot d : SnapshotCodec.decode(bytes).sessions())
                {
                    keys.put(CALL_PREFIX + d.callId(), null);
                }
            }
            keys.put(id, null);
            final CompletableFuture<?>[] removals = keys.keySet().stream().map(k -> sessions.removeAsync(k))
                .toArray(CompletableFuture<?>[]::new);
            return CompletableFuture.allOf(removals);
        });
    }

    /** The grid's members as this member sees them (their node names). */
    List<String> members()
    {
        final List<String> out = new ArrayList<>();
        manager.getMembers().forEach(a -> out.add(a.toString()));
        return out;
    }

    /** The node name of the member that is the primary owner of {@code id}. */
    String primaryOwner(final String id)
    {
        return ComponentRegistry.componentOf(sessions, DistributionManager.class).getCacheTopology().getDistribution(id)
            .primary().toString();
    }

    @Override
    public void close()
    {
        manager.stop();
    }
}
