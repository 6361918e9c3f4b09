package io.sipline.container.replication;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;

/**
 * A grid held in memory for tests, shared by the nodes of one test: snapshots as the bytes a real grid stores, indexed
 * by Call-ID, each with its owner; a claim is a compare-and-set of the owner, as in a real grid. Each node sees it
 * through its own {@link #member member view}: the member that decides for a session after a node left is the live
 * member at {@code hash(id) mod members}, as a real grid's primary owner is one live member per key. Reads by Call-ID
 * wait for {@link #readsMayGo}, so a test can hold a takeover in the middle; a departed node's calls, once listed, wait
 * for {@link #adoptionMayGo}, so a test can hold an adoption before its claims.
 * <p>
 * Thread-safe.
 */
public final class MemoryGrid
{
    public final Map<String, byte[]> entries = new ConcurrentHashMap<>();
    public final Map<String, String> byCallId = new ConcurrentHashMap<>();
    public final Map<String, Integer> owners = new ConcurrentHashMap<>();
    public final CountDownLatch readsMayGo = new CountDownLatch(1);
    public final AtomicInteger reads = new AtomicInteger();
    /** Claims that moved a session to a new owner. */
    public final AtomicInteger claimed = new AtomicInteger();
    /** Departed nodes' calls listed by a member for adoption. */
    public final AtomicInteger listings = new AtomicInteger();
    /** Released unless a test holds the adoptions of departed nodes' calls: {@code ownedBy} waits for it. */
    public volatile CountDownLatch adoptionMayGo = new CountDownLatch(0);
    /** The sizes of the batches claimed with {@code claimAll}, in order. */
    public final List<Integer> claimBatches = new CopyOnWriteArrayList<>();
    private final Set<Integer> live = ConcurrentHashMap.newKeySet();
    private final Map<Integer, List<IntConsumer>> watchers = new ConcurrentHashMap<>();

    /** Node {@code node} joins: the grid as that node's writer sees it. */
    public SessionReplicator member(final int node)
    {
        live.add(node);
        return new View(node);
    }

    /** Node {@code node} leaves (it died): every other member is told. */
    public void leave(final int node)
    {
        live.remove(node);
        watchers.forEach((member, list) ->
        {
            if (member != node && live.contains(member))
            {
                list.forEach(w -> w.accept(node));
            }
        });
    }

    /** Node {@code node} leaves the view without anyone being told (a test computing who would decide). */
    public void leaveQuietly(final int node)
    {
        live.remove(node);
    }

    /** The snapshot of application session {@code id}; fails when there is none. */
    public ApplicationSnapshot read(final String id)
    {
        return SnapshotCodec.decode(java.util.Objects.requireNonNull(entries.get(id), id));
    }

    /** The live member that decides for {@code id}. */
    public int decider(final String id)
    {
        final List<Integer> members = new ArrayList<>(live);
        members.sort(null);
        return members.isEmpty() ? -1 : members.get(Math.floorMod(id.hashCode(), members.size()));
    }

    /** Whether the call of {@code callId} is in the grid with {@code sessions} confirmed dialogs. */
    public boolean holds(final String callId, final int sessions)
    {
        final String id = byCallId.get(callId);
        final byte[] bytes = null == id ? null : entries.get(id);
        return null != bytes && sessions == SnapshotCodec.decode(bytes).sessions().stream()
            .filter(d -> "CONFIRMED".equals(d.state())).count();
    }

    /** The id of the application session of {@code callId}, or null. */
    public String idOf(final String callId)
    {
        return byCallId.get(callId);
    }

    private final class View implements SessionReplicator
    {
        private final int node;
        /** Bytes of the encoded snapshots this member wrote. */
        private final AtomicLong bytes = new AtomicLong();

        View(final int node)
        {
            this.node = node;
        }

        @Override
        public CompletionStage<Void> write(final ApplicationSnapshot snapshot)
        {
            final byte[] encoded = SnapshotCodec.encode(snapshot);
            bytes.addAndGet(encoded.length);
            entries.put(snapshot.id(), encoded);
            owners.put(snapshot.id(), snapshot.node());
            snapshot.sessions().forEach(d -> byCallId.put(d.callId(), snapshot.id()));
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public Optional<ApplicationSnapshot> read(final String id)
        {
            return Optional.ofNullable(entries.get(id)).map(SnapshotCodec::decode);
        }

        @Override
        public Optional<ApplicationSnapshot> readByCallId(final String callId)
        {
            reads.incrementAndGet();
            try
            {
                readsMayGo.await(10, TimeUnit.SECONDS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            final String id = byCallId.get(callId);
            return null == id ? Optional.empty() : read(id);
        }

        @Override
        public CompletionStage<Void> remove(final String id)
        {
            // the entry goes last: a test that waits for it to go then finds the owner and Call-ID records gone too
            owners.remove(id);
            byCallId.values().removeIf(id::equals);
            entries.remove(id);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public int owner(final String id)
        {
            return owners.getOrDefault(id, -1);
        }

        @Override
        public boolean claim(final String id, final int from, final int to)
        {
            if (from == to)
            {
                return Integer.valueOf(to).equals(owners.get(id));
            }
            if (owners.replace(id, from, to))
            {
                claimed.incrementAndGet();
                return true;
            }
            return Integer.valueOf(to).equals(owners.get(id));
        }

        @Override
        public List<String> claimAll(final List<String> ids, final int from, final int to)
        {
            claimBatches.add(ids.size());
            return SessionReplicator.super.claimAll(ids, from, to);
        }

        @Override
        public List<String> ownedBy(final int owner)
        {
            final List<String> out = new ArrayList<>();
            owners.forEach((id, n) ->
            {
                if (n == owner && decider(id) == node)
                {
                    out.add(id);
                }
            });
            listings.incrementAndGet();
            try
            {
                adoptionMayGo.await(10, TimeUnit.SECONDS); // listed, not claimed yet
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            return out;
        }

        @Override
        public boolean member(final int n)
        {
            return live.contains(n);
        }

        @Override
        public void onMemberLeft(final IntConsumer left)
        {
            watchers.computeIfAbsent(node, k -> new CopyOnWriteArrayList<>()).add(left);
        }

        @Override
        public long bytesWritten()
        {
            return bytes.get();
        }

        @Override
        public long bytesSent()
        {
            return -1; // nothing goes over a network
        }

        @Override
        public void close()
        {
        }
    }
}
