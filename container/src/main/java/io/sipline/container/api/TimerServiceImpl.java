package io.sipline.container.api;

import java.io.Serializable;
import java.util.function.Supplier;

import javax.servlet.sip.ServletTimer;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.TimerService;

/**
 * The container's {@link TimerService} (JSR 289 §22), one per application (a {@code ServletContext} attribute):
 * timers go on the wheel of the shard that owns the application session; a timer asked for through an
 * {@link ApplicationSessionHandle} is made where that session's calls run.
 * <p>
 * Threading: any thread.
 */
public final class TimerServiceImpl implements TimerService
{
    @Override
    public ServletTimer createTimer(final SipApplicationSession appSession, final long delay,
        final boolean isPersistent, final Serializable info)
    {
        final SipApplicationSessionImpl app = check(appSession);
        return owned(appSession, () -> new ServletTimerImpl(app, delay, 0, false, info));
    }

    @Override
    public ServletTimer createTimer(final SipApplicationSession appSession, final long delay, final long period,
        final boolean fixedDelay, final boolean isPersistent, final Serializable info)
    {
        if (period <= 0)
        {
            throw new IllegalArgumentException("period must be positive: " + period);
        }
        final SipApplicationSessionImpl app = check(appSession);
        return owned(appSession, () -> new ServletTimerImpl(app, delay, period, fixedDelay, info));
    }

    /** Made where the session's calls run when the caller holds a handle (an HTTP thread), else here. */
    private static ServletTimer owned(final SipApplicationSession given, final Supplier<ServletTimer> make)
    {
        return given instanceof ApplicationSessionHandle h ? h.call(make) : make.get();
    }

    private static SipApplicationSessionImpl check(final SipApplicationSession appSession)
    {
        if (!(ApplicationSessionHandle.unwrap(appSession) instanceof SipApplicationSessionImpl impl))
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
