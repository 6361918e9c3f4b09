package io.sipline.container.dispatch;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.sipline.container.api.SessionTakeover;
import io.sipline.container.api.SipApplicationSessionImpl;
import io.sipline.container.replication.ApplicationSnapshot;
import io.sipline.container.replication.SnapshotSource;
import io.sipline.container.replication.Takeover;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.shard.ShardIds;
import io.sipline.sip.stack.StackShard;
import io.sipline.sip.transaction.ServerTransaction;

/**
 * A survivor's part in a cluster's failover: an in-dialog request this shard finds no session for, whose To tag
 * another node of the cluster made, belongs to a call of a node that died (the front sends such requests to a live
 * node); one whose To tag this node made, to a call of this node's earlier life when it was started again on the
 * same address (the front sends it back here once it answers again). The shard keeps the server transaction and a
 * copy of the request, asks the grid for the call's snapshot by Call-ID on a reading thread ({@link SnapshotSource}),
 * and when the answer is posted back to the shard restores the application session and its SIP sessions
 * ({@link SessionTakeover}) and dispatches the request again. The call is claimed in the grid first: one that another
 * live node claimed (it took the call over when its owner left the grid) gets 503, and the front tries its next node
 * (RFC 3261 §21.5.4). The calls this node claimed when their owner left the grid come in batches ({@link #adopt});
 * they wait in an {@link AdoptionBacklog} and are restored {@value #ADOPT_PER_TASK} per task on the shard, so that
 * its requests go on between; a request of one still waiting restores it at once, without a read of the grid.
 * The request gets 481 as any request of an unknown dialog
 * (RFC 3261 §12.2.2) when the grid holds no snapshot, one of an application not deployed here as distributable, or
 * one of a call that ended on this shard (created by this node since it started, or taken over here before): a
 * request crossing the end of a call is not made a call again while the grid's removal is in flight.
 * Retransmissions meanwhile are absorbed by the transaction (§17.2.2: it has nothing to send yet); other requests of
 * the same call wait with the first.
 * <p>
 * Not threadsafe; owned by the shard's event loop. The read's callback only posts to that loop. Allocates per
 * takeover (a copy of the request, the read), never on a request of a known call.
 */
final class CallTakeover
{
    /** Dispatches a request again once its call is restored, without trying a takeover a second time. */
    interface Redispatch
    {
        void dispatch(ServerTransaction tx, SipMessage request);
    }

    private final ApplicationRegistry registry;
    private final ContainerShardImpl container;
    private final StackShard shard;
    private final DirectAnswers answers;
    private final Redispatch redispatch;
    /** The calls claimed when their owner left the grid, not restored yet. */
    private final AdoptionBacklog backlog = new AdoptionBacklog();
    /** Whether a task that restores the backlog is posted. */
    private boolean draining;
    /** The requests waiting for their call's read, by Call-ID. */
    private final Map<String, List<Waiting>> pending = new HashMap<>();
    /** The application sessions taken over by this shard (the newest {@link #TAKEN_KEPT}): ended here when gone. */
    private final Map<String, Boolean> taken = new java.util.LinkedHashMap<>(64, 0.75f, false)
    {
        @Override
        protected boolean removeEldestEntry(final Map.Entry<String, Boolean> eldest)
        {
            return size() > TAKEN_KEPT;
        }
    };
    /** When this node started (epoch ms): a call of its own tag created before is one of its earlier life. */
    private final long startedMs;
    private final java.util.concurrent.atomic.AtomicLong restored = new java.util.concurrent.atomic.AtomicLong();

    private record Waiting(ServerTransaction tx, SipMessage request)
    {
    }

    /** How many taken-over application session ids a shard remembers (a call ends long before it is forgotten). */
    static final int TAKEN_KEPT = 16_384;
    /** Adopted calls restored per task: the shard's I/O and timers run between two tasks. */
    static final int ADOPT_PER_TASK = 16;

    CallTakeover(final ApplicationRegistry registry, final ContainerShardImpl container, final DirectAnswers answers,
        final Redispatch redispatch)
    {
        this.registry = registry;
        this.container = container;
        this.shard = container.shard();
        this.answers = answers;
        this.redispatch = redispatch;
        this.startedMs = container.currentTimeMillis();
    }

    /**
     * An in-dialog request of no known session: whether the grid is asked for its call (the request then waits
     * here and is answered later), or not (outside a cluster, an ACK or CANCEL, a To tag of no node of ours: the
     * caller answers 481).
     *
     * @param message borrowed; copied when kept.
     */
    boolean missed(final ServerTransaction tx, final SipMessage message)
    {
        final SnapshotSource source = registry.takeover();
        final SipMethod method = message.method();
        if (null == source || SipMethod.ACK == method || SipMethod.CANCEL == method)
        {
            return false;
        }
        final int owner = ShardIds.nodeOf(message.buffer(), message.toTagStart(), message.toTagEnd());
        if (owner < 0)
        {
            return false; // not a tag of ours: nothing to take over
        }
        final boolean own = owner == shard.ids().node(); // this node's: of its earlier life, or one that ended
        final String callId = message.callId();
        final List<Waiting> waiting = pending.get(callId);
        if (null != waiting)
        {
            waiting.add(new Waiting(tx, message.copy()));
            return true;
        }
        final ApplicationSnapshot adopted = backlog.take(callId);
        if (null != adopted) // claimed by this node as its owner left, not restored yet: at once, ahead of its turn
        {
            serve(List.of(new Waiting(tx, message)), restoreQuietly(callId, adopted));
            return true;
        }
        final List<Waiting> first = new ArrayList<>(2);
        first.add(new Waiting(tx, message.copy()));
        pending.put(callId, first);
        final int index = shard.index();
        source.takeOver(callId, owner, found -> shard.stack().execute(index, () -> loaded(callId, found, own)));
        return true;
    }

