package io.sipline.container.api;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;
import javax.servlet.sip.SipApplicationSessionActivationListener;
import javax.servlet.sip.SipApplicationSessionEvent;
import javax.servlet.sip.SipSessionActivationListener;
import javax.servlet.sip.SipSessionEvent;

/**
 * Tells an application session taken over from another node, and its SIP sessions, that they were activated here:
 * JSR 289 requires a container that migrates sessions between VMs to notify the attributes bound to them that
 * implement {@link SipApplicationSessionActivationListener} or {@link SipSessionActivationListener}
 * ({@code sessionDidActivate}); the application's declared listeners of those types are told too, as the reference
 * containers do. The application session is told first, then each SIP session. A listener that throws is logged with
 * the application named; the others are still told and the takeover stands.
 * <p>
 * Stateless; called on the shard that took the call over, with the application's class loader entered.
 */
final class SessionActivation
{
    private static final System.Logger LOG = System.getLogger(SessionActivation.class.getName());

    private SessionActivation()
    {
    }

    static void didActivate(final SipApplicationSessionImpl app, final Collection<SipSessionImpl> sessions)
    {
        final RunningApplication application = app.application();
        final List<SipApplicationSessionActivationListener> appListeners = new ArrayList<>(
            application.listeners(SipApplicationSessionActivationListener.class));
        bound(app.getAttributeNames(), app::getAttribute, SipApplicationSessionActivationListener.class,
            appListeners);
        for (final SipApplicationSessionActivationListener l : appListeners)
        {
            call(application, app.getId(), () -> l.sessionDidActivate(new SipApplicationSessionEvent(app)));
        }
        for (final SipSessionImpl s : sessions)
        {
            final List<SipSessionActivationListener> listeners = new ArrayList<>(
                application.listeners(SipSessionActivationListener.class));
            bound(s.getAttributeNames().asIterator(), s::getAttribute, SipSessionActivationListener.class, listeners);
            for (final SipSessionActivationListener l : listeners)
            {
                call(application, s.getId(), () -> l.sessionDidActivate(new SipSessionEvent(s)));
            }
        }
    }

    /** Adds the attribute values of type {@code type} that are not already in {@code into}. */
    private static <T> void bound(final Iterator<String> names, final Function<String, Object> get,
        final Class<T> type, final List<T> into)
    {
        while (names.hasNext())
        {
            final Object value = get.apply(names.next());
            if (type.isInstance(value) && !into.contains(value))
            {
                into.add(type.cast(value));
            }
        }
    }

    private static void call(final RunningApplication application, final String sessionId, final Runnable notify)
    {
        try
        {
            notify.run();
        }
        catch (final RuntimeException e)
        {
            LOG.log(System.Logger.Level.WARNING, "application " + application.name()
                + ": an activation listener threw on the takeover of session " + sessionId, e);
        }
    }
}
