package io.sipline.junit.apps;

import java.io.IOException;

import javax.servlet.ServletException;
import javax.servlet.sip.Proxy;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServlet;

/** The extension tests' proxy: proxies every initial request, record-routing, to its init parameter "target". */
public class RelayServlet extends SipServlet
{
    private static final long serialVersionUID = 1L;

    @Override
    protected void doRequest(final SipServletRequest request) throws ServletException, IOException
    {
        if (!request.isInitial())
        {
            super.doRequest(request);
            return;
        }
        final SipFactory factory = (SipFactory)getServletContext().getAttribute(SIP_FACTORY);
        final Proxy proxy = request.getProxy();
        proxy.setRecordRoute(true);
        proxy.proxyTo(factory.createURI(getInitParameter("target")));
    }
}
