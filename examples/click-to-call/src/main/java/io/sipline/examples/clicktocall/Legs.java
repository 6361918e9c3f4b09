package io.sipline.examples.clicktocall;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;

import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.SipSession;

/**
 * The two legs of a third-party call and how each is ended. The first party's SIP session is the {@link #FIRST}
 * leg, the second party's the {@link #SECOND} (the {@link #LEG} attribute); each keeps the INVITE sent to it
 * ({@link #INVITE}) for a CANCEL. The application session holds the two parties ({@link #FROM}, {@link #TO}), the
 * first party's 2xx while its ACK waits for the second party's answer ({@link #PENDING_ACK}), and {@link #ENDING}
 * once a hang-up started.
 * <p>
 * Threading: called by the container on the call's own thread (the servlet, the timer listener).
 */
final class Legs
{
    static final String LEG = "leg";
    static final String FIRST = "first";
    static final String SECOND = "second";
    static final String INVITE = "invite";
    static final String FROM = "from";
    static final String TO = "to";
    static final String PENDING_ACK = "pending-ack";
    static final String ENDING = "ending";

    private Legs()
    {
    }

    /** Whether {@code session} is the leg of the first party. */
    static boolean isFirst(final SipSession session)
    {
        return FIRST.equals(session.getAttribute(LEG));
    }

    /** Whether a hang-up of the call has started. */
    static boolean ending(final SipApplicationSession call)
    {
        return Boolean.TRUE.equals(call.getAttribute(ENDING));
    }

    /**
     * Ends every leg of {@code call} but {@code except} (null for all): a 2xx still waiting for its ACK is ACKed
     * with an answer that refuses its offer, then the leg gets a BYE; a confirmed leg gets a BYE; a leg whose INVITE
     * is still unanswered gets a CANCEL (RFC 3261 §9.1; should its 2xx cross the CANCEL, the servlet ACKs and ends
     * it then).
     */
    static void endAll(final SipApplicationSession call, final SipSession except) throws IOException
    {
        call.setAttribute(ENDING, Boolean.TRUE);
        final SipServletResponse pending = (SipServletResponse)call.getAttribute(PENDING_ACK);
        if (null != pending)
        {
            call.removeAttribute(PENDING_ACK);
            if (pending.getSession() != except)
            {
                refuseAndBye(pending);
            }
        }
        for (final Iterator<?> it = call.getSessions("SIP"); it.hasNext(); )
        {
            final SipSession leg = (SipSession)it.next();
            if (leg == except || (null != pending && leg == pending.getSession()) || !leg.isValid())
            {
                continue;
            }
            end(leg);
        }
    }

    private static void end(final SipSession leg) throws IOException
    {
        switch (leg.getState())
        {
            case CONFIRMED -> leg.createRequest("BYE").send();
            case INITIAL, EARLY ->
            {
                final SipServletRequest invite = (SipServletRequest)leg.getAttribute(INVITE);
                if (null != invite)
                {
                    try
                    {
                        invite.createCancel().send();
                    }
                    catch (final IllegalStateException answered)
                    {
                        // its final response is in: a 2xx is ACKed and ended when it reaches the servlet
                    }
                }
            }
            default ->
            {
                // TERMINATED: nothing left to end
            }
        }
    }

    /**
     * ACKs a 2xx to an INVITE sent without an offer (its offer is refused in the ACK: every stream with port 0, RFC
     * 3264 §6) or with one (the ACK is empty), then sends the leg a BYE.
     */
    static void refuseAndBye(final SipServletResponse ok) throws IOException
    {
        final SipServletRequest ack = ok.createAck();
        final byte[] offer = ok.getRawContent();
        final boolean offered = null == ok.getRequest().getRawContent() && null != offer && offer.length > 0;
        if (offered)
        {
            ack.setContent(refusingAnswer(offer), "application/sdp");
        }
        ack.send();
        ok.getSession().createRequest("BYE").send();
    }

    /** An SDP answer that refuses every stream of {@code offer}: the same media lines with port 0 (RFC 3264 §6). */
    static byte[] refusingAnswer(final byte[] offer)
    {
        final StringBuilder sdp = new StringBuilder(128)
            .append("v=0\r\no=- 0 0 IN IP4 0.0.0.0\r\ns=-\r\nc=IN IP4 0.0.0.0\r\nt=0 0\r\n");
        for (final String line : new String(offer, StandardCharsets.US_ASCII).split("\r?\n"))
        {
            final String[] m = line.startsWith("m=") ? line.substring(2).split(" ", 4) : null;
            if (null != m && 4 == m.length)
            {
                sdp.append("m=").append(m[0]).append(" 0 ").append(m[2]).append(' ').append(m[3].strip())
                    .append("\r\n");
            }
        }
        return sdp.toString().getBytes(StandardCharsets.US_ASCII);
    }
}
