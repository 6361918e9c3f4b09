package io.sipline.container.web;

import javax.servlet.http.HttpSession;
import javax.servlet.http.HttpSessionEvent;
import javax.servlet.http.HttpSessionListener;

import io.sipline.container.api.ApplicationSessionHandle;
import io.sipline.container.api.ContainerShard;
import io.sipline.container.api.SipApplicationSessionImpl;
import io.sipline.container.dispatch.RunningApplicationImpl;
import io.sipline.container.factory.SipFactoryImpl;

/**
 * Binds the HTTP sessions of one converged application to its application sessions (JSR 289 §13.3): the id of the
 * bound application session is an attribute of the HTTP session ({@link #ATTRIBUTE}); the application session lists
 * the HTTP session among its protocol sessions. An application session is made on first
 * {@code getApplicationSession()} (on a shard picked round robin, by that shard), or named by an encoded URL
 * ({@link SipApplicationSessionImpl#ENCODED_URL_PARAMETER}); an HTTP session that ends is unbound (as an
 * {@link HttpSessionListener} of the context).
 * <p>
 * Threading: HTTP threads; every change to an application session is handed to its shard through an
 * {@link ApplicationSessionHandle}. One HTTP session's binding is changed under that session's monitor (an HTTP
 * thread's lock, never taken on a shard).
 */
final class SessionBinding implements HttpSessionListener
{
    /** The HTTP session attribute that holds the id of the application session it is bound to. */
    static final String ATTRIBUTE = "io.sipline.sipApplicationSessionId";

    private final RunningApplicationImpl application;
    private final SipFactoryImpl.ShardPicker shards;

    SessionBinding(final RunningApplicationImpl application, final SipFactoryImpl.ShardPicker shards)
    {
        this.application = application;
        this.shards = shards;
    }

    /** The application session of an HTTP session, made and bound when it has none or its own ended. */
    ApplicationSessionHandle applicationSession(final ConvergedHttpSessionImpl http)
    {
        synchronized (http.delegate())
        {
            final SipApplicationSessionImpl bound = bound(http.delegate());
            if (null != bound)
            {
                return new ApplicationSessionHandle(bound);
            }
            final ContainerShard shard = shards.next();
            final SipApplicationSessionImpl made =
                shard.callAndWait(() -> new SipApplicationSessionImpl(application, shard, null));
            return bind(http, made);
        }
    }

    /**
     * Binds the HTTP session to the application session an encoded URL named (JSR 289 §13.4), when that one is
     * valid and of this application; an id that names none is ignored.
     */
    void bindEncoded(final ConvergedHttpSessionImpl http, final String applicationSessionId)
    {
        final SipApplicationSessionImpl named = byId(applicationSessionId);
        if (null == named)
        {
            return;
        }
        synchronized (http.delegate())
        {
            if (!applicationSessionId.equals(http.delegate().getAttribute(ATTRIBUTE)))
            {
                unbind(http.delegate());
                bind(http, named);
            }
        }
    }

    private ApplicationSessionHandle bind(final ConvergedHttpSessionImpl http, final SipApplicationSessionImpl session)
    {
        final ApplicationSessionHandle handle = new ApplicationSessionHandle(session);
        handle.call(() ->
        {
            session.addHttpSession(http);
            return null;
        });
        http.delegate().setAttribute(ATTRIBUTE, session.getId());
        return handle;
    }

    private SipApplicationSessionImpl bound(final HttpSession http)
    {
        return http.getAttribute(ATTRIBUTE) instanceof String id ? byId(id) : null;
    }

    private SipApplicationSessionImpl byId(final String id)
    {
        final Object found = ApplicationSessionHandle.unwrap(application.sessionsUtil().getApplicationSessionById(id));
        return found instanceof SipApplicationSessionImpl s && s.isValid() && s.application() == application ? s
            : null;
    }

    private void unbind(final HttpSession http)
    {
        final SipApplicationSessionImpl bound = bound(http);
        if (null != bound)
        {
            final String httpId = http.getId();
            new ApplicationSessionHandle(bound).call(() ->
            {
                bound.removeHttpSession(httpId);
                return null;
            });
        }
    }

    @Override
    public void sessionCreated(final HttpSessionEvent se)
    {
        // bound on first getApplicationSession() or encoded URL
    }

    @Override
    public void sessionDestroyed(final HttpSessionEvent se)
    {
        try
        {
            unbind(se.getSession());
        }
        catch (final IllegalStateException ended)
        {
            // the application session was invalidated meanwhile: nothing is bound any more
        }
    }
}
