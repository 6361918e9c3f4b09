package io.sipline.examples.b2bua;

import javax.servlet.ServletException;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.URI;

import io.sipline.examples.forwarding.ForwardingServlet;

/**
 * The b2bua example: every initial INVITE is forwarded, as a back-to-back user agent, to the URI of the context
 * parameter {@code target} (e.g. {@code sip:service@127.0.0.1:5090}), whatever its Request-URI; responses, ACK, BYE
 * and CANCEL go through as {@link ForwardingServlet} describes.
 * <p>
 * Threading: the target is read once in {@link #init()}; the container serializes the calls of one call.
 */
public final class CallForwardingServlet extends ForwardingServlet
{
    private static final long serialVersionUID = 1L;

    /** The context parameter naming where calls go. */
    public static final String TARGET = "target";

    private transient URI target;

    @Override
    public void init() throws ServletException
    {
        final String value = getServletContext().getInitParameter(TARGET);
        if (null == value || value.isBlank())
        {
            throw new ServletException("the context parameter '" + TARGET + "' (a SIP URI) is missing");
        }
        final SipFactory factory = (SipFactory) getServletContext().getAttribute(SIP_FACTORY);
        try
        {
            target = factory.createURI(value.strip());
        }
        catch (final ServletParseException e)
        {
            throw new ServletException("the context parameter '" + TARGET + "' is not a URI: " + value, e);
        }
        log("forwarding every call to " + target);
    }

    @Override
    protected URI targetOf(final SipServletRequest invite)
    {
        return target.clone();
    }
}
