package io.sipline.examples.typical;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import javax.servlet.ServletException;
import javax.servlet.sip.B2buaHelper;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletMessage;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.SipSession;
import javax.servlet.sip.URI;
import javax.servlet.sip.UAMode;

/**
 * A call-forwarding B2BUA written the way applications usually are (JSR 289 §4.1.3 {@code B2buaHelper}): every
 * initial INVITE goes to the context parameter {@code target} with a custom {@code X-Call-Ref} header; the call's
 * parties, start time and reference are kept on the application session and each leg's role and state on its SIP
 * session; responses are relayed with {@code createResponseToOriginalRequest}, the caller's ACK becomes the ACK of
 * the callee's 2xx ({@code getPendingMessages}), BYE, re-INVITE, UPDATE and INFO are relayed to the linked leg and
 * their responses back, CANCEL is relayed; {@link CallCounters} counts the sessions, and every {@code log-every}
 * calls a line goes to {@code ServletContext.log}. Invalidation is left to the container.
 * <p>
 * Threading: the container calls it for one call at a time on that call's thread; {@link #calls} is atomic.
 */
public final class TypicalB2buaServlet extends SipServlet
{
    private static final long serialVersionUID = 1L;

    private final AtomicLong calls = new AtomicLong();
    private transient URI target;
    private int logEvery;

    @Override
    public void init() throws ServletException
    {
        final SipFactory factory = (SipFactory)getServletContext().getAttribute(SIP_FACTORY);
        final String uri = getServletContext().getInitParameter("target");
        try
        {
            target = factory.createURI(null == uri ? "sip:service@127.0.0.1:5090" : uri);
        }
        catch (final javax.servlet.sip.ServletParseException e)
        {
            throw new ServletException("context parameter target is not a URI: " + uri, e);
        }
        final String every = getServletContext().getInitParameter("log-every");
        logEvery = null == every ? 10 : Integer.parseInt(every.trim());
    }

    @Override
    protected void doInvite(final SipServletRequest request) throws ServletException, IOException
    {
        if (!request.isInitial())
        {
            relay(request);
            return;
        }
        final long n = calls.incrementAndGet();
        final String ref = "call-" + n;
        final SipApplicationSession call = request.getApplicationSession();
        call.setAttribute("caller", request.getFrom().getURI().toString());
        call.setAttribute("callee", request.getTo().getURI().toString());
        call.setAttribute("started", System.currentTimeMillis());
        call.setAttribute("ref", ref);
        final SipSession callerLeg = request.getSession();
        callerLeg.setAttribute("role", "caller");
        callerLeg.setAttribute("state", "offered");

        final B2buaHelper helper = request.getB2buaHelper();
        final SipServletRequest out = helper.createRequest(request, true, Map.of("X-Call-Ref", List.of(ref)));
        out.setRequestURI(target);
        final SipSession calleeLeg = out.getSession();
        calleeLeg.setAttribute("role", "callee");
        calleeLeg.setAttribute("state", "offered");
        out.send();
        if (logEvery > 0 && n % logEvery == 0)
        {
            getServletContext().log("typical-b2bua: " + n + " calls placed; " + CallCounters.line());
        }
    }

    @Override
    protected void doAck(final SipServletRequest ack) throws ServletException, IOException
    {
        final B2buaHelper helper = ack.getB2buaHelper();
        final SipSession callee = helper.getLinkedSession(ack.getSession());
        if (null == callee)
        {
            return;
        }
        for (final SipServletMessage m : helper.getPendingMessages(callee, UAMode.UAC))
        {
            if (m instanceof SipServletResponse ok && ok.getStatus() / 100 == 2)
            {
                final SipServletRequest relayed = ok.createAck();
                if (ack.getContentLength() > 0)
                {
                    relayed.setContent(ack.getRawContent(), ack.getContentType());
                }
                relayed.send();
            }
        }
        ack.getSession().setAttribute("state", "confirmed");
        callee.setAttribute("state", "confirmed");
    }

    @Override
    protected void doBye(final SipServletRequest bye) throws ServletException, IOException
    {
        bye.getSession().setAttribute("state", "ended");
        relay(bye);
    }

    @Override
    protected void doUpdate(final SipServletRequest request) throws ServletException, IOException
    {
        relay(request);
    }

    @Override
    protected void doInfo(final SipServletRequest request) throws ServletException, IOException
    {
        relay(request);
    }

    @Override
    protected void doCancel(final SipServletRequest cancel) throws ServletException, IOException
    {
        // The container has answered the CANCEL and the caller's INVITE (487); cancel the callee's INVITE.
        final B2buaHelper helper = cancel.getB2buaHelper();
        final SipSession callee = helper.getLinkedSession(cancel.getSession());
        if (null == callee)
        {
            return;
        }
        for (final SipServletMessage m : helper.getPendingMessages(callee, UAMode.UAC))
        {
            if (m instanceof SipServletRequest invite && "INVITE".equals(invite.getMethod()))
            {
                invite.createCancel().send();
            }
        }
        cancel.getSession().setAttribute("state", "cancelled");
    }

    @Override
    protected void doResponse(final SipServletResponse response) throws ServletException, IOException
    {
        final int status = response.getStatus();
        if (100 == status)
        {
            return; // hop by hop
        }
        final B2buaHelper helper = response.getRequest().getB2buaHelper();
        final SipServletResponse back;
        if ("INVITE".equals(response.getMethod()) && response.getRequest().isInitial())
        {
            final SipSession caller = helper.getLinkedSession(response.getSession());
            final SipServletRequest original = helper.getLinkedSipServletRequest(response.getRequest());
            if (null == caller || null == original || original.isCommitted())
            {
                return; // the caller cancelled: its INVITE is answered already
            }
            back = helper.createResponseToOriginalRequest(caller, status, response.getReasonPhrase());
            response.getSession().setAttribute("state", status < 200 ? "early" : status < 300 ? "answered" : "failed");
        }
        else
        {
            final SipServletRequest original = helper.getLinkedSipServletRequest(response.getRequest());
            if (null == original || original.isCommitted())
            {
                return;
            }
            back = original.createResponse(status, response.getReasonPhrase());
        }
        if (response.getContentLength() > 0)
        {
            back.setContent(response.getRawContent(), response.getContentType());
        }
        back.send();
    }

    /** An in-dialog request to the linked leg; its response comes back through {@link #doResponse}. */
    private static void relay(final SipServletRequest request) throws IOException
    {
        final B2buaHelper helper = request.getB2buaHelper();
        final SipSession other = helper.getLinkedSession(request.getSession());
        if (null == other || !other.isValid())
        {
            request.createResponse(SipServletResponse.SC_CALL_LEG_DONE).send();
            return;
        }
        final SipServletRequest out = helper.createRequest(other, request, null);
        if (request.getContentLength() > 0)
        {
            out.setContent(request.getRawContent(), request.getContentType());
        }
        out.send();
    }
}
