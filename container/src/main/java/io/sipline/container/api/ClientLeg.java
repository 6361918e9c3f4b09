package io.sipline.container.api;

import java.net.InetSocketAddress;

import javax.servlet.sip.ProxyBranch;

import io.sipline.sip.message.HeaderName;

/**
 * The bookkeeping of a request the container sends on a client transaction (RFC 3261 §17.1): the branch of its Via,
 * where and on which transport it went, the last 2xx to an INVITE and the ACK sent for it (resent when the 2xx is
 * retransmitted, RFC 3261 §13.2.2.4), the CANCEL links (§9.1), and the proxy branch that sent it (which also gives
 * the suffix of the branch, {@link SuffixedBranch}). A request makes one the first time any of these is set, so that
 * a received request carries none. The transport is a number beside the branch's origin, not a reference, so that
 * the object ends on an 8-byte step.
 * <p>
 * Threading: owned by its request (see {@link SipServletMessageImpl}).
 */
final class ClientLeg
{
    /** The transports a request goes on, by the number {@link #sentTransport} keeps (less one). */
    private static final String[] TRANSPORTS = {"UDP", "TCP", "TLS", "WS", "WSS"};

    /**
     * The branch of our Via once sent (a CANCEL reuses it, RFC 3261 §9.1), as the random part of its id
     * ({@code ShardIds.nextRandom}), -1 before it is sent, and the shard and node it encodes.
     */
    long branchRandom = -1;
    char branchOrigin;
    /** The transport the request was sent on (RFC 3261 §18.1.1): 1 + its index in {@link #TRANSPORTS}, 0 before. */
    byte sentTransport;
    InetSocketAddress destination;
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

    /** The transport's name as {@link #sentTransport(String)} took it, or null before the request was sent. */
    String sentTransport()
    {
        return 0 == sentTransport ? null : TRANSPORTS[sentTransport - 1];
    }

    /**
     * Keeps the transport the request was sent on.
     *
     * @param name one of UDP, TCP, TLS, WS, WSS (any case), or null (not sent).
     * @throws IllegalArgumentException for any other name.
     */
    void sentTransport(final String name)
    {
        if (null == name)
        {
            sentTransport = 0;
            return;
        }
        for (int i = 0; i < TRANSPORTS.length; i++)
        {
            if (TRANSPORTS[i].equalsIgnoreCase(name))
            {
                sentTransport = (byte)(i + 1);
                return;
            }
        }
        throw new IllegalArgumentException("not a transport a request is sent on: " + name);
    }

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
