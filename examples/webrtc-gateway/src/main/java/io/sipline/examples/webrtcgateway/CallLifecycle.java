package io.sipline.examples.webrtcgateway;

import javax.servlet.sip.ServletTimer;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipApplicationSessionEvent;
import javax.servlet.sip.SipApplicationSessionListener;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.TimerListener;

/**
 * The application's listener (sip.xml): ends a call when the media service reported a failed handshake or silent
 * media ({@link Call} set a timer whose info starts with {@link Call#HANG_UP}), keeps a call's application session
 * alive while the call goes on, and frees the anchor of an application session that goes away, whatever happened
 * before.
 * <p>
 * Threading: the container calls it on the call's thread.
 */
public final class CallLifecycle implements TimerListener, SipApplicationSessionListener
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
}
