package io.sipline.examples.webrtcgateway;

import java.io.IOException;

import javax.servlet.ServletContext;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.SipSession;
import javax.servlet.sip.TimerService;

import io.sipline.media.service.MediaAnchor;
import io.sipline.media.service.MediaListener;

/**
 * One gatewayed call: the caller's INVITE (leg A), the INVITE sent to the callee (leg B), the media anchor between
 * them and where the call stands. Kept as the application session's attribute {@link #ATTRIBUTE}. Ending a call, for
 * whatever reason, ends both legs (CANCEL, a final response or BYE, as each leg stands) and the anchor, once.
 * <p>
 * The media service reports idle media and failed DTLS-SRTP handshakes on threads of its own: this class turns each
 * into a timer of the application session ({@link CallLifecycle} fires it), so that the call is only ever changed
 * on the call's own thread.
 * <p>
 * Threading: the state is read and changed on the call's thread (the servlet, the timer); the listener methods run
 * on the media service's threads and only create a timer.
 */
final class Call implements MediaListener
{
    /** The application session attribute holding the call. */
    static final String ATTRIBUTE = "webrtc-gateway.call";
    /** The prefix of the info of a timer that ends the call; the rest is the reason. */
    static final String HANG_UP = "hang-up: ";

    /** Where the call stands. */
    enum State
    {
        /** The callee has the INVITE, no answer yet. */
        OFFERED,
        /** The callee answered, the caller has the 2xx and its ACK is awaited. */
        ANSWERED,
        /** Both legs confirmed. */
        CONFIRMED,
        /** Over; the anchor is ended. */
        ENDED
    }

    private final SipApplicationSession application;
    private final TimerService timers;
    private final ServletContext log;
    private final boolean endOnMediaTimeout;
    private final SipServletRequest callerInvite;
    private volatile SipServletRequest calleeInvite;
    private volatile MediaAnchor anchor;
    private volatile State state = State.OFFERED;
    private volatile boolean calleeAnswered;
    private volatile Reinvite reinvite;

    Call(final SipServletRequest callerInvite, final TimerService timers, final ServletContext log,
        final boolean endOnMediaTimeout)
    {
        this.callerInvite = callerInvite;
        this.application = callerInvite.getApplicationSession();
        this.timers = timers;
        this.log = log;
        this.endOnMediaTimeout = endOnMediaTimeout;
    }

    /** The call of an application session, or null. */
    static Call of(final SipApplicationSession application)
    {
        return application.isValid() ? (Call)application.getAttribute(ATTRIBUTE) : null;
    }

    void anchored(final MediaAnchor anchor, final SipServletRequest calleeInvite)
    {
        this.anchor = anchor;
        this.calleeInvite = calleeInvite;
    }

    MediaAnchor anchor()
    {
        return anchor;
    }

    SipServletRequest callerInvite()
    {
        return callerInvite;
    }

    State state()
    {
        return state;
    }

    void state(final State next)
    {
        if (State.ENDED != state)
        {
            state = next;
        }
    }

    /** The callee's INVITE has a 2xx (acknowledged): its leg is ended with BYE from now on. */
    void calleeAnswered()
    {
        calleeAnswered = true;
    }

    boolean isCalleeAnswered()
    {
        return calleeAnswered;
    }

    /** The re-INVITE being relayed, or null. */
    Reinvite reinvite()
    {
        return reinvite;
    }

    void reinvite(final Reinvite relayed)
    {
        reinvite = relayed;
    }

    /** The leg that is not {@code leg}. */
    SipSession otherLeg(final SipSession leg)
    {
        return isCallee(leg) ? callerInvite.getSession() : calleeInvite.getSession();
    }

    /** Whether {@code session} is the callee's leg. */
    boolean isCallee(final SipSession session)
    {
        final SipServletRequest b = calleeInvite;
        return null != b && b.getSession().getId().equals(session.getId());
    }

    @Override
    public void onMediaTimeout(final MediaAnchor anchor, final int stream, final long idleMs)
    {
        if (endOnMediaTimeout && (State.ANSWERED == state || State.CONFIRMED == state)) // not while it rings
        {
            schedule("no media on stream " + stream + " for " + idleMs / 1000 + " s");
        }
    }

