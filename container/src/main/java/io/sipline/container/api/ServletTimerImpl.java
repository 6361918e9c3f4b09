package io.sipline.container.api;

import java.io.Serializable;
import java.util.List;

import javax.servlet.sip.ServletTimer;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.TimerListener;

/**
 * A servlet timer (JSR 289 §22): one-shot or repeating (fixed-delay or fixed-rate), on the application session's
 * shard's timing wheel; on expiry the application's {@link TimerListener} runs on that shard, serialized with every
 * other event of the application session.
 * <p>
 * Threading: created and cancelled from any thread (scheduling is handed to the shard); fires on the shard.
 */
public final class ServletTimerImpl implements ServletTimer, ContainerShard.TimerTarget
{
    private final SipApplicationSessionImpl session;
    private final String id;
    private final Serializable info;
    private final long period;
    private final boolean fixedDelay;
    private volatile long scheduledTime;
    private volatile boolean cancelled;
    private long wheelId = -1;

    /**
     * @param delay  milliseconds to the first expiry.
     * @param period milliseconds between expiries, or 0 for one-shot.
     */
    public ServletTimerImpl(final SipApplicationSessionImpl session, final long delay, final long period,
        final boolean fixedDelay, final Serializable info)
    {
        this(session, null, delay, period, fixedDelay, info);
    }

    /**
     * A timer with a given id: one a node of the cluster took over with its application session, keeping the id the
     * application knows it by.
     *
     * @param id the timer's id, or null for a new one.
     */
    ServletTimerImpl(final SipApplicationSessionImpl session, final String id, final long delay, final long period,
        final boolean fixedDelay, final Serializable info)
    {
        if (delay < 0 || period < 0)
        {
            throw new IllegalArgumentException("negative delay or period");
        }
        this.session = session;
        this.id = null != id ? id : session.getId() + "-t" + session.host().newTag();
        this.info = info;
        this.period = period;
        this.fixedDelay = fixedDelay;
        this.scheduledTime = session.host().currentTimeMillis() + delay;
        session.addTimer(this);
        session.host().execute(() -> arm(delay));
    }

    /** Milliseconds between expiries; 0 for one-shot. */
    long period()
    {
        return period;
    }

    /** Whether a repeating timer counts its period from its last expiry rather than at a fixed rate. */
    boolean fixedDelay()
    {
        return fixedDelay;
    }

    private void arm(final long delay)
    {
        if (!cancelled)
        {
            wheelId = session.host().schedule(delay, this);
        }
    }

    /** Expiry on the shard: the listeners run, then a repeating timer is armed again. */
    @Override
    public void onTimer(final long timerId)
    {
        if (cancelled || timerId != wheelId || !session.isValid())
        {
            return;
        }
        wheelId = -1;
        final List<TimerListener> listeners = session.application().listeners(TimerListener.class);
        final Thread thread = Thread.currentThread();
        final ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(session.application().classLoader());
        try
        {
            for (final TimerListener l : listeners)
            {
                l.timeout(this);
            }
        }
        finally
        {
            thread.setContextClassLoader(previous);
        }
        if (cancelled || !session.isValid())
        {
            return;
        }
        if (period > 0)
        {
            final long now = session.host().currentTimeMillis();
            scheduledTime = fixedDelay ? now + period : scheduledTime + period;
            arm(Math.max(0, scheduledTime - now));
        }
        else
        {
            cancelled = true;
            session.removeTimer(this);
        }
        session.checkReady();
    }

    @Override
    public void cancel()
    {
        if (cancelled)
        {
            return;
        }
        cancelled = true;
        session.removeTimer(this);
        session.host().execute(() ->
        {
            if (wheelId >= 0)
            {
                session.host().cancel(wheelId);
                wheelId = -1;
            }
        });
    }

    @Override
    public SipApplicationSession getApplicationSession()
    {
        return session;
    }

    @Override
    public String getId()
    {
        return id;
    }

    @Override
    public Serializable getInfo()
    {
        return info;
    }

    @Override
    public long scheduledExecutionTime()
    {
        return scheduledTime;
    }

    @Override
    public long getTimeRemaining()
    {
        return scheduledTime - session.host().currentTimeMillis();
    }

    public boolean isCancelled()
    {
        return cancelled;
    }
}
