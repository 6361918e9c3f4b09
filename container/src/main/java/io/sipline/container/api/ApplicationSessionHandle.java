package io.sipline.container.api;

import java.net.URL;
import java.util.Collection;
import java.util.Iterator;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import javax.servlet.sip.ServletTimer;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipSession;
import javax.servlet.sip.URI;

/**
 * The face of one {@link SipApplicationSessionImpl} given to a thread that does not own it (an HTTP thread of a
 * converged application, JSR 289 §13, or an application's own thread) by {@code ConvergedHttpSession},
 * {@code SipFactory} and {@code SipSessionsUtil}: every call is handed to the session's owner and the caller waits
 * for its result, so that calls into one application session stay serialized (JSR 289 §6.3) and the shard's state
 * is only ever touched on the shard. The owner is the session's virtual-thread lane when its application runs on
 * virtual threads and the lane exists, else its shard ({@link ContainerShard#callAndWait}). The owner never waits for
 * the caller, so the wait ends. On the owner's own thread a call runs at once.
 * <p>
 * Container code that needs the session itself (the factory, to create a request in it) unwraps it with
 * {@link #unwrap}. Two handles of one session are equal, and a handle equals its session; the session does not
 * equal its handle.
 * <p>
 * Threading: any thread; holds no state of its own.
 */
public final class ApplicationSessionHandle implements SipApplicationSession
{
    private final SipApplicationSessionImpl session;

    public ApplicationSessionHandle(final SipApplicationSessionImpl session)
    {
        this.session = session;
    }

    /** The session behind a handle, or {@code s} itself when it is none. */
    public static SipApplicationSession unwrap(final SipApplicationSession s)
    {
        return s instanceof ApplicationSessionHandle h ? h.session : s;
    }

    /** The session this handle calls into. */
    public SipApplicationSessionImpl session()
    {
        return session;
    }

    /**
     * Runs {@code action} where the session's calls run and returns its result, or throws what it threw: at once on
     * the shard or on the session's own virtual-thread lane; on that lane for a blocking application; else on the
     * shard.
     */
    public <T> T call(final Supplier<T> action)
    {
        final ContainerShard host = session.host();
        if (host.onShardThread())
        {
            return action.get();
        }
        final Executor lane = session.lane();
        if (lane instanceof SessionLane own && own.onLaneThread())
        {
            return action.get(); // the caller is the session's own call
        }
        final Supplier<T> guarded = HttpRequestScope.enter(session) ? () ->
        {
            session.holdReadiness();
            return action.get();
        } : action;
        return null == lane ? host.callAndWait(guarded) : ContainerShard.callAndWait(lane, guarded);
    }

    private void run(final Runnable action)
    {
        call(() ->
        {
            action.run();
            return null;
        });
    }

    @Deprecated
    @Override
    public void encodeURI(final URI uri)
    {
        run(() -> session.encodeURI(uri));
    }

    @Override
    public URL encodeURL(final URL url)
    {
        return call(() -> session.encodeURL(url));
    }

    @Override
    public String getApplicationName()
    {
        return session.getApplicationName(); // immutable
    }

    @Override
    public Object getAttribute(final String name)
    {
        return call(() -> session.getAttribute(name));
    }

    @Override
    public Iterator<String> getAttributeNames()
    {
        return call(session::getAttributeNames);
    }

    @Override
    public long getCreationTime()
    {
        return call(session::getCreationTime);
    }

    @Override
    public long getExpirationTime()
    {
        return call(session::getExpirationTime);
    }

    @Override
    public String getId()
    {
        return session.getId(); // immutable
    }

    @Override
    public boolean getInvalidateWhenReady()
    {
        return call(session::getInvalidateWhenReady);
    }

    @Override
    public void setInvalidateWhenReady(final boolean invalidateWhenReady)
    {
        run(() -> session.setInvalidateWhenReady(invalidateWhenReady));
    }

    @Override
    public long getLastAccessedTime()
    {
        return call(session::getLastAccessedTime);
    }

    @Override
    public Iterator<?> getSessions()
    {
        return call(session::getSessions);
    }

    @Override
    public Iterator<?> getSessions(final String protocol)
    {
        return call(() -> session.getSessions(protocol));
    }

    @Override
    public SipSession getSipSession(final String id)
    {
        return call(() -> session.getSipSession(id));
    }

    @Override
    public Object getSession(final String id, final Protocol protocol)
    {
        return call(() -> session.getSession(id, protocol));
    }

    @Override
    public ServletTimer getTimer(final String id)
    {
        return call(() -> session.getTimer(id));
    }

    @Override
    public Collection<ServletTimer> getTimers()
    {
        return call(session::getTimers);
    }

    @Override
    public void invalidate()
    {
        run(session::invalidate);
    }

    @Override
    public boolean isReadyToInvalidate()
    {
        return call(session::isReadyToInvalidate);
    }

    @Override
    public boolean isValid()
    {
        return session.isValid(); // a plain flag, read as the session's own callers read it
    }

    @Override
    public void removeAttribute(final String name)
    {
        run(() -> session.removeAttribute(name));
    }

    @Override
    public void setAttribute(final String name, final Object attribute)
    {
        run(() -> session.setAttribute(name, attribute));
    }

    @Override
    public int setExpires(final int deltaMinutes)
    {
        return call(() -> session.setExpires(deltaMinutes));
    }

    @Override
    public boolean equals(final Object other)
    {
        return other == session || (other instanceof ApplicationSessionHandle h && h.session == session);
    }

    @Override
    public int hashCode()
    {
        return session.hashCode();
    }

    @Override
    public String toString()
    {
        return session.toString();
    }
}
