package io.sipline.examples.webrtcgateway;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import javax.servlet.sip.SipServletMessage;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.SipSession;

import io.sipline.media.service.MediaAnchor;

/**
 * One re-INVITE relayed from one leg of a call (X) to the other (Y) through the media anchor (RFC 3261 §14,
 * RFC 3264 §8), and the steps that relay it:
 * <ul>
 *   <li>with an offer: the offer goes to {@link MediaAnchor#reoffer}, Y gets the translated offer; Y's 2xx is
 *       acknowledged and its answer, translated by {@link MediaAnchor#answer}, goes to X in a 2xx;</li>
 *   <li>without an offer: Y gets an INVITE without a body; the offer in Y's 2xx goes to the anchor and its
 *       translation to X in a 2xx; X's answer comes in its ACK and, translated, goes to Y in the ACK held until
 *       then;</li>
 *   <li>Y refuses (3xx-6xx, such as 488 or 491): the anchor {@link MediaAnchor#withdraw() withdraws} the re-offer and
 *       keeps the previous session, X gets the same status (401/407 become 403; 408 and 481 end the call, RFC 5057
 *       §5.1: the dialog is gone);</li>
 *   <li>an offer or answer that cannot be anchored: 488 to a re-offer before anything was sent; once Y holds a 2xx
 *       the call is ended with BYE on both legs (RFC 3261 §13.2.2.4: an unusable offer in a 2xx is answered by
 *       an ACK and a BYE).</li>
 * </ul>
 * One re-INVITE at a time per call: another from the same leg gets 500 with {@code Retry-After}, one from the other
 * leg 491 (RFC 3261 §14.2).
 * <p>
 * Threading: called on the call's thread; the state is the {@link Call}'s.
 */
final class Reinvite
{
    private static final String SDP = "application/sdp";
    private static final int RETRY_AFTER_S = 1;

    private final SipServletRequest fromX;
    private final SipServletRequest toY;
    private final boolean offerInInvite;
    private SipServletResponse heldOk;

    private Reinvite(final SipServletRequest fromX, final SipServletRequest toY, final boolean offerInInvite)
    {
        this.fromX = fromX;
        this.toY = toY;
        this.offerInInvite = offerInInvite;
    }

    /** A re-INVITE from either leg of an established call. */
    static void received(final Call call, final SipServletRequest invite) throws IOException
    {
        final Reinvite pending = call.reinvite();
        if (null != pending)
        {
            if (sameSession(pending.fromX, invite))
            {
                final SipServletResponse busy = invite.createResponse(SipServletResponse.SC_SERVER_INTERNAL_ERROR);
                busy.setHeader("Retry-After", Integer.toString(RETRY_AFTER_S));
                busy.send();
            }
            else
            {
                Gateway.reject(invite, SipServletResponse.SC_REQUEST_PENDING, "a re-INVITE from the other side is "
                    + "in progress");
            }
            return;
        }
        if (Call.State.CONFIRMED != call.state())
        {
            Gateway.reject(invite, Call.State.ENDED == call.state() ? SipServletResponse.SC_CALL_LEG_DONE
                : SipServletResponse.SC_REQUEST_PENDING, "the call is " + call.state().name().toLowerCase());
            return;
        }
        final boolean fromA = !call.isCallee(invite.getSession());
        final SipServletRequest out = call.otherLeg(invite.getSession()).createRequest("INVITE");
        final String offer = Gateway.sdp(invite);
        if (null != offer)
        {
            try
            {
                out.setContent(call.anchor().reoffer(offer, fromA).getBytes(StandardCharsets.UTF_8), SDP);
            }
            catch (final IllegalArgumentException e) // SdpException: the re-offer cannot be anchored
            {
                Gateway.reject(invite, SipServletResponse.SC_NOT_ACCEPTABLE_HERE,
                    "the re-offer cannot be anchored: " + e.getMessage());
                return;
            }
            catch (final IllegalStateException e)
            {
                Gateway.reject(invite, SipServletResponse.SC_REQUEST_PENDING, e.getMessage());
                return;
            }
        }
        final Reinvite r = new Reinvite(invite, out, null != offer);
        call.reinvite(r);
        try
        {
            out.send();
        }
        catch (final IOException | RuntimeException e)
        {
            r.finish(call);
            Gateway.reject(invite, SipServletResponse.SC_SERVER_INTERNAL_ERROR, "the re-INVITE to the other side "
                + "failed: " + e.getMessage());
        }
    }

