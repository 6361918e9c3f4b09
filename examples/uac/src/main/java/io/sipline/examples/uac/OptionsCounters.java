package io.sipline.examples.uac;

import java.util.concurrent.atomic.AtomicLong;

import javax.servlet.ServletContext;

/**
 * What the uac example has sent and heard back, kept in a servlet context attribute so that the timer (which sends)
 * and the servlet (which receives the responses) share it.
 * <p>
 * Threading: counters only; safe from any thread.
 */
public final class OptionsCounters
{
    /** The servlet context attribute holding the counters. */
    public static final String ATTRIBUTE = OptionsCounters.class.getName();

    /** OPTIONS requests sent. */
    public final AtomicLong sent = new AtomicLong();
    /** 2xx responses received. */
    public final AtomicLong answered = new AtomicLong();
    /** Final responses other than 2xx received (including the 408 of a request nobody answered). */
    public final AtomicLong failed = new AtomicLong();

    /** The counters of an application, made on first use. */
    public static OptionsCounters of(final ServletContext context)
    {
        synchronized (context)
        {
            OptionsCounters counters = (OptionsCounters) context.getAttribute(ATTRIBUTE);
            if (null == counters)
            {
                counters = new OptionsCounters();
                context.setAttribute(ATTRIBUTE, counters);
            }
            return counters;
        }
    }

    @Override
    public String toString()
    {
        return sent.get() + " sent, " + answered.get() + " answered, " + failed.get() + " failed";
    }
}
