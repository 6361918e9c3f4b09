package io.sipline.container.dispatch;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import io.sipline.container.replication.ApplicationSnapshot;

/**
 * The calls a shard was handed to adopt (their owner left the grid and this node claimed them) and has not restored
 * yet, in the order they came, found by the Call-ID of any of their dialogs. The shard restores them a few at a time
 * ({@link #next}) between its other work, so that hundreds handed over at once never hold its requests up; a request
 * of one of them that arrives before its turn takes its call out at once ({@link #take}), without asking the grid
 * again, so it is served as soon as it comes rather than after the calls ahead of it.
 * <p>
 * Not threadsafe; owned by one shard's event loop. Keeps the snapshots it is given until they are taken; allocates
 * per call added (its map entries), never per request.
 */
final class AdoptionBacklog
{
    /** The calls waiting, by application session id, oldest first. */
    private final LinkedHashMap<String, ApplicationSnapshot> byId = new LinkedHashMap<>();
    /** The application session id of each waiting call's dialogs, by Call-ID. */
    private final Map<String, String> idByCallId = new HashMap<>();

    /** Adds {@code snapshot} at the end, unless its application session is waiting already. */
    void add(final ApplicationSnapshot snapshot)
    {
        if (null != byId.putIfAbsent(snapshot.id(), snapshot))
        {
            return;
        }
        for (final ApplicationSnapshot.DialogSnapshot d : snapshot.sessions())
        {
            idByCallId.put(d.callId(), snapshot.id());
        }
    }

    /** The waiting call one of whose dialogs has {@code callId}, taken out; null when none waits. */
    ApplicationSnapshot take(final String callId)
    {
        final String id = idByCallId.get(callId);
        return null == id ? null : remove(id);
    }

    /** The oldest waiting call, taken out; null when none waits. */
    ApplicationSnapshot next()
    {
        final Iterator<String> ids = byId.keySet().iterator();
        return ids.hasNext() ? remove(ids.next()) : null;
    }

    /** Whether no call waits. */
    boolean isEmpty()
    {
        return byId.isEmpty();
    }

    /** Calls waiting. */
    int size()
    {
        return byId.size();
    }

    private ApplicationSnapshot remove(final String id)
    {
        final ApplicationSnapshot snapshot = byId.remove(id);
        if (null != snapshot)
        {
            for (final ApplicationSnapshot.DialogSnapshot d : snapshot.sessions())
            {
                idByCallId.remove(d.callId(), id);
            }
        }
        return snapshot;
    }
}