    /** @return whether {@code response} answers the re-INVITE this relays. */
    boolean isResponseTo(final SipServletResponse response)
    {
        return sameSession(toY, response) && cseq(toY) == cseq(response);
    }

    /** @return whether {@code ack} acknowledges the 2xx sent to X for this re-INVITE. */
    boolean isAckOf(final SipServletRequest ack)
    {
        return sameSession(fromX, ack) && cseq(fromX) == cseq(ack);
    }

    /** @return whether {@code request} is the re-INVITE received from X. */
    boolean isFrom(final SipServletRequest request)
    {
        return sameSession(fromX, request) && cseq(fromX) == cseq(request);
    }

    /** Y's response to the relayed re-INVITE. */
    void responded(final Call call, final SipServletResponse response) throws IOException
    {
        final int status = response.getStatus();
        if (status < 200)
        {
            return; // the call is up: ringing means nothing to X
        }
        if (status >= 300)
        {
            refused(call, response);
            return;
        }
        if (null != heldOk)
        {
            return; // a retransmitted 2xx: its ACK waits for X's answer
        }
        if (Call.State.ENDED == call.state() || fromX.isCommitted())
        {
            // the call ended, or X cancelled meanwhile: Y holds a session X does not
            response.createAck().send();
            finish(call);
            call.end(SipServletResponse.SC_REQUEST_TERMINATED, "the re-INVITE was answered after it ended");
            return;
        }
        if (offerInInvite)
        {
            answered(call, response);
        }
        else
        {
            offered(call, response);
        }
    }

    private void refused(final Call call, final SipServletResponse response) throws IOException
    {
        final int status = response.getStatus();
        finish(call);
        if (!fromX.isCommitted())
        {
            final boolean challenge = SipServletResponse.SC_UNAUTHORIZED == status ||
                SipServletResponse.SC_PROXY_AUTHENTICATION_REQUIRED == status;
            final SipServletResponse back = fromX.createResponse(challenge ? SipServletResponse.SC_FORBIDDEN : status,
                challenge ? null : response.getReasonPhrase());
            final String retryAfter = response.getHeader("Retry-After");
            if (null != retryAfter)
            {
                back.setHeader("Retry-After", retryAfter);
            }
            back.send();
        }
        if (SipServletResponse.SC_REQUEST_TIMEOUT == status || SipServletResponse.SC_CALL_LEG_DONE == status)
        {
            call.end(status, "the other side's dialog is gone (" + status + " to a re-INVITE)");
        }
    }

    /** The re-INVITE carried the offer: Y's 2xx carries the answer. */
    private void answered(final Call call, final SipServletResponse ok) throws IOException
    {
        ok.createAck().send();
        final String forX;
        try
        {
            final String answer = Gateway.sdp(ok);
            if (null == answer)
            {
                throw new IllegalArgumentException("the 2xx to the re-INVITE has no SDP answer");
            }
            forX = call.anchor().answer(answer);
        }
        catch (final IllegalArgumentException | IllegalStateException e)
        {
            giveUp(call, SipServletResponse.SC_BAD_GATEWAY, "the answer to the re-offer cannot be anchored: " +
                e.getMessage());
            return;
        }
        finish(call);
        final SipServletResponse back = fromX.createResponse(SipServletResponse.SC_OK);
        back.setContent(forX.getBytes(StandardCharsets.UTF_8), SDP);
        back.send();
    }

