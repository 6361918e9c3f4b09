package io.sipline.cluster;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntConsumer;

import org.infinispan.Cache;
import org.infinispan.commons.util.CloseableIterator;
import org.infinispan.container.entries.CacheEntry;
import org.infinispan.context.Flag;
import org.infinispan.configuration.cache.CacheMode;
import org.infinispan.configuration.cache.ConfigurationBuilder;
import org.infinispan.configuration.global.GlobalConfigurationBuilder;
import org.infinispan.distribution.DistributionManager;
import org.infinispan.distribution.ch.ConsistentHash;
import org.infinispan.distribution.ch.KeyPartitioner;
import org.infinispan.distribution.group.Grouper;
import org.infinispan.factories.ComponentRegistry;
import org.infinispan.factories.GlobalComponentRegistry;
import org.infinispan.manager.DefaultCacheManager;
import org.infinispan.notifications.Listener;
import org.infinispan.notifications.cachelistener.annotation.TopologyChanged;
import org.infinispan.notifications.cachelistener.event.TopologyChangedEvent;
import org.infinispan.remoting.transport.Address;
import org.infinispan.remoting.transport.Transport;
import org.infinispan.remoting.transport.jgroups.JGroupsTransport;

import org.jgroups.protocols.MsgStats;
import org.jgroups.protocols.TP;

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
 *   key:   "owner:" + the application session's id, grouped with it (same owner members)
 *   value: the number of the node that serves it (Integer): set by each write, moved by a claim (a conditional
 *          replace, atomic on the entry's primary owner)
 * </pre>
 * When a member leaves, each survivor looks through the owner records it holds as primary owner in the first topology
 * without the member (the same on every survivor, whatever rebalance follows): every record has exactly one primary
 * among the live members, so the dead node's sessions are split among the survivors without a message between them.
 * <p>
 * Thread-safe (Infinispan's cache); never called on a shard's event loop.
 */
public final class InfinispanReplicator implements SessionReplicator
{
    /** The cache of application sessions. */
    static final String CACHE = "sipline-sessions";
    /** Owners of an entry: its primary and one backup, so one member lost loses no session. */
    static final int OWNERS = 2;

    /** The prefix of the keys of owner records. */
    static final String OWNER_PREFIX = "owner:";
    private static final String NODE_NAME = "sipline-node-";

    private final DefaultCacheManager manager;
    private final Cache<String, Object> sessions;
    private final int node;
    private final List<IntConsumer> leaveWatchers = new CopyOnWriteArrayList<>();
    /** The placement of the entries when each departed node was seen leaving: who decides for its sessions. */
    private final Map<Integer, ConsistentHash> decidedBy = new ConcurrentHashMap<>();
    /** Bytes of keys and values handed to the grid in writes. */
    private final LongAdder written = new LongAdder();
    /** The counters of JGroups' transport under the grid: the bytes it sent. */
    private final MsgStats transportStats;

    private InfinispanReplicator(final DefaultCacheManager manager, final int node)
    {
        this.manager = manager;
        this.sessions = manager.getCache(CACHE);
        this.node = node;
        final TP transport = ((JGroupsTransport)GlobalComponentRegistry.componentOf(manager, Transport.class))
            .getChannel().getProtocolStack().getTransport();
        transport.enableStats(true); // the transport's message counters; the stack's other protocols stay quiet
        this.transportStats = transport.getMessageStats();
        sessions.addListener(new Departures());
    }

    /** An owner record lives where its application session's entry lives. */
    static final class OwnerGrouper implements Grouper<String>
    {
        @Override
        public Object computeGroup(final String key, final Object group)
        {
            return key.startsWith(OWNER_PREFIX) ? key.substring(OWNER_PREFIX.length()) : group;
        }

        @Override
        public Class<String> getKeyType()
        {
            return String.class;
        }
    }

    /** Tells the watchers of each member gone from the topology, once the survivors hold its entries. */
    @Listener(sync = false)
    public final class Departures
    {
        @TopologyChanged
        public void changed(final TopologyChangedEvent<String, Object> event)
        {
            if (event.isPre() || null == event.getWriteConsistentHashAtStart())
            {
                return;
            }
            final List<Address> after = event.getWriteConsistentHashAtEnd().getMembers();
            for (final Address a : event.getWriteConsistentHashAtStart().getMembers())
            {
                final int gone = nodeOf(a);
                if (!after.contains(a) && gone >= 0 && gone != node)
                {
                    // every survivor decides by this topology's primaries, though a rebalance may follow at once
                    decidedBy.put(gone, event.getReadConsistentHashAtEnd());
                    leaveWatchers.forEach(w -> w.accept(gone));
                }
            }
        }
    }

    /** The node number of a member (its node name {@code sipline-node-N}), or -1. */
    static int nodeOf(final Address member)
    {
        final String name = member.toString();
        if (!name.startsWith(NODE_NAME))
        {
            return -1;
        }
        try
        {
            return Integer.parseInt(name.substring(NODE_NAME.length()));
        }
        catch (final NumberFormatException e)
        {
            return -1;
        }
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
        cache.clustering().cacheMode(CacheMode.DIST_SYNC).hash().numOwners(OWNERS).groups().enabled()
            .addGrouper(new OwnerGrouper());
        final DefaultCacheManager manager = new DefaultCacheManager(global.build(), false);
        try
        {
            manager.defineConfiguration(CACHE, cache.build());
            manager.start();
            return new InfinispanReplicator(manager, node);
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
        final Map<String, Object> entries = new HashMap<>();
        final byte[] value = SnapshotCodec.encode(snapshot);
        entries.put(snapshot.id(), value);
        entries.put(OWNER_PREFIX + snapshot.id(), snapshot.node());
        final byte[] id = snapshot.id().getBytes(StandardCharsets.UTF_8);
        // keys as UTF-8, the owner as an int: what each entry holds, before the grid's marshalling and framing
        long bytes = id.length + value.length + OWNER_PREFIX.length() + id.length + Integer.BYTES;
        for (final ApplicationSnapshot.DialogSnapshot d : snapshot.sessions())
        {
            entries.put(CALL_PREFIX + d.callId(), id);
            bytes += CALL_PREFIX.length() + utf8Length(d.callId()) + id.length;
        }
        written.add(bytes);
        return sessions.putAllAsync(entries);
    }

    /** The length of {@code s} in UTF-8, without encoding it (a Call-ID is ASCII but for rare exceptions). */
    static int utf8Length(final String s)
    {
        int n = 0;
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            if (c < 0x80)
            {
                n++;
            }
            else if (c < 0x800)
            {
                n += 2;
            }
            else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1)))
            {
                n += 4;
                i++;
            }
            else
            {
                n += 3;
            }
        }
        return n;
    }

    @Override
    public long bytesWritten()
    {
        return written.sum();
    }

    @Override
    public long bytesSent()
    {
        return transportStats.getNumBytesSent();
    }

    @Override
    public Optional<ApplicationSnapshot> read(final String id)
    {
        return sessions.get(id) instanceof byte[] bytes ? Optional.of(SnapshotCodec.decode(bytes)) : Optional.empty();
    }

    @Override
    public Optional<ApplicationSnapshot> readByCallId(final String callId)
    {
        return sessions.get(CALL_PREFIX + callId) instanceof byte[] id ? read(new String(id, StandardCharsets.UTF_8))
            : Optional.empty();
    }

    @Override
    public CompletionStage<Void> remove(final String id)
    {
        return sessions.getAsync(id).thenCompose(value ->
        {
            final Map<String, Object> keys = new HashMap<>();
            if (value instanceof byte[] bytes)
            {
                for (final ApplicationSnapshot.DialogSnapshot d : SnapshotCodec.decode(bytes).sessions())
                {
                    keys.put(CALL_PREFIX + d.callId(), null);
                }
            }
            keys.put(id, null);
            keys.put(OWNER_PREFIX + id, null);
            final CompletableFuture<?>[] removals = keys.keySet().stream().map(k -> sessions.removeAsync(k))
                .toArray(CompletableFuture<?>[]::new);
            return CompletableFuture.allOf(removals);
        });
    }

    @Override
    public int owner(final String id)
    {
        return sessions.get(OWNER_PREFIX + id) instanceof Integer owner ? owner : -1;
    }

    @Override
    public boolean claim(final String id, final int from, final int to)
    {
        final String key = OWNER_PREFIX + id;
        // a replace retried by the grid after a topology change may say false though it applied: read it back
        return from != to && sessions.replace(key, from, to) || Integer.valueOf(to).equals(sessions.get(key));
    }

    @Override
    public List<String> claimAll(final List<String> ids, final int from, final int to)
    {
        final Integer was = from;
        final Integer now = to;
        final List<CompletableFuture<Boolean>> claims = new ArrayList<>(ids.size());
        for (final String id : ids)
        {
            final String key = OWNER_PREFIX + id;
            // every replace of the batch is sent before any answer is awaited; one that says false is read back
            claims.add(from == to ? sessions.getAsync(key).thenApply(now::equals)
                : sessions.replaceAsync(key, was, now).thenCompose(won -> won ? CompletableFuture.completedFuture(true)
                    : sessions.getAsync(key).thenApply(now::equals)));
        }
        final List<String> out = new ArrayList<>(ids.size());
        for (int i = 0; i < ids.size(); i++)
        {
            if (claims.get(i).join())
            {
                out.add(ids.get(i));
            }
        }
        return out;
    }

    @Override
    public Map<String, ApplicationSnapshot> readAll(final Collection<String> ids)
    {
        final Set<String> keys = new HashSet<>(ids);
        final Map<String, ApplicationSnapshot> out = new HashMap<>();
        // one request per member that owns some of them
        sessions.getAdvancedCache().getAll(keys).forEach((id, value) ->
        {
            if (value instanceof byte[] bytes)
            {
                out.put(id, SnapshotCodec.decode(bytes));
            }
        });
        return out;
    }

    @Override
    public List<String> ownedBy(final int owner)
    {
        final ConsistentHash placement = decidedBy.getOrDefault(owner, ComponentRegistry.componentOf(sessions,
            DistributionManager.class).getCacheTopology().getReadConsistentHash());
        final KeyPartitioner segments = ComponentRegistry.componentOf(sessions, KeyPartitioner.class);
        final Address self = manager.getAddress();
        final Integer wanted = owner;
        final List<String> out = new ArrayList<>();
        // this member's entries only (no remote call, no function sent to other members)
        try (CloseableIterator<CacheEntry<String, Object>> local = sessions.getAdvancedCache()
            .withFlags(Flag.CACHE_MODE_LOCAL, Flag.SKIP_CACHE_LOAD).cacheEntrySet().iterator())
        {
            while (local.hasNext())
            {
                final CacheEntry<String, Object> e = local.next();
                if (e.getKey().startsWith(OWNER_PREFIX) && wanted.equals(e.getValue())
                    && self.equals(placement.locatePrimaryOwnerForSegment(segments.getSegment(e.getKey()))))
                {
                    out.add(e.getKey().substring(OWNER_PREFIX.length()));
                }
            }
        }
        return out;
    }

    @Override
    public boolean member(final int n)
    {
        for (final Address a : manager.getMembers())
        {
            if (nodeOf(a) == n)
            {
                return true;
            }
        }
        return false;
    }

    @Override
    public void onMemberLeft(final IntConsumer left)
    {
        leaveWatchers.add(left);
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
