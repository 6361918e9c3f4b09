package io.sipline.container.api;

import javax.servlet.sip.ProxyBranch;

import io.sipline.sip.message.HeaderName;

/**
 * The bookkeeping of a request the container sends on a client transaction (RFC 3261 §17.1): beside where and how it
 * went ({@link SentLeg}), the last 2xx to an INVITE and the ACK sent for it (resent when the 2xx is retransmitted,
 * RFC 3261 §13.2.2.4), the CANCEL links (§9.1), and the proxy branch that sent it (which also gives the suffix of the
 * branch, {@link SuffixedBranch}). A request makes one the first time any of these is set, so that a received
 * request carries none; an ACK, which has no transaction, makes a {@link SentLeg} only.
 * <p>
 * Threading: owned by its request (see {@link SipServletMessageImpl}).
 */
final class ClientLeg extends SentLeg
{
    SipServletResponseImpl last2xx;
    SipServletRequestImpl ack;
    /**
     * For an INVITE, a CANCEL waiting for the first provisional response before it may be sent (RFC 3261 §9.1); for
     * a CANCEL, the INVITE it cancels. One field for both (a request is one or the other), so that the object ends
     * on an 8-byte step.
     */
    SipServletRequestImpl cancelLink;
    /** For a request a proxy sends: its branch. */
    ProxyBranch proxyBranch;

    /**
     * The CANCEL for a sent INVITE (RFC 3261 §9.1): its Route set, Max-Forwards 70, From, To, Call-ID, and its CSeq
     * number with the method CANCEL; it goes on the INVITE's branch.
     */
    static SipServletRequestImpl cancelFor(final SipServletRequestImpl invite)
    {
        final MessageHeaders headers = invite.headers();
        final MessageHeaders h = MessageHeaders.over(headers, 8, 8);
        h.copyFrom(headers, HeaderName.ROUTE);
        h.insert(h.size(), "Max-Forwards", "70");
        h.copyFrom(headers, HeaderName.FROM);
        h.copyFrom(headers, HeaderName.TO);
        h.copyFrom(headers, HeaderName.CALL_ID);
        h.insert(h.size(), "CSeq", invite.cseqNumber() + " CANCEL");
        final SipServletRequestImpl cancel = SipServletRequestImpl.outgoing("CANCEL", invite.requestUriText(), h);
        cancel.session(invite.sessionImpl());
        cancel.leg().cancelLink = invite;
        return cancel;
    }
}
