package io.sipline.examples.clicktocall;

import java.io.IOException;

import javax.annotation.Resource;
import javax.servlet.ServletException;
import javax.servlet.sip.Address;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;

/**
 * The SIP half of click-to-call: the controller of RFC 3725 flow I. {@link CallsServlet} sends the first party an
 * INVITE without an offer; here its 2xx (with the first party's offer) is kept unACKed while an INVITE with that
 * offer goes to the second party; the second party's 2xx is ACKed and its answer goes to the first party in the ACK
 * of the first 2xx. Then the parties talk to each other. A BYE from either party is answered and the other leg is
 * ended; a party that refuses fails the call and ends the other leg. Every change is written to the
 * {@link CallBook}.
 * <p>
 * Threading: the container calls it for one call at a time, on that call's thread.
 */
public final class ThirdPartyCallServlet extends SipServlet
{
    private static final long serialVersionUID = 1L;

    @Resource
    private transient SipFactory factory;
    private transient CallBook book;

    @Override
    public void init() throws ServletException
    {
        book = (CallBook)getServletContext().getAttribute(CallBook.ATTRIBUTE);
        if (null == book)
        {
            throw new ServletException("no " + CallBook.ATTRIBUTE + ": is " + CallControl.class.getName()
                + " a listener in sip.xml?");
        }
    }

    @Override
    protected void doSuccessResponse(final SipServletResponse response) throws IOException
    {
        if (!"INVITE".equals(response.getMethod()))
        {
            return; // the 200 of a BYE or a CANCEL
        }
        if (Legs.isFirst(response.getSession()))
        {
            firstAnswered(response.getApplicationSession(), response);
        }
        else
        {
            secondAnswered(response.getApplicationSession(), response);
        }
    }

    /** The first party answered: its offer goes to the second party; its ACK waits for the answer. */
    private void firstAnswered(final SipApplicationSession call, final SipServletResponse ok) throws IOException
    {
        if (Legs.ending(call))
        {
            Legs.refuseAndBye(ok); // answered after the hang-up: its CANCEL came too late
            return;
        }
        final byte[] offer = ok.getRawContent();
        if (null == offer || 0 == offer.length)
        {
            ok.createAck().send(); // RFC 3725 flow I needs the first party's offer in its 2xx
            ok.getSession().createRequest("BYE").send();
            call.setAttribute(Legs.ENDING, Boolean.TRUE);
            book.update(call.getId(), Call.State.FAILED, "the first party answered without an SDP offer");
            return;
        }
        call.setAttribute(Legs.PENDING_ACK, ok);
        final SipServletRequest invite = factory.createRequest(call, "INVITE", (Address)call.getAttribute(Legs.FROM),
            (Address)call.getAttribute(Legs.TO));
        invite.setContent(offer, ok.getContentType());
        invite.getSession().setAttribute(Legs.LEG, Legs.SECOND);
        invite.getSession().setAttribute(Legs.INVITE, invite);
        invite.send();
        book.update(call.getId(), Call.State.CALLING_SECOND, "");
    }

    /** The second party answered: both 2xx are ACKed, the first with the second party's answer. */
    private void secondAnswered(final SipApplicationSession call, final SipServletResponse ok) throws IOException
    {
        final SipServletResponse firstOk = (SipServletResponse)call.getAttribute(Legs.PENDING_ACK);
        final byte[] answer = ok.getRawContent();
        if (Legs.ending(call) || null == firstOk || null == answer || 0 == answer.length)
        {
            ok.createAck().send();
            ok.getSession().createRequest("BYE").send();
            if (!Legs.ending(call))
            {
                book.update(call.getId(), Call.State.FAILED, "the second party answered without an SDP answer");
                Legs.endAll(call, ok.getSession());
            }
            return;
        }
        ok.createAck().send();
        call.removeAttribute(Legs.PENDING_ACK);
        final SipServletRequest ack = firstOk.createAck();
        ack.setContent(answer, ok.getContentType());
        ack.send();
        book.update(call.getId(), Call.State.CONNECTED, "");
    }

    /** A party refused or was not reached (the container ACKs the final response): the call fails. */
    @Override
    protected void doErrorResponse(final SipServletResponse response) throws IOException
    {
        if (!"INVITE".equals(response.getMethod()))
        {
            return; // a BYE answered 481: that leg is over anyway
        }
        final SipApplicationSession call = response.getApplicationSession();
        if (Legs.ending(call))
        {
            return; // the 487 of our CANCEL
        }
        final String party = Legs.isFirst(response.getSession()) ? "the first party" : "the second party";
        book.update(call.getId(), Call.State.FAILED, party + " answered " + response.getStatus() + " "
            + response.getReasonPhrase());
        Legs.endAll(call, response.getSession());
    }

    /** A party hung up: answered, and the other leg is ended (BYE, or CANCEL while it rings). */
    @Override
    protected void doBye(final SipServletRequest request) throws IOException
    {
        request.createResponse(SipServletResponse.SC_OK).send();
        final SipApplicationSession call = request.getApplicationSession();
        if (Legs.ending(call))
        {
            return; // crossed the BYE we sent it
        }
        final String party = Legs.isFirst(request.getSession()) ? "the first party" : "the second party";
        book.update(call.getId(), Call.State.ENDED, "hung up by " + party);
        Legs.endAll(call, request.getSession());
    }
}
