package io.sipline.container.api;

import java.io.Serializable;

import javax.servlet.sip.ServletTimer;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.TimerService;

/**
 * The container's {@link TimerService} (JSR 289 §22), one per application (a {@code ServletContext} attribute):
 * timers go on the wheel of the shard that owns the application session.
 * <p>
 * Threading: any thread.
 */
public final class TimerServiceImpl implements TimerService
{
    @Override
    public ServletTimer createTimer(final SipApplicationSession appSession, final long delay,
        final boolean isPersistent, final Serializable info)
    {
        return new ServletTimerImpl(check(appSession), delay, 0, false, info);
    }

    @Override
    public ServletTimer createTimer(final SipApplicationSession appSession, final long delay, final long period,
        final boolean fixedDelay, final boolean isPersistent, final Serializable info)
    {
        if (period <= 0)
        {
            throw new IllegalArgumentException("period must be positive: " + period);
        }
        return new ServletTimerImpl(check(appSession), delay, period, fixedDelay, info);
    }

    private static SipApplicationSessionImpl check(final SipApplicationSession appSession)
    {
        if (!(appSession instanceof SipApplicationSessionImpl impl))
        {
            throw new IllegalArgumentException("not an application session of this container");
        }
        if (!impl.isValid())
        {
            throw new IllegalStateException("the application session was invalidated");
        }
        return impl;
    }
}
