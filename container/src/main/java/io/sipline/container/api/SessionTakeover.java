package io.sipline.container.api;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.servlet.sip.SipSession;

import io.sipline.container.replication.ApplicationSnapshot;
import io.sipline.container.replication.ApplicationSnapshot.DialogSnapshot;
import io.sipline.container.replication.ApplicationSnapshot.TimerSnapshot;

/**
 * Takes over on this shard the application session of a distributable application ({@code <distributable/>}, JSR
 * 289) that another node of the cluster wrote to the grid ({@link SessionSnapshots}) and can no longer serve: the
 * application session with the same id, creation time, expiry and attributes; its SIP sessions with the same ids,
 * sides, handlers, states and RFC 3261 §12 dialogs (Call-ID, tags, parties, remote target, route set, CSeqs),
 * registered in the shard's table under their local tags; the B2BUA links between them; its servlet timers armed
 * again for the time they were due (at once when it passed). Attributes are read back with the application's class
 * loader; one whose class is not there stays behind and is said on the error stream. The sessions moved, they were
 * not created: only their activation listeners are told ({@link SessionActivation}). The transactions in flight at
 * the writing node are not in a snapshot.
 * <p>
 * Stateless; called on the shard the call's requests reach.
 */
public final class SessionTakeover
{
    private SessionTakeover()
    {
    }

    /**
     * Restores {@code snapshot} of {@code application} on {@code host}.
     *
     * @return the application session, registered, with its SIP sessions.
     * @throws IllegalArgumentException when a dialog of the snapshot is not usable (its parties or route set are not
     *                                  addresses); nothing is left registered then.
     */
    public static SipApplicationSessionImpl restore(final RunningApplication application, final ContainerShard host,
        final ApplicationSnapshot snapshot)
    {
        final Map<DialogSnapshot, SessionDialog> dialogs = dialogs(host, snapshot);
        final ClassLoader previous = ListenerLoader.enter(application);
        try
        {
            final SipApplicationSessionImpl app = new SipApplicationSessionImpl(application, host, snapshot.id(),
                snapshot.createdMs(), snapshot.expiresAtMs());
            snapshot.attributes().forEach((name, bytes) ->
            {
                final Object value = read(application, bytes, snapshot.id(), name);
                if (null != value)
                {
                    app.restoreAttribute(name, value);
                }
            });
            final Map<String, SipSessionImpl> byId = new HashMap<>(4);
            dialogs.forEach((d, dialog) ->
            {
                final SipSessionImpl s = SipSessionImpl.restored(app, d.id(), d.uac(), d.handler(),
                    SipSession.State.valueOf(d.state()), dialog);
                d.attributes().forEach((name, bytes) ->
                {
                    final Object value = read(application, bytes, d.id(), name);
                    if (null != value)
                    {
                        s.restoreAttribute(name, value);
                    }
                });
                byId.put(d.id(), s);
            });
            for (final DialogSnapshot d : dialogs.keySet())
            {
                final SipSessionImpl s = byId.get(d.id());
                final SipSessionImpl other = null == d.linkedId() ? null : byId.get(d.linkedId());
                if (null != other)
                {
                    s.linked(other);
                    s.markB2bua();
                }
                s.register();
            }
            final long now = host.currentTimeMillis();
            for (final TimerSnapshot t : snapshot.timers())
            {
                final Object info = null == t.info() ? null : read(application, t.info(), t.id(), "info");
                new ServletTimerImpl(app, t.id(), Math.max(0, t.fireAtMs() - now), t.periodMs(), !t.fixedRate(),
                    info instanceof Serializable s ? s : null);
            }
            SessionActivation.didActivate(app, byId.values());
            return app;
        }
        finally
        {
            ListenerLoader.exit(previous);
        }
    }

    /**
     * The dialogs of the snapshot's sessions that have one (a session without a local tag or remote target has none
     * that could bring a request to this node), in the snapshot's order; none when one is not usable.
     */
    private static Map<DialogSnapshot, SessionDialog> dialogs(final ContainerShard host,
        final ApplicationSnapshot snapshot)
    {
        final Map<DialogSnapshot, SessionDialog> dialogs = new LinkedHashMap<>(4);
        try
        {
            for (final DialogSnapshot d : snapshot.sessions())
            {
                SipSession.State.valueOf(d.state()); // an unknown state refuses the snapshot before anything is made
                if (null != d.localTag() && null != d.remoteTarget())
                {
                    dialogs.put(d, SessionDialog.restored(host, d));
                }
            }
            return dialogs;
        }
        catch (final IllegalArgumentException e)
        {
            dialogs.values().forEach(d -> d.release(host));
            throw e;
        }
    }

    /** An attribute's value read back with the application's classes, or null when it cannot be (said once). */
    private static Object read(final RunningApplication application, final byte[] bytes, final String owner,
        final String name)
    {
        try (ObjectInputStream in = new ApplicationObjectInput(new ByteArrayInputStream(bytes),
            application.classLoader()))
        {
            return in.readObject();
        }
        catch (final IOException | ClassNotFoundException e)
        {
            System.err.println("sipline: takeover of " + owner + ": attribute " + name + " not restored: " + e);
            return null;
        }
    }

    /** Java serialization that resolves classes with the application's loader (the thread's is the container's). */
    private static final class ApplicationObjectInput extends ObjectInputStream
    {
        private final ClassLoader loader;

        ApplicationObjectInput(final InputStream in, final ClassLoader loader) throws IOException
        {
            super(in);
            this.loader = loader;
        }

        @Override
        protected Class<?> resolveClass(final ObjectStreamClass desc) throws IOException, ClassNotFoundException
        {
            if (null == loader)
            {
                return super.resolveClass(desc);
            }
            try
            {
                return Class.forName(desc.getName(), false, loader);
            }
            catch (final ClassNotFoundException e)
            {
                return super.resolveClass(desc); // primitives and arrays of them
            }
        }
    }
}
