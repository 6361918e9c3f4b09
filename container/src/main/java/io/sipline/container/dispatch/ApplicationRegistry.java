package io.sipline.container.dispatch;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

import javax.servlet.sip.SipURI;
import javax.servlet.sip.ar.SipApplicationRouter;

import io.sipline.container.deploy.DeployedApplication;
import io.sipline.container.deploy.DeploymentException;
import io.sipline.container.deploy.DeploymentListener;
import io.sipline.container.factory.SipFactoryImpl;
import io.sipline.container.security.ApplicationSecurity;
import io.sipline.container.security.DigestAuthenticator;
import io.sipline.container.security.DigestClient;
import io.sipline.container.security.UserRealm;
import io.sipline.container.api.ContainerShard;
import io.sipline.container.api.SipApplicationSessionImpl;
import io.sipline.container.replication.ApplicationSnapshot;
import io.sipline.sip.shard.ShardIds;

/**
 * The running applications and the application router, shared by every shard: the deployment side tells it what was
 * deployed ({@link DeploymentListener}); it starts each application (servlets and listeners initialised) and then
 * publishes a new immutable map of running applications in a volatile field, which shards read without a lock.
 * Also finds shards for application sessions created off the shards.
 * <p>
 * Threading: {@link #onDeployed}/{@link #onUndeployed} on the deploying thread (serialized by this object's
 * monitor, never taken on a shard); {@link #application}, {@link #isEmpty} and the shard picker from any thread.
 */
public final class ApplicationRegistry implements DeploymentListener, SipFactoryImpl.ShardPicker
{
    private final SipApplicationRouter router;
    private final UserRealm users;
    private final DigestClient digestClient = new DigestClient();
    private volatile Map<String, RunningApplicationImpl> applications = Map.of();
    private volatile ContainerShardImpl[] shards = new ContainerShardImpl[0];
    private volatile List<SipURI> outboundInterfaces = List.of();
    private volatile Map<String, Object> contextAttributes = Map.of();
    private volatile io.sipline.container.replication.SnapshotSink replication;
    private volatile io.sipline.container.replication.SnapshotSource takeover;
    /** The Route header value to the cluster's front, or null (see {@link #clusterFront(String)}). */
    private volatile String frontRoute;
    private final AtomicInteger nextShard = new AtomicInteger();

    /** @param router the application router, initialised by the caller; no users (protected requests fail). */
    public ApplicationRegistry(final SipApplicationRouter router)
    {
        this(router, UserRealm.empty());
    }

    /**
     * @param router the application router, initialised by the caller.
     * @param users  the users digest authentication checks against (the {@code --users} file).
     */
    public ApplicationRegistry(final SipApplicationRouter router, final UserRealm users)
    {
        this.router = router;
        this.users = Objects.requireNonNull(users, "users");
    }

    /** The container's digest client for {@code addAuthHeader} (thread-safe). */
    public DigestClient digestClient()
    {
        return digestClient;
    }

    public SipApplicationRouter router()
    {
        return router;
    }

    /** The running application of that name, or null (any thread). */
    public RunningApplicationImpl application(final String name)
    {
        return null == name ? null : applications.get(name);
    }

    /** True when no application runs (the server answers as without a container: OPTIONS 200, else 404). */
    public boolean isEmpty()
    {
        return applications.isEmpty();
    }

    /** The running applications, by name (an immutable snapshot). */
    public Map<String, RunningApplicationImpl> applications()
    {
        return applications;
    }

    @Override
    public void onDeployed(final DeployedApplication application) throws DeploymentException
    {
        final ApplicationSecurity security =
            ApplicationSecurity.create(application.descriptor(), users, DigestAuthenticator.Settings.DEFAULTS);
        final RunningApplicationImpl running = new RunningApplicationImpl(application, this, security);
        running.start();
        synchronized (this)
        {
            final Map<String, RunningApplicationImpl> next = new LinkedHashMap<>(applications);
            next.put(application.name(), running);
            applications = Map.copyOf(next);
        }
        router.applicationDeployed(List.of(application.name()));
    }

    @Override
    public void onUndeployed(final DeployedApplication application)
    {
        final RunningApplicationImpl running;
        synchronized (this)
        {
            running = applications.get(application.name());
            if (null == running || running.deployed() != application)
            {
                return;
            }
            final Map<String, RunningApplicationImpl> next = new LinkedHashMap<>(applications);
            next.remove(application.name());
            applications = Map.copyOf(next);
        }
        router.applicationUndeployed(List.of(application.name()));
        running.stop();
    }

    /** The {@code OUTBOUND_INTERFACES} of every application, published once the stack bound its ports. */
    void outboundInterfaces(final List<SipURI> value)
    {
        outboundInterfaces = List.copyOf(value);
    }

    List<SipURI> outboundInterfaces()
    {
        return outboundInterfaces;
    }

    /**
     * A {@code ServletContext} attribute of every application deployed from now on (a container service such as
     * the media service), set before the application's listeners and servlets start.
     *
     * @param name  the attribute name.
     * @param value its value.
     */
    public synchronized void contextAttribute(final String name, final Object value)
    {
        final Map<String, Object> next = new LinkedHashMap<>(contextAttributes);
        next.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
        contextAttributes = Map.copyOf(next);
    }

