package io.sipline.examples.forwarding;

import java.io.IOException;

import javax.servlet.ServletException;
import javax.servlet.sip.B2buaHelper;
import javax.servlet.sip.Rel100Exception;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletMessage;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.SipSession;
import javax.servlet.sip.TooManyHopsException;
import javax.servlet.sip.URI;

/**
 * A back-to-back user agent (JSR 289 §12) that forwards each initial INVITE to the URI a subclass picks
 * ({@link #targetOf}), written against the standard API only. Two legs per call, linked by the {@link B2buaHelper}:
 * the INVITE is copied as a linked request ({@link #doInvite}); provisional (other than 100) and final responses go
 * back to the caller with their body through {@link B2buaHelper#createResponseToOriginalRequest}; the caller's ACK
 * for a 2xx becomes an ACK made from that 2xx ({@link #doAck}); a BYE is answered at once and sent on the other leg;
 * a CANCEL cancels the callee leg ({@link #doCancel}); any other request inside the dialog is relayed, and its
 * responses back, through linked requests.
 *
 * <p>A 2xx of another dialog of the INVITE (a proxy beyond the callee leg forked it; JSR 289 §6.2.3.2 derived
 * sessions) is relayed to the caller as a dialog of its own ({@link #relayForked}). A reliable provisional response
 * (RFC 3262) is relayed reliably when the caller supports 100rel, else as an ordinary one and acknowledged here with
 * a PRACK ({@link #sendReliably}).
 *
 * <p>Threading: the container serializes the calls for one application session (JSR 289 §6.4.2.1 concurrency); the
 * servlet itself keeps no per-call state in fields.
 */
public abstract class ForwardingServlet extends SipServlet
{
    private static final long serialVersionUID = 1L;

    /** On the callee leg: the last 2xx to an INVITE, kept until the caller's ACK arrives. */
    private static final String ANSWER = ForwardingServlet.class.getName() + ".answer";

    /**
     * Picks where an initial INVITE goes, or answers it itself.
     *
     * @param invite the caller's initial INVITE.
     * @return the URI to forward to (a fresh object: it becomes the new Request-URI), or {@code null} when this
     *         method has sent a final response itself (e.g. 404 for an unknown user).
     */
    protected abstract URI targetOf(SipServletRequest invite) throws ServletException, IOException;

    /**
     * An initial INVITE is copied with {@link B2buaHelper#createRequest(SipServletRequest, boolean, java.util.Map)}
     * (linked, so non-system headers and the body come along), its Request-URI set to the target, and sent.
     */
    @Override
    protected void doInvite(final SipServletRequest request) throws ServletException, IOException
    {
        if (!request.isInitial())
        {
            relay(request);
            return;
        }
        final URI target = targetOf(request);
        if (null == target)
        {
            return;
        }
        final SipServletRequest forward;
        try
        {
            forward = request.getB2buaHelper().createRequest(request, true, null);
        }
        catch (final TooManyHopsException e)
        {
            request.createResponse(SipServletResponse.SC_TOO_MANY_HOPS).send();
            return;
        }
        forward.setRequestURI(target);
        forward.send();
    }

    /**
     * The caller's ACK for a 2xx is answered by an ACK on the callee leg, made from the 2xx itself
     * ({@link SipServletResponse#createAck()}; RFC 3261 §13.2.2.4: the ACK for a 2xx is end to end).
     */
    @Override
    protected void doAck(final SipServletRequest ack) throws ServletException, IOException
    {
        final SipSession callee = linkedSession(ack);
        if (null == callee || !callee.isValid())
        {
            return;
        }
        final SipServletResponse answer = (SipServletResponse) callee.getAttribute(ANSWER);
        if (null == answer)
        {
            return; // the ACK of a non-2xx final response ends at the container's transaction
        }
        callee.removeAttribute(ANSWER);
        final SipServletRequest forward = answer.createAck();
        copyBody(ack, forward);
        forward.send();
    }

    /** A BYE from either side is answered 200 at once and a BYE is sent on the other leg. */
    @Override
    protected void doBye(final SipServletRequest bye) throws ServletException, IOException
    {
        bye.createResponse(SipServletResponse.SC_OK).send();
        final SipSession other = linkedSession(bye);
        if (null != other && other.isValid())
        {
            other.createRequest("BYE").send();
        }
    }

    /**
     * The container has answered the CANCEL and the INVITE (487, JSR 289 §11.2.3); the callee leg is cancelled with
     * {@link B2buaHelper#createCancel}, and the callee's 487 then goes nowhere (the caller's INVITE is already
     * answered). A 2xx that crosses the CANCEL is acknowledged and hung up with a BYE ({@link #relayResponse}).
     */
    @Override
    protected void doCancel(final SipServletRequest cancel) throws ServletException, IOException
    {
        final SipSession callee = linkedSession(cancel);
        if (null == callee || !callee.isValid())
        {
            return;
        }
        try
        {
            cancel.getB2buaHelper().createCancel(callee).send();
        }
        catch (final IllegalStateException e)
        {
            // the callee's final response crossed the CANCEL; relayResponse handles a crossing 2xx
            log("CANCEL not forwarded: " + e.getMessage());
        }
    }

    /** Any other request inside the dialog (re-INVITE, UPDATE, INFO, PRACK, ...) is relayed to the other leg. */
    @Override
    protected void doRequest(final SipServletRequest request) throws ServletException, IOException
    {
        final String method = request.getMethod();
        if (!request.isInitial() && !"ACK".equals(method) && !"BYE".equals(method) && !"CANCEL".equals(method)
            && !"INVITE".equals(method))
        {
            relay(request);
            return;
        }
        super.doRequest(request);
    }