    @Override
    public void onHandshakeFailed(final MediaAnchor anchor, final int stream, final String reason)
    {
        schedule("DTLS-SRTP handshake failed on stream " + stream + ": " + reason);
    }

    private void schedule(final String reason)
    {
        try
        {
            if (application.isValid() && State.ENDED != state)
            {
                timers.createTimer(application, 0, false, HANG_UP + reason);
            }
        }
        catch (final IllegalStateException e)
        {
            anchor.end(); // the application session went away meanwhile: at least free the media
        }
    }

    /**
     * Ends the call on both legs and frees the anchor, each leg as it stands: the callee's INVITE cancelled until it
     * has a 2xx and sent BYE after; the caller's INVITE answered with {@code status} until it has a final response,
     * and sent BYE after a 2xx. Idempotent.
     *
     * @param status the caller's final response if it has none yet.
     * @param reason why, for the Reason header of the BYEs (RFC 3326) and the Warning of a response.
     */
    void end(final int status, final String reason)
    {
        if (State.ENDED == state)
        {
            return;
        }
        final State was = state;
        state = State.ENDED;
        log.log("webrtc-gateway: call " + application.getId() + " ended: " + reason);
        try
        {
            answerReinvite(status, reason);
            final SipServletRequest b = calleeInvite;
            if (calleeAnswered)
            {
                bye(b.getSession(), reason);
            }
            else if (null != b)
            {
                quietly(() -> b.createCancel().send()); // refused once a final response came: nothing to cancel
            }
            if (!callerInvite.isCommitted())
            {
                quietly(() -> Gateway.reject(callerInvite, status, reason));
            }
            else if (State.OFFERED != was)
            {
                bye(callerInvite.getSession(), reason);
            }
        }
        finally
        {
            release();
        }
    }

    /**
     * Ends the call after one leg sent BYE (answered by the caller of this): BYE to the other leg, the anchor freed.
     */
    void endedBy(final SipSession leg, final String reason)
    {
        if (State.ENDED == state)
        {
            return;
        }
        state = State.ENDED;
        log.log("webrtc-gateway: call " + application.getId() + " ended: " + reason);
        try
        {
            // RFC 3261 §15.1.2: a BYE ends the INVITE still pending on the dialog with 487.
            answerReinvite(SipServletResponse.SC_REQUEST_TERMINATED, reason);
            bye(otherLeg(leg), reason);
        }
        finally
        {
            release();
        }
    }

    /** Frees the anchor without signalling (the application session is going away). */
    void release()
    {
        state = State.ENDED;
        final MediaAnchor a = anchor;
        if (null != a)
        {
            a.end();
        }
    }

    private void answerReinvite(final int status, final String reason)
    {
        final Reinvite r = reinvite;
        reinvite = null;
        if (null != r)
        {
            quietly(() -> r.endCall(status, reason));
        }
    }

    private void bye(final SipSession leg, final String reason)
    {
        if (null == leg || !leg.isValid() || SipSession.State.TERMINATED == leg.getState())
        {
            return;
        }
        quietly(() ->
        {
            final SipServletRequest bye = leg.createRequest("BYE");
            bye.setHeader("Reason", "SIP;cause=200;text=\"" + Gateway.quoted(reason) + "\"");
            bye.send();
        });
    }

    private void quietly(final Step step)
    {
        try
        {
            step.run();
        }
        catch (final IOException | RuntimeException e)
        {
            log.log("webrtc-gateway: call " + application.getId() + ": " + e.getMessage());
        }
    }

    /** One signalling step that may fail on its own without stopping the others. */
    @FunctionalInterface
    private interface Step
    {
        void run() throws IOException;
    }

    /** Whether a final response to the caller's INVITE is still to be sent. */
    boolean callerUnanswered()
    {
        return !callerInvite.isCommitted();
    }

    /** A response the caller's INVITE would get, for the servlet to fill and send. */
    SipServletResponse callerResponse(final int status)
    {
        return callerInvite.createResponse(status);
    }
}
