package io.sipline.examples.clicktocall;

import java.io.IOException;
import java.io.UncheckedIOException;

import javax.servlet.ServletContextEvent;
import javax.servlet.ServletContextListener;
import javax.servlet.sip.ServletTimer;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipApplicationSessionEvent;
import javax.servlet.sip.SipApplicationSessionListener;
import javax.servlet.sip.TimerListener;

/**
 * The application's listener (sip.xml): makes the {@link CallBook} when the application starts; ends a call on the
 * call's own thread when {@link CallsServlet} asks for it with a timer whose info is {@link #HANG_UP} (so that an HTTP
 * thread never races a BYE arriving from a party); and keeps a call's application session alive while the call goes
 * on, however long it lasts.
 * <p>
 * Threading: the container calls {@link #timeout} and the session events on the call's thread.
 */
public final class CallControl implements ServletContextListener, TimerListener, SipApplicationSessionListener
{
    /** The info of the timer that hangs a call up. */
    public static final String HANG_UP = "hang-up";

    /** Minutes a call in progress is given each time its application session would expire. */
    private static final int KEEP_ALIVE_MINUTES = 3;

    private volatile CallBook book;

    @Override
    public void contextInitialized(final ServletContextEvent event)
    {
        book = new CallBook();
        event.getServletContext().setAttribute(CallBook.ATTRIBUTE, book);
    }

    @Override
    public void contextDestroyed(final ServletContextEvent event)
    {
        event.getServletContext().removeAttribute(CallBook.ATTRIBUTE);
    }

    /** A hang-up asked for over HTTP: BYE or CANCEL to each leg. */
    @Override
    public void timeout(final ServletTimer timer)
    {
        if (!HANG_UP.equals(timer.getInfo()))
        {
            return;
        }
        final SipApplicationSession call = timer.getApplicationSession();
        if (Legs.ending(call) || !book.update(call.getId(), Call.State.ENDING, "hung up over HTTP"))
        {
            return; // already being ended, or over
        }
        try
        {
            Legs.endAll(call, null);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("ending call " + call.getId(), e);
        }
    }

    @Override
    public void sessionCreated(final SipApplicationSessionEvent event)
    {
        // calls are added by CallsServlet, which knows their parties
    }

    /** Every leg is over: a call being hung up has ended, for the reason it was hung up. */
    @Override
    public void sessionDestroyed(final SipApplicationSessionEvent event)
    {
        final Call call = book.get(event.getApplicationSession().getId());
        if (null != call && !call.state().isFinal())
        {
            book.update(call.id(), Call.State.ENDED, call.detail().isEmpty() ? "every leg is over" : call.detail());
        }
    }

    /** A call in progress lives as long as it lasts (JSR 289 §6.1.2.2.1). */
    @Override
    public void sessionExpired(final SipApplicationSessionEvent event)
    {
        final Call call = book.get(event.getApplicationSession().getId());
        if (null != call && !call.state().isFinal())
        {
            event.getApplicationSession().setExpires(KEEP_ALIVE_MINUTES);
        }
    }

    @Override
    public void sessionReadyToInvalidate(final SipApplicationSessionEvent event)
    {
        // the container invalidates it
    }
}
