package io.sipline.junit.apps;

import java.io.IOException;

import javax.servlet.ServletException;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;

/**
 * The extension tests' callee application: INVITE gets 180 then 200 (with the context parameter "greeting" in an
 * X-Greeting header), BYE, OPTIONS and REGISTER get 200, INFO gets 486 so a test sees a non-2xx.
 */
public class AnsweringServlet extends SipServlet
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

    @Override
    protected void doRegister(final SipServletRequest request) throws ServletException, IOException
    {
        final SipServletResponse ok = request.createResponse(SipServletResponse.SC_OK);
        ok.setHeader("Contact", request.getHeader("Contact"));
        ok.send();
    }

    @Override
    protected void doInfo(final SipServletRequest request) throws ServletException, IOException
    {
        request.createResponse(SipServletResponse.SC_BUSY_HERE).send();
    }
}
