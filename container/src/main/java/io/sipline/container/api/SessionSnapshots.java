package io.sipline.container.api;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sipline.container.replication.ApplicationSnapshot;
import io.sipline.container.replication.ApplicationSnapshot.DialogSnapshot;
import io.sipline.container.replication.ApplicationSnapshot.TimerSnapshot;
import io.sipline.container.replication.SnapshotSink;

/**
 * The snapshots of a distributable application's sessions ({@code <distributable/>}, JSR 289) at their dialog
 * boundaries: made on the shard from the application session, its SIP sessions with their RFC 3261 §12 dialog
 * state, their Serializable attributes (serialized here, so that the application may change them afterwards) and the
 * pending servlet timers and expiry, then handed to the application's {@link SnapshotSink}, which writes from another
 * thread. A transaction in flight is not part of a snapshot. An application that is not distributable has no sink:
 * the check is one field read, with no allocation and no call.
 * <p>
 * Stateless; called on the application session's shard.
 */
final class SessionSnapshots
{
    private SessionSnapshots()
    {
    }

    /** A transaction of {@code s} completed (a final response sent or received): its application session's snapshot. */
    static void boundary(final SipSessionImpl s)
    {
        final SipApplicationSessionImpl app = s.appSession();
        final SnapshotSink sink = app.application().replication();
        if (null != sink && app.isValid())
        {
            sink.write(of(app, sink.node()));
        }
    }

    /** {@code app} was invalidated: its snapshot leaves the grid. */
    static void ended(final SipApplicationSessionImpl app)
    {
        final SnapshotSink sink = app.application().replication();
        if (null != sink)
        {
            sink.remove(app.getId());
        }
    }

    /** The snapshot of {@code app} now, as written by node {@code node}. */
    static ApplicationSnapshot of(final SipApplicationSessionImpl app, final int node)
    {
        final ClassLoader previous = ListenerLoader.enter(app.application()); // attributes' classes resolve there
        try
        {
            final List<SipSessionImpl> live = app.sipSessions();
            final List<DialogSnapshot> dialogs = new ArrayList<>(live.size());
            for (final SipSessionImpl s : live)
            {
                if (s.isValid())
                {
                    dialogs.add(dialog(s));
                }
            }
            final List<TimerSnapshot> timers = new ArrayList<>(2);
            for (final ServletTimerImpl t : app.timerList())
            {
                timers.add(new TimerSnapshot(t.getId(), t.scheduledExecutionTime(), t.period(), !t.fixedDelay(),
                    null == t.getInfo() ? null : serialize(t.getInfo())));
            }
            final Map<String, byte[]> attributes = new LinkedHashMap<>();
            final AttributeTable table = app.attributeTable();
            if (null != table)
            {
                for (final String name : table.names())
                {
                    put(attributes, name, table.get(name));
                }
            }
            final long expires = app.getExpirationTime();
            return new ApplicationSnapshot(app.getId(), app.getApplicationName(), node, app.nextSnapshotVersion(),
                app.getCreationTime(), Math.max(0, expires), attributes, dialogs, timers);
        }
        finally
        {
            ListenerLoader.exit(previous);
        }
    }

    private static DialogSnapshot dialog(final SipSessionImpl s)
    {
        final SessionDialog d = s.dialog;
        final Map<String, byte[]> attributes = new LinkedHashMap<>();
        final SessionAttributes table = s.attributeTable();
        if (null != table)
        {
            for (final Enumeration<String> names = table.names(); names.hasMoreElements();)
            {
                final String name = names.nextElement();
                put(attributes, name, table.get(name));
            }
        }
        final SipSessionImpl linked = s.linked();
        return new DialogSnapshot(s.getId(), s.state().name(), s.isUac(), s.handler(), d.callId(), d.localTag(),
            d.remoteTag(), d.localParty(), d.remoteParty(), d.remoteTarget(), d.routeSet(), d.localCseq(),
            d.remoteCseq(), null == linked ? null : linked.getId(), attributes);
    }

    /** JSR 289 distributable applications: only Serializable attributes travel; the others stay on this node. */
    private static void put(final Map<String, byte[]> out, final String name, final Object value)
    {
        final byte[] bytes = value instanceof Serializable v ? serialize(v) : null;
        if (null != bytes)
        {
            out.put(name, bytes);
        }
    }

    private static byte[] serialize(final Serializable value)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (ObjectOutputStream out = new ObjectOutputStream(bytes))
        {
            out.writeObject(value);
        }
        catch (final IOException e) // a field of it that is not Serializable: the attribute stays on this node
        {
            return null;
        }
        return bytes.toByteArray();
    }
}