    /** The re-INVITE had no offer: Y's 2xx carries it, X answers in its ACK. */
    private void offered(final Call call, final SipServletResponse ok) throws IOException
    {
        final boolean yIsA = !call.isCallee(ok.getSession());
        final String forX;
        try
        {
            final String offer = Gateway.sdp(ok);
            if (null == offer)
            {
                throw new IllegalArgumentException("the 2xx to an INVITE without an offer has none (RFC 3264 §4)");
            }
            forX = call.anchor().reoffer(offer, yIsA);
        }
        catch (final IllegalArgumentException | IllegalStateException e)
        {
            ok.createAck().send();
            giveUp(call, SipServletResponse.SC_NOT_ACCEPTABLE_HERE, "the offer in the 2xx to the re-INVITE cannot be "
                + "anchored: " + e.getMessage());
            return;
        }
        heldOk = ok;
        final SipServletResponse back = fromX.createResponse(SipServletResponse.SC_OK);
        back.setContent(forX.getBytes(StandardCharsets.UTF_8), SDP);
        back.send();
    }

    /** X's ACK to the 2xx that carried the offer: its answer goes to Y in the ACK held until now. */
    void acknowledged(final Call call, final SipServletRequest ack) throws IOException
    {
        if (null == heldOk)
        {
            finish(call);
            return;
        }
        final SipServletRequest toYAck = heldOk.createAck();
        try
        {
            final String answer = Gateway.sdp(ack);
            if (null == answer)
            {
                throw new IllegalArgumentException("the ACK carries no SDP answer to the offer of the 2xx");
            }
            toYAck.setContent(call.anchor().answer(answer).getBytes(StandardCharsets.UTF_8), SDP);
        }
        catch (final IllegalArgumentException | IllegalStateException e)
        {
            toYAck.send();
            giveUp(call, SipServletResponse.SC_NOT_ACCEPTABLE_HERE, "the answer in the ACK cannot be anchored: " +
                e.getMessage());
            return;
        }
        finish(call);
        toYAck.send();
    }

    /** X never acknowledged the 2xx of this re-INVITE (RFC 3261 §13.3.1.4): the call cannot go on. */
    void noAck(final Call call) throws IOException
    {
        if (null != heldOk)
        {
            heldOk.createAck().send();
        }
        giveUp(call, SipServletResponse.SC_REQUEST_TIMEOUT, "no ACK to the 2xx of the re-INVITE");
    }

    /** X cancelled its re-INVITE (the container has answered it 487): cancel Y's. */
    void cancelled()
    {
        try
        {
            toY.createCancel().send();
        }
        catch (final IOException | IllegalStateException e)
        {
            // Y has answered already: its response comes through responded()
        }
    }

    /** The exchange failed after Y accepted it: the previous session is gone on Y's side, so the call ends. */
    private void giveUp(final Call call, final int status, final String reason) throws IOException
    {
        finish(call);
        Gateway.reject(fromX, status, reason);
        call.end(status, reason);
    }

    /** The exchange is over: the anchor forgets a re-offer still waiting, the call takes the next re-INVITE. */
    private void finish(final Call call)
    {
        if (call.reinvite() == this)
        {
            call.reinvite(null);
        }
        final MediaAnchor anchor = call.anchor();
        if (null != anchor)
        {
            anchor.withdraw();
        }
    }

    /** Answers X's re-INVITE, if still unanswered, because the call ends. */
    void endCall(final int status, final String reason) throws IOException
    {
        Gateway.reject(fromX, status, reason);
    }

    private static boolean sameSession(final SipServletMessage a, final SipServletMessage b)
    {
        final SipSession s = a.getSession();
        return null != s && s.getId().equals(b.getSession().getId());
    }

    /** The CSeq number of a message (RFC 3261 §20.16). */
    private static long cseq(final SipServletMessage message)
    {
        final String value = message.getHeader("CSeq").strip();
        final int space = value.indexOf(' ');
        return Long.parseLong(-1 == space ? value : value.substring(0, space));
    }
}
