package io.sipline.examples.uac;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

import javax.servlet.ServletException;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletResponse;

/**
 * The uac example's servlet: receives the responses to the OPTIONS requests {@link OptionsPinger} sends (the
 * application's main servlet handles the sessions it creates), counts them in {@link OptionsCounters} and logs each
 * one with the running totals.
 * <p>
 * Threading: stateless; the counters are atomic.
 */
public final class OptionsServlet extends SipServlet
{
    private static final long serialVersionUID = 1L;

    @Override
    protected void doSuccessResponse(final SipServletResponse response) throws ServletException, IOException
    {
        count(response, OptionsCounters.of(getServletContext()).answered);
    }

    @Override
    protected void doErrorResponse(final SipServletResponse response) throws ServletException, IOException
    {
        count(response, OptionsCounters.of(getServletContext()).failed);
    }

    private void count(final SipServletResponse response, final AtomicLong counter)
    {
        counter.incrementAndGet();
        log("OPTIONS " + response.getStatus() + " " + response.getReasonPhrase() + " from " + response.getTo()
            + " (" + OptionsCounters.of(getServletContext()) + ")");
    }
}
