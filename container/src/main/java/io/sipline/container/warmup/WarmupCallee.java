package io.sipline.container.warmup;

import java.io.IOException;

import javax.servlet.ServletException;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;

/**
 * The far end of the {@link Warmup}'s calls, an application of a container of its own: it answers every INVITE with
 * 180 then 200 and every BYE with 200, so that the warm-up container's B2BUA relays a whole call. The container
 * retransmits the 200 until its ACK (RFC 3261 §13.3.1.4) and ends the dialog on the BYE.
 * <p>
 * Threading: stateless; the container serializes the calls of one call.
 */
public final class WarmupCallee extends SipServlet
{
    private static final long serialVersionUID = 1L;

    @Override
    protected void doInvite(final SipServletRequest request) throws ServletException, IOException
    {
        request.createResponse(SipServletResponse.SC_RINGING).send();
        request.createResponse(SipServletResponse.SC_OK).send();
    }

    @Override
    protected void doBye(final SipServletRequest request) throws ServletException, IOException
    {
        request.createResponse(SipServletResponse.SC_OK).send();
    }
}