    /**
     * The grid's answer for {@code callId}, on the shard: the call restored and its requests dispatched, or 481.
     *
     * @param own whether the request's To tag is this node's.
     */
    private void loaded(final String callId, final Takeover found, final boolean own)
    {
        final List<Waiting> waiting = pending.remove(callId);
        if (null == waiting)
        {
            return;
        }
        if (found.elsewhere())
        {
            for (final Waiting w : waiting) // the front tries its next node (cluster/kamailio/kamailio.cfg)
            {
                answers.answer(w.tx(), w.request(), 503, "Served By Node " + found.owner());
            }
            return;
        }
        serve(waiting, Optional.ofNullable(found.snapshot()).filter(snapshot -> !own
            || snapshot.createdMs() < startedMs).map(snapshot -> restoreQuietly(callId, snapshot)).orElse(null));
    }

    /** {@link #restore}, or null (said once) when the snapshot cannot be restored. */
    private SipApplicationSessionImpl restoreQuietly(final String callId, final ApplicationSnapshot snapshot)
    {
        try
        {
            return restore(snapshot);
        }
        catch (final RuntimeException e)
        {
            ShardLog.logOnce("takeover:" + e.getClass().getName(), "call " + callId + " not taken over on shard "
                + shard.index(), e);
            return null;
        }
    }

    /** Dispatches the requests of a call restored as {@code app}, or answers them 481 when it was not. */
    private void serve(final List<Waiting> waiting, final SipApplicationSessionImpl app)
    {
        for (final Waiting w : waiting)
        {
            if (null == app)
            {
                answers.answer(w.tx(), w.request(), 481, "Call/Transaction Does Not Exist");
                continue;
            }
            try
            {
                redispatch.dispatch(w.tx(), w.request());
            }
            catch (final RuntimeException e)
            {
                ShardLog.logOnce("dispatch:" + e.getClass().getName(), "dispatch failed on shard " + shard.index(), e);
                answers.answer(w.tx(), w.request(), 500, "Server Internal Error (" + e.getClass().getName() + ")");
            }
        }
    }

    /**
     * Calls this node claimed when their owner left the grid (on the shard): queued, and restored a few per task.
     */
    void adopt(final List<ApplicationSnapshot> snapshots)
    {
        snapshots.forEach(backlog::add);
        if (!draining && !backlog.isEmpty())
        {
            draining = true;
            shard.stack().execute(shard.index(), this::drainBacklog);
        }
    }

    /** Restores up to {@link #ADOPT_PER_TASK} waiting calls, and posts itself again while some wait. */
    private void drainBacklog()
    {
        for (int i = 0; i < ADOPT_PER_TASK; i++)
        {
            final ApplicationSnapshot next = backlog.next();
            if (null == next)
            {
                break;
            }
            adoptOne(next);
        }
        if (backlog.isEmpty())
        {
            draining = false;
            return;
        }
        shard.stack().execute(shard.index(), this::drainBacklog); // behind what came meanwhile
    }

    /**
     * A call this node claimed when its owner left the grid, restored on this shard with no request of it: its
     * servlet timers and expiry run here from now on (one overdue fires at once, a passed expiry expires it with the
     * application's listeners told, JSR 289 §6.1.2.1). Nothing when a request of it brought it here first.
     */
    private void adoptOne(final ApplicationSnapshot snapshot)
    {
        if (taken.containsKey(snapshot.id()))
        {
            return; // taken over here and ended: the grid's removal is still in flight
        }
        try
        {
            if (null == restore(snapshot))
            {
                ShardLog.logOnce("adopt:" + snapshot.application(), "call " + snapshot.id() + " of application "
                    + snapshot.application() + " not taken over on shard " + shard.index()
                    + ": the application is not deployed here as distributable", null);
            }
        }
        catch (final RuntimeException e)
        {
            ShardLog.logOnce("adopt:" + e.getClass().getName(), "call " + snapshot.id() + " not taken over on shard "
                + shard.index(), e);
        }
    }

    /** The snapshot's application session on this shard, or null when its application is not distributable here. */
    private SipApplicationSessionImpl restore(final ApplicationSnapshot snapshot)
    {
        final SipApplicationSessionImpl known = container.sessions().application(snapshot.id());
        if (null != known && known.isValid())
        {
            return known; // another of its dialogs brought it here first
        }
        if (taken.containsKey(snapshot.id()))
        {
            return null; // taken over here and ended: the grid's removal is still in flight
        }
        final RunningApplicationImpl application = registry.application(snapshot.application());
        if (null == application || null == application.replication())
        {
            return null;
        }
        final SipApplicationSessionImpl app = SessionTakeover.restore(application, container, snapshot);
        taken.put(snapshot.id(), Boolean.TRUE);
        restored.lazySet(restored.get() + 1); // one writer: the shard
        return app;
    }

    /** Application sessions taken over by this shard (shard only; tests and metrics). */
    long restored()
    {
        return restored.get();
    }

    /** Adopted calls not restored yet (shard only; tests). */
    int adoptable()
    {
        return backlog.size();
    }

    /** Requests waiting for their call's read (shard only; tests). */
    int waiting()
    {
        return pending.size();
    }
}
