package io.sipline.container.api;

import java.util.ArrayList;
import java.util.List;

/**
 * The application sessions one HTTP request of a converged application reached through an
 * {@link ApplicationSessionHandle}: none of them is invalidated when ready (JSR 289 §6.1.2.2.2) before the request
 * ends, so that the servlet's calls see the sessions they were given. The servlet's steps are each handed to the
 * shard, and between two of them the shard may handle a response that makes a SIP session ready (the 200 to a BYE
 * the servlet just sent, while it still iterates over the sessions of {@code getSessions("sip")}): the session
 * stays valid until the request ends, as the request is one unit of work on the application session (§6.3). At
 * the end each session's hold is released on its owner and readiness is checked again.
 * <p>
 * Threading: one per HTTP request, opened and closed by that request's thread ({@link #open}, {@link #close});
 * {@link #enter} runs on that thread too, before the call it guards is handed over. Never on a shard.
 */
public final class HttpRequestScope implements AutoCloseable
{
    private static final ThreadLocal<HttpRequestScope> CURRENT = new ThreadLocal<>();

    private final HttpRequestScope outer;
    private final List<SipApplicationSessionImpl> held = new ArrayList<>(1);

    private HttpRequestScope(final HttpRequestScope outer)
    {
        this.outer = outer;
    }

    /** Opens the scope of the calling thread's request (nested for a forward or include). */
    public static HttpRequestScope open()
    {
        final HttpRequestScope scope = new HttpRequestScope(CURRENT.get());
        CURRENT.set(scope);
        return scope;
    }

    /**
     * Whether {@code session} is reached for the first time in the calling thread's request: then the caller holds
     * its readiness on the owner's thread ({@link SipApplicationSessionImpl#holdReadiness}) before its own call.
     */
    static boolean enter(final SipApplicationSessionImpl session)
    {
        for (HttpRequestScope s = CURRENT.get(); null != s; s = s.outer)
        {
            if (s.held.contains(session))
            {
                return false;
            }
        }
        final HttpRequestScope scope = CURRENT.get();
        if (null == scope)
        {
            return false;
        }
        scope.held.add(session);
        return true;
    }

    /** Ends the request: every session it held is released on its owner and checked for readiness. */
    @Override
    public void close()
    {
        if (null == outer)
        {
            CURRENT.remove();
        }
        else
        {
            CURRENT.set(outer);
        }
        for (final SipApplicationSessionImpl session : held)
        {
            new ApplicationSessionHandle(session).call(() ->
            {
                session.releaseReadiness();
                return null;
            });
        }
    }
}
