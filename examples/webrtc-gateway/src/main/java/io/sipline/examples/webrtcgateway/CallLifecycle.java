package io.sipline.examples.webrtcgateway;

import java.io.IOException;

import javax.servlet.sip.ServletTimer;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipApplicationSessionEvent;
import javax.servlet.sip.SipApplicationSessionListener;
import javax.servlet.sip.SipErrorEvent;
import javax.servlet.sip.SipErrorListener;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.TimerListener;

/**
 * The application's listener (sip.xml): ends a call when the media service reported a failed handshake or silent
 * media ({@link Call} set a timer whose info starts with {@link Call#HANG_UP}), keeps a call's application session
 * alive while the call goes on, and frees the anchor of an application session that goes away, whatever happened
 * before; and ends a call whose caller never acknowledged its 2xx, or whose re-INVITE's 2xx went unacknowledged
 * (RFC 3261 §13.3.1.4: the UAS then ends the session with BYE).
 * <p>
 * Threading: the container calls it on the call's thread.
 */
public final class CallLifecycle implements TimerListener, SipApplicationSessionListener, SipErrorListener
{
    /** Minutes a call in progress is given each time its application session would expire. */
    private static final int KEEP_ALIVE_MINUTES = 3;

    @Override
    public void timeout(final ServletTimer timer)
    {
        if (!(timer.getInfo() instanceof String info) || !info.startsWith(Call.HANG_UP))
        {
            return;
        }
        final Call call = Call.of(timer.getApplicationSession());
        if (null != call)
        {
            call.end(SipServletResponse.SC_NOT_ACCEPTABLE_HERE, info.substring(Call.HANG_UP.length()));
        }
    }

    @Override
    public void sessionCreated(final SipApplicationSessionEvent event)
    {
    }

    @Override
    public void sessionDestroyed(final SipApplicationSessionEvent event)
    {
        final Call call = (Call)event.getApplicationSession().getAttribute(Call.ATTRIBUTE);
        if (null != call)
        {
            call.release();
        }
    }

    @Override
    public void sessionExpired(final SipApplicationSessionEvent event)
    {
        final SipApplicationSession application = event.getApplicationSession();
        final Call call = Call.of(application);
        if (null != call && Call.State.ENDED != call.state())
        {
            application.setExpires(KEEP_ALIVE_MINUTES);
        }
    }

    @Override
    public void sessionReadyToInvalidate(final SipApplicationSessionEvent event)
    {
        sessionDestroyed(event);
    }

    @Override
    public void noAckReceived(final SipErrorEvent event)
    {
        final Call call = Call.of(event.getRequest().getApplicationSession());
        if (null == call)
        {
            return;
        }
        final Reinvite reinvite = call.reinvite();
        try
        {
            if (null != reinvite && reinvite.isFrom(event.getRequest()))
            {
                reinvite.noAck(call);
            }
            else if (Call.State.ANSWERED == call.state())
            {
                call.end(SipServletResponse.SC_REQUEST_TIMEOUT, "the caller did not acknowledge the 2xx");
            }
        }
        catch (final IOException e)
        {
            call.end(SipServletResponse.SC_REQUEST_TIMEOUT, "no ACK to a 2xx, and then: " + e.getMessage());
        }
    }

    @Override
    public void noPrackReceived(final SipErrorEvent event)
    {
        // The gateway sends no reliable provisional responses (RFC 3262).
    }
}
