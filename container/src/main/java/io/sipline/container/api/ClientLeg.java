package io.sipline.container.api;

import java.net.InetSocketAddress;

import javax.servlet.sip.ProxyBranch;

import io.sipline.sip.message.HeaderName;

/**
 * The bookkeeping of a request the container sends on a client transaction (RFC 3261 §17.1): the branch of its Via
 * and the suffix a proxy appends to it, where and on which transport it went, the last 2xx to an INVITE and the
 * ACK sent for it (resent when the 2xx is retransmitted, RFC 3261 §13.2.2.4), the CANCEL links (§9.1), and the
 * proxy branch that sent it. A request makes one the first time any of these is set, so that a received request
 * carries none.
 * <p>
 * Threading: owned by its request (see {@link SipServletMessageImpl}).
 */
final class ClientLeg
{
    /**
     * The branch of our Via once sent (a CANCEL reuses it, RFC 3261 §9.1), as the random part of its id
     * ({@code ShardIds.nextRandom}), -1 before it is sent, and the shard and node it encodes.
     */
    long branchRandom = -1;
    char branchOrigin;
    /** Appended to the branch of our Via (a proxy's loop-detection hash, RFC 3261 §16.6 item 8), or null. */
    String branchSuffix;
    InetSocketAddress destination;
    /** The transport the request was sent on ("UDP", "TCP", "TLS"; RFC 3261 §18.1.1), null before it was sent. */
    String sentTransport;
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
