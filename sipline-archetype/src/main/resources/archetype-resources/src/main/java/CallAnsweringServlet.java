package ${package};

import java.io.IOException;

import javax.servlet.ServletException;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;

/**
 * Answers every call: an INVITE gets 180 Ringing, then 200 OK with the context parameter "greeting" in an
 * X-Greeting header; BYE and OPTIONS get 200 OK. The container does the rest of RFC 3261: the ACK, retransmissions,
 * CANCEL (487 to the INVITE), and the dialog.
 */
public class CallAnsweringServlet extends SipServlet
{
    private static final long serialVersionUID = 1L;

    @Override
    protected void doInvite(final SipServletRequest request) throws ServletException, IOException
    {
        request.createResponse(SipServletResponse.SC_RINGING).send();
        final SipServletResponse ok = request.createResponse(SipServletResponse.SC_OK);
        ok.setHeader("X-Greeting", getServletContext().getInitParameter("greeting"));
        ok.send();
    }

    @Override
    protected void doBye(final SipServletRequest request) throws ServletException, IOException
    {
        request.createResponse(SipServletResponse.SC_OK).send();
    }

    @Override
    protected void doOptions(final SipServletRequest request) throws ServletException, IOException
    {
        request.createResponse(SipServletResponse.SC_OK).send();
    }
}