    /**
     * Where distributable applications deployed from now on leave their sessions' snapshots (the cluster's grid);
     * and where a shard reads the call of another node that it does not know ({@link CallTakeover}); set once the
     * server joined the grid, before the deploy folders are watched.
     */
    public void replication(final io.sipline.container.replication.SnapshotSink sink,
        final io.sipline.container.replication.SnapshotSource source)
    {
        replication = sink;
        takeover = source;
        if (null != source)
        {
            source.adoptOrphans(this::adopt);
        }
    }

    /**
     * Calls this node claimed when their owner left the grid (on the grid's adopter thread): each goes to the shard
     * its requests reach here, the one its local tag names as {@code ShardRouting} finds it (else its Call-ID's), one
     * task per shard for the batch, to be restored there.
     */
    private void adopt(final List<ApplicationSnapshot> snapshots)
    {
        final ContainerShardImpl[] all = shards;
        if (0 == all.length)
        {
            return;
        }
        final Map<Integer, List<ApplicationSnapshot>> byShard = new HashMap<>();
        for (final ApplicationSnapshot snapshot : snapshots)
        {
            if (!snapshot.sessions().isEmpty())
            {
                byShard.computeIfAbsent(shardFor(snapshot, all.length), k -> new ArrayList<>()).add(snapshot);
            }
        }
        byShard.forEach((index, batch) ->
        {
            final ContainerShardImpl target = all[index];
            target.shard().stack().execute(target.shard().index(), () -> target.adopt(batch));
        });
    }

    /** The shard of {@code snapshot}'s requests: its local tag's, else its Call-ID's. */
    private static int shardFor(final ApplicationSnapshot snapshot, final int shards)
    {
        final ApplicationSnapshot.DialogSnapshot d = snapshot.sessions().stream()
            .filter(x -> null != x.localTag()).findFirst().orElse(snapshot.sessions().get(0));
        int index = null == d.localTag() ? -1 : shardOf(d.localTag());
        if (index < 0 || index >= shards)
        {
            index = shardOf(d.callId());
        }
        if (index < 0 || index >= shards)
        {
            final byte[] callId = d.callId().getBytes(StandardCharsets.UTF_8);
            index = ShardIds.shardForCallId(callId, 0, callId.length, shards);
        }
        return index;
    }

    private static int shardOf(final String id)
    {
        final byte[] b = id.getBytes(StandardCharsets.UTF_8);
        return ShardIds.shardOf(b, 0, b.length);
    }

    /**
     * The cluster's front ({@code --cluster-front}), a loose-routing SIP URI: the initial requests this node sends as
     * a user agent get a Route to it (RFC 3261 §8.1.2, an outbound proxy), so that the front Record-Routes their
     * dialogs and the far end's requests come back through it, to this node or, when it died, to a live one. Null:
     * they go to their Request-URI. Set before the deploy folders are watched.
     */
    public void clusterFront(final String looseRouteUri)
    {
        frontRoute = null == looseRouteUri ? null : "<" + looseRouteUri + ">";
    }

    /** The Route header value to the cluster's front, or null (any thread). */
    String frontRoute()
    {
        return frontRoute;
    }

    /** Where the calls of other nodes are read from, or null outside a cluster (any thread). */
    io.sipline.container.replication.SnapshotSource takeover()
    {
        return takeover;
    }

    /** The grid's sink, or null outside a cluster (any thread). */
    io.sipline.container.replication.SnapshotSink replication()
    {
        return replication;
    }

    Map<String, Object> contextAttributes()
    {
        return contextAttributes;
    }

    /** The shards' runtimes, published once the stack started. */
    void shards(final ContainerShardImpl[] value)
    {
        shards = value.clone();
    }

    ContainerShardImpl[] shards()
    {
        return shards;
    }

    @Override
    public ContainerShard current()
    {
        for (final ContainerShardImpl s : shards)
        {
            if (s.onShardThread())
            {
                return s;
            }
        }
        return null;
    }

    @Override
    public ContainerShard next()
    {
        final ContainerShardImpl[] all = shards;
        if (0 == all.length)
        {
            throw new IllegalStateException("the server is not running");
        }
        return all[Math.floorMod(nextShard.getAndIncrement(), all.length)];
    }

    @Override
    public ContainerShard forKey(final String key)
    {
        final ContainerShardImpl[] all = shards;
        if (0 == all.length)
        {
            throw new IllegalStateException("the server is not running");
        }
        return all[Math.floorMod(key.hashCode(), all.length)];
    }

    @Override
    public SipApplicationSessionImpl byKey(final String applicationName, final String key)
    {
        for (final ContainerShardImpl s : shards)
        {
            final SipApplicationSessionImpl found = s.sessions().applicationByKey(applicationName, key);
            if (null != found)
            {
                return found;
            }
        }
        return null;
    }

    /** An application session by id on any shard, or null (any thread). */
    SipApplicationSessionImpl applicationSession(final String id)
    {
        for (final ContainerShardImpl s : shards)
        {
            final SipApplicationSessionImpl found = s.sessions().application(id);
            if (null != found)
            {
                return found;
            }
        }
        return null;
    }
}
