package io.sipline.container.api;

import java.util.List;

import javax.servlet.sip.SipSessionEvent;
import javax.servlet.sip.SipSessionListener;


/**
 * The end of a {@link SipSessionImpl} (JSR 289 §6.2.4): its listeners are told it is ready to be invalidated, then
 * that it is; its attributes are unbound, it leaves its shard's {@link SessionTable} (a forked request's session
 * leaves its siblings, {@link SessionFork#leave}), its linked session and its application session, its initial
 * INVITE's transaction lets go of the request, and its dialog record goes back to the shard's pool.
 * <p>
 * Stateless; called on the session's shard or by the application's thread, which hands the table's changes to the
 * shard.
 */
final class SessionInvalidation
{
    private SessionInvalidation()
    {
    }

    /** Tells the session's listeners that it is ready to be invalidated (JSR 289 §6.1.2.2.2). */
    static void readyToInvalidate(final SipSessionImpl s)
    {
        tell(s, false);
    }

    /** Tells the session's listeners that it is ready to be invalidated, or that it was ({@code destroyed}). */
    private static void tell(final SipSessionImpl s, final boolean destroyed)
    {
        final SipApplicationSessionImpl app = s.appSession();
        final ClassLoader previousLoader = ListenerLoader.enter(app.application());
        try
        {
            final List<SipSessionListener> listeners = app.application().listeners(SipSessionListener.class);
            for (int i = 0; i < listeners.size(); i++) // by index: a for-each makes an iterator per session
            {
                final SipSessionEvent event = new SipSessionEvent(s);
                if (destroyed)
                {
                    listeners.get(i).sessionDestroyed(event);
                }
                else
                {
                    listeners.get(i).sessionReadyToInvalidate(event);
                }
            }
        }
        finally
        {
            ListenerLoader.exit(previousLoader);
        }
    }

    static void invalidate(final SipSessionImpl s)
    {
        tell(s, true);
        final SipApplicationSessionImpl app = s.appSession();
        s.removeAttributes();
        s.valid = false;
        // the sessions of a forked INVITE's other dialogs keep using its transaction; a derived UAS session's request
        // is its head's
        final SessionFork fork = s.fork;
        final boolean keepsOriginal = null != fork && (null != fork.parent || null != fork.derived
            || fork.sharesOriginal);
        if (null != fork && (null != fork.parent || null != fork.derived))
        {
            onShard(s, () -> SessionFork.leave(s));
        }
        else if (s.registered)
        {
            unregister(s, s.localTagChars());
        }
        s.registered = false;
        if (null != s.proxyRouteKey())
        {
            unregister(s, s.proxyRouteKey());
            s.clearProxyRouteKey();
        }
        final SipSessionImpl linked = s.linked();
        if (null != linked && linked.linked() == s)
        {
            linked.linked(null);
        }
        s.linked(null);
        if (!keepsOriginal)
        {
            releaseOriginal(s);
        }
        app.remove(s);
        final ContainerShard host = s.host();
        // the session keeps its initial request: a UAS dialog's unread ids are read from it later, not copied now
        final SipServletRequestImpl original = null == s.proxy() ? s.original() : null;
        if (host.onShardThread())
        {
            s.dialog.release(host, original);
        }
        else
        {
            host.execute(() -> s.dialog.release(host, original));
        }
    }

    private static void onShard(final SipSessionImpl s, final Runnable task)
    {
        if (s.host().onShardThread())
        {
            task.run();
        }
        else
        {
            s.host().execute(task);
        }
    }

    /**
     * The session is over: its initial INVITE's transaction, still waiting out Timer L or M (64*T1 after the 2xx,
     * RFC 6026), lets go of the request, so that the call's messages and sessions do not stay reachable for 32 s
     * after the BYE. A late CANCEL still gets its 200 (RFC 3261 §9.2); a 2xx retransmitted after the dialog's BYE
     * completed finds no ACK to resend (the UAS gives up at 64*T1, §13.3.1.4). Requests of other methods let go of
     * their transaction at their final response already.
     */
    private static void releaseOriginal(final SipSessionImpl s)
    {
        final SipServletRequestImpl request = s.original();
        if (null == request || null == request.finalResponse() || !"INVITE".equals(request.getMethod()))
        {
            return;
        }
        final ContainerShard host = s.host();
        if (host.onShardThread())
        {
            host.release(request);
        }
        else
        {
            host.execute(() -> host.release(request));
        }
    }

    /** Removes the session's entry under {@code key} from its shard's table, on the shard. */
    private static void unregister(final SipSessionImpl s, final CharSequence key)
    {
        final ContainerShard host = s.host();
        if (host.onShardThread())
        {
            host.sessions().removeDialog(key, s);
        }
        else
        {
            host.execute(() -> host.sessions().removeDialog(key, s));
        }
    }
}
