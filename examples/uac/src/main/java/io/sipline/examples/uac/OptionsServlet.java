package io.sipline.examples.uac;

import java.io.IOException;

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
        final OptionsCounters counters = OptionsCounters.of(getServletContext());
        counters.answered.incrementAndGet();
        log("OPTIONS " + response.getStatus() + " " + response.getReasonPhrase() + " from " + response.getTo()
            + " (" + counters + ")");
    }

    @Override
    protected void doErrorResponse(final SipServletResponse response) throws ServletException, IOException
    {
        final OptionsCounters counters = OptionsCounters.of(getServletContext());
        counters.failed.incrementAndGet();
        log("OPTIONS " + response.getStatus() + " " + response.getReasonPhrase() + " for " + response.getTo()
            + " (" + counters + ")");
    }
}
