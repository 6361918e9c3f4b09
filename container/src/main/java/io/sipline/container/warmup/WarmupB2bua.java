package io.sipline.container.warmup;

import java.io.IOException;

import javax.servlet.ServletException;
import javax.servlet.sip.B2buaHelper;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.SipSession;
import javax.servlet.sip.URI;

/**
 * The application of the {@link Warmup}: a back-to-back user agent that sends every initial INVITE to the URI of its
 * context parameter {@value #TARGET} and relays the call's provisional and final responses, the ACK of the 2xx and
 * the BYE, through {@link B2buaHelper} as an application would, so that the container's paths for a relayed call run
 * (and are compiled) before the server takes traffic. It never runs beside the deployed applications.
 * <p>
 * Threading: the target is read once in {@link #init()}; the container serializes the calls of one call.
 */
public final class WarmupB2bua extends SipServlet
{
    private static final long serialVersionUID = 1L;

    /** The context parameter naming where calls go. */
    public static final String TARGET = "target";
    /** The session attribute holding the callee's 2xx until the caller's ACK. */
    private static final String ANSWER = WarmupB2bua.class.getName() + ".answer";

    private transient URI target;

    @Override
    public void init() throws ServletException
    {
        final String value = getServletContext().getInitParameter(TARGET);
        try
        {
            target = ((SipFactory)getServletContext().getAttribute(SIP_FACTORY)).createURI(value);
        }
        catch (final ServletParseException | NullPointerException e)
        {
            throw new ServletException("the warm-up target is not a SIP URI: " + value, e);
        }
    }

    @Override
    protected void doInvite(final SipServletRequest request) throws ServletException, IOException
    {
        final SipServletRequest forward = request.getB2buaHelper().createRequest(request, true, null);
        forward.setRequestURI(target.clone());
        forward.send();
    }

    @Override
    protected void doAck(final SipServletRequest ack) throws ServletException, IOException
    {
        final SipSession callee = linked(ack);
        if (null != callee && callee.getAttribute(ANSWER) instanceof SipServletResponse answer)
        {
            callee.removeAttribute(ANSWER);
            answer.createAck().send();
        }
    }

    @Override
    protected void doBye(final SipServletRequest bye) throws ServletException, IOException
    {
        bye.createResponse(SipServletResponse.SC_OK).send();
        final SipSession other = linked(bye);
        if (null != other && other.isValid())
        {
            other.createRequest("BYE").send();
        }
    }

    @Override
    protected void doProvisionalResponse(final SipServletResponse response) throws ServletException, IOException
    {
        relay(response);
    }

    @Override
    protected void doSuccessResponse(final SipServletResponse response) throws ServletException, IOException
    {
        if ("INVITE".equals(response.getMethod()))
        {
            response.getSession().setAttribute(ANSWER, response);
        }
        relay(response);
    }

    @Override
    protected void doErrorResponse(final SipServletResponse response) throws ServletException, IOException
    {
        relay(response);
    }

    /** The callee's answer to the caller's INVITE (not a 100, not the answer to a BYE). */
    private static void relay(final SipServletResponse response) throws IOException
    {
        if (!"INVITE".equals(response.getMethod()) || SipServletResponse.SC_TRYING == response.getStatus())
        {
            return;
        }
        final B2buaHelper helper = response.getRequest().getB2buaHelper();
        final SipServletRequest upstream = helper.getLinkedSipServletRequest(response.getRequest());
        if (null == upstream || upstream.isCommitted())
        {
            return;
        }
        helper.createResponseToOriginalRequest(upstream.getSession(), response.getStatus(),
            response.getReasonPhrase()).send();
    }

    private static SipSession linked(final SipServletRequest request)
    {
        return request.getB2buaHelper().getLinkedSession(request.getSession());
    }
}