    @Override
    protected void doProvisionalResponse(final SipServletResponse response) throws ServletException, IOException
    {
        relayResponse(response);
    }

    @Override
    protected void doSuccessResponse(final SipServletResponse response) throws ServletException, IOException
    {
        if ("INVITE".equals(response.getMethod()))
        {
            response.getSession().setAttribute(ANSWER, response);
        }
        relayResponse(response);
    }

    @Override
    protected void doRedirectResponse(final SipServletResponse response) throws ServletException, IOException
    {
        relayResponse(response);
    }

    /** Error responses go back too, including the 408 the container makes for Timer B (RFC 3261 §17.1.1.2). */
    @Override
    protected void doErrorResponse(final SipServletResponse response) throws ServletException, IOException
    {
        relayResponse(response);
    }

    /** Sends a request received inside a dialog on the other leg, linked to it so that its responses come back. */
    private void relay(final SipServletRequest request) throws IOException
    {
        final SipSession other = linkedSession(request);
        if (null == other || !other.isValid())
        {
            request.createResponse(SipServletResponse.SC_CALL_LEG_DONE).send();
            return;
        }
        final SipServletRequest forward = request.getB2buaHelper().createRequest(other, request, null);
        forward.send();
    }

    /**
     * Answers the caller with the callee's response. Responses to our own BYE and CANCEL end here: the BYE was
     * answered when it came in, and the caller's CANCEL was answered by the container.
     */
    private void relayResponse(final SipServletResponse response) throws IOException
    {
        final String method = response.getMethod();
        if ("BYE".equals(method) || "CANCEL".equals(method) || SipServletResponse.SC_TRYING == response.getStatus())
        {
            return;
        }
        final SipServletRequest request = response.getRequest();
        final B2buaHelper helper = request.getB2buaHelper();
        final SipServletRequest upstream = helper.getLinkedSipServletRequest(request);
        if (null == upstream)
        {
            return;
        }
        // The caller's leg may be over already (its CANCEL answered with 487 and ACKed, or its transaction timed out):
        // its session is then invalid, and no session may be linked to it (JSR 289 B2buaHelper.getLinkedSession
        // throws); the response is handled as one to a request already answered.
        final boolean upstreamOver = !upstream.getSession().isValid();
        // another dialog of the forked INVITE, in a session the container derived for it (JSR 289 §6.2.3.2)
        final boolean forked = !upstreamOver && "INVITE".equals(method) && upstream.isInitial()
            && response.getStatus() < 300 && response.getSession() != helper.getLinkedSession(upstream.getSession());
        if (upstreamOver || upstream.isCommitted())
        {
            if ("INVITE".equals(method) && response.getStatus() / 100 == 2 && !(forked && relayForked(helper,
                response)))
            {
                // the caller's request is answered with an error already (its CANCEL won the race): end a crossing
                // 2xx on this leg
                response.getSession().removeAttribute(ANSWER);
                response.createAck().send();
                response.getSession().createRequest("BYE").send();
            }
            return;
        }
        final SipServletResponse back = "INVITE".equals(method) && upstream.isInitial() ?
            helper.createResponseToOriginalRequest(forked ? response.getSession() : upstream.getSession(),
                response.getStatus(), response.getReasonPhrase()) :
            upstream.createResponse(response.getStatus(), response.getReasonPhrase());
        copyBody(response, back);
        if (response.getStatus() < 200 && null != response.getHeader("RSeq"))
        {
            sendReliably(response, back);
            return;
        }
        back.send();
    }

    /**
     * A 2xx of another dialog of the forked INVITE after the caller got the first one (a forking proxy beyond the
     * callee leg): the container gives it to this servlet in a derived session (JSR 289 §6.2.3.2), and
     * {@link B2buaHelper#createResponseToOriginalRequest} on that session answers the caller's INVITE again, in a
     * dialog of its own (a new To tag, a new session linked to the derived one), whose ACK, BYE and other requests are
     * relayed to that callee dialog like the first one's (RFC 3261 §13.2.2.4: the caller acknowledges each 2xx and
     * hangs up the dialogs it does not want).
     *
     * @return false when the caller's INVITE cannot take it (it was answered with an error, e.g. 487 after its
     *         CANCEL): the 2xx is then acknowledged and hung up here.
     */
    private static boolean relayForked(final B2buaHelper helper, final SipServletResponse response)
        throws IOException
    {
        final SipServletResponse back;
        try
        {
            back = helper.createResponseToOriginalRequest(response.getSession(), response.getStatus(),
                response.getReasonPhrase());
        }
        catch (final IllegalStateException e)
        {
            return false;
        }
        copyBody(response, back);
        back.send();
        return true;
    }

    /**
     * RFC 3262: the callee sent {@code response} reliably and waits for its PRACK. When the caller supports 100rel,
     * the response goes on reliably and the caller's PRACK is relayed like any request in the dialog; otherwise it
     * goes on as an ordinary provisional response and this B2BUA acknowledges it itself.
     */
    private static void sendReliably(final SipServletResponse response, final SipServletResponse back)
        throws IOException
    {
        try
        {
            back.sendReliably();
        }
        catch (final Rel100Exception e)
        {
            back.send();
            try
            {
                response.createPrack().send();
            }
            catch (final Rel100Exception notReliable)
            {
                throw new IOException("the callee's " + response.getStatus() + " is not reliable", notReliable);
            }
        }
    }

    private static SipSession linkedSession(final SipServletRequest request)
    {
        return request.getB2buaHelper().getLinkedSession(request.getSession());
    }

    private static void copyBody(final SipServletMessage from, final SipServletMessage to) throws IOException
    {
        final byte[] body = from.getRawContent();
        if (null != body && body.length > 0)
        {
            to.setContent(body, from.getContentType());
        }
    }
}
