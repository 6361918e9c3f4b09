package io.sipline.examples.uac;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.servlet.ServletContext;
import javax.servlet.sip.Address;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.ServletTimer;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletContextEvent;
import javax.servlet.sip.SipServletListener;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.TimerListener;
import javax.servlet.sip.TimerService;

/**
 * The uac example's listener: when the application's servlet is initialised ({@link SipServletListener}), it creates
 * an application session and a repeating {@link ServletTimer} from the {@link TimerService}; at each expiry
 * ({@link TimerListener}) it sends an OPTIONS, made with the {@link SipFactory}, from the context parameter
 * {@code from} to the context parameter {@code target} every {@code interval-seconds} seconds. The responses reach
 * {@link OptionsServlet}, which counts and logs them.
 * <p>
 * Threading: the container calls {@code servletInitialized} at deployment and {@code timeout} on the application
 * session's serialized context; the only state is set once.
 */
public final class OptionsPinger implements SipServletListener, TimerListener
{
    private final AtomicBoolean started = new AtomicBoolean();
    private volatile ServletContext context;
    private volatile SipFactory factory;
    private volatile Address from;
    private volatile Address to;

    @Override
    public void servletInitialized(final SipServletContextEvent event)
    {
        if (!started.compareAndSet(false, true))
        {
            return; // one timer per application, whichever servlet starts first
        }
        final ServletContext ctx = event.getServletContext();
        context = ctx;
        factory = (SipFactory) ctx.getAttribute(SipServlet.SIP_FACTORY);
        final String target = ctx.getInitParameter("target");
        final String interval = ctx.getInitParameter("interval-seconds");
        final String sender = ctx.getInitParameter("from");
        final long seconds;
        try
        {
            seconds = null == interval ? 30 : Long.parseLong(interval.strip());
            if (seconds < 1)
            {
                throw new NumberFormatException();
            }
            to = factory.createAddress(null == target ? "sip:options@127.0.0.1:5090" : target.strip());
            from = factory.createAddress(null == sender ? "sip:uac@127.0.0.1" : sender.strip());
        }
        catch (final NumberFormatException | ServletParseException e)
        {
            ctx.log("not started: bad context parameter (target, from, interval-seconds): " + e);
            return;
        }
        final SipApplicationSession session = factory.createApplicationSession();
        final TimerService timers = (TimerService) ctx.getAttribute(SipServlet.TIMER_SERVICE);
        timers.createTimer(session, seconds * 1000, seconds * 1000, false, false, "options");
        ctx.log("OPTIONS to " + to + " every " + seconds + " s");
    }

    @Override
    public void timeout(final ServletTimer timer)
    {
        final SipApplicationSession session = timer.getApplicationSession();
        // keep the application session (and so the repeating timer) alive across ticks
        session.setExpires(Math.max(1, (int) (2 * timer.getTimeRemaining() / 60_000) + 1));
        final SipServletRequest options = factory.createRequest(session, "OPTIONS", from, to);
        try
        {
            options.send();
            OptionsCounters.of(context).sent.incrementAndGet();
        }
        catch (final IOException | IllegalStateException e)
        {
            context.log("OPTIONS to " + to + " not sent: " + e);
        }
    }
}
