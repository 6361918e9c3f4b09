package io.sipline.examples.typical;

import java.util.concurrent.atomic.AtomicLong;

import javax.servlet.sip.SipApplicationSessionEvent;
import javax.servlet.sip.SipApplicationSessionListener;
import javax.servlet.sip.SipSessionEvent;
import javax.servlet.sip.SipSessionListener;

/**
 * Counts the application's sessions as monitoring code in applications does: SIP sessions and application sessions
 * created and destroyed, application sessions expired. Read by the servlet's periodic log line.
 * <p>
 * Threading: the container calls it from any thread; the counters are atomic.
 */
public final class CallCounters implements SipSessionListener, SipApplicationSessionListener
{
    static final AtomicLong SESSIONS_CREATED = new AtomicLong();
    static final AtomicLong SESSIONS_DESTROYED = new AtomicLong();
    static final AtomicLong CALLS_CREATED = new AtomicLong();
    static final AtomicLong CALLS_DESTROYED = new AtomicLong();
    static final AtomicLong CALLS_EXPIRED = new AtomicLong();

    @Override
    public void sessionCreated(final SipSessionEvent event)
    {
        SESSIONS_CREATED.incrementAndGet();
    }

    @Override
    public void sessionDestroyed(final SipSessionEvent event)
    {
        SESSIONS_DESTROYED.incrementAndGet();
    }

    @Override
    public void sessionReadyToInvalidate(final SipSessionEvent event)
    {
        // the container invalidates it (invalidateWhenReady, JSR 289 §6.1.2.2)
    }

    @Override
    public void sessionCreated(final SipApplicationSessionEvent event)
    {
        CALLS_CREATED.incrementAndGet();
    }

    @Override
    public void sessionDestroyed(final SipApplicationSessionEvent event)
    {
        CALLS_DESTROYED.incrementAndGet();
    }

    @Override
    public void sessionExpired(final SipApplicationSessionEvent event)
    {
        CALLS_EXPIRED.incrementAndGet();
    }

    @Override
    public void sessionReadyToInvalidate(final SipApplicationSessionEvent event)
    {
        // the container invalidates it
    }

    /** One line of the counters, for the servlet's log. */
    static String line()
    {
        return "calls " + CALLS_CREATED.get() + " created, " + CALLS_DESTROYED.get() + " ended, " + CALLS_EXPIRED.get()
            + " expired; legs " + SESSIONS_CREATED.get() + " created, " + SESSIONS_DESTROYED.get() + " ended";
    }
}
