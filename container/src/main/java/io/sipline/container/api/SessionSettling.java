package io.sipline.container.api;

import javax.servlet.sip.SipSession.State;

import io.sipline.sip.message.HeaderName;

/**
 * When and how a {@link SipSessionImpl} lets go of its initial request. The transaction of the initial INVITE ends
 * (RFC 6026: Timer L on the UAS side, Timer M on the UAC side, both 64*T1 after the 2xx) with the dialog confirmed
 * and the 2xx acknowledged: nothing of the container can reach the request or its responses any more. No 2xx
 * retransmission can arrive after that (the UAS stops after 64*T1, RFC 3261 §13.3.1.4), so no ACK needs resending;
 * {@code getPendingMessages} has nothing of it; {@code createResponseToOriginalRequest} could only answer a
 * transaction that is over.
 * <p>
 * What the session still needs from the request is copied first: the parties without tags and the local CSeq base
 * go to its {@link SessionDialog} ({@link SessionDialog#settle}, {@link SessionDialog#localCseqBase}), the
 * authenticated user to its extras ({@link SipSessionImpl#initialPrincipal} still answers). Then the session drops
 * its reference, and the request, its responses and its ACK become garbage unless the application keeps them: an
 * established call holds only its dialog state.
 * <p>
 * Kept: a request of a session that is not CONFIRMED, whose 2xx awaits its ACK (either side), of a proxy (its
 * transaction is the proxy's), or that carries Join or Replaces (RFC 3911, RFC 3891), which
 * {@code SipSessionsUtil.getCorrespondingSipSession} reads later through the original request.
 * <p>
 * Stateless; called on the session's shard when the initial INVITE's transaction ends. It owns no bytes: the dialog
 * copies what it keeps into text before the request's buffer can go.
 */
final class SessionSettling
{
    private SessionSettling()
    {
    }

    /** Lets {@code s} go of {@code request} when it is the session's initial INVITE and nothing can reach it. */
    static void settle(final SipSessionImpl s, final SipServletRequestImpl request)
    {
        if (!settles(s, request))
        {
            return;
        }
        s.dialog.settle();
        s.dialog.localCseqBase(request, s.isUac());
        s.settled(request.principal());
    }

    /** Whether {@code request} can go; see the class comment for what keeps it. */
    static boolean settles(final SipSessionImpl s, final SipServletRequestImpl request)
    {
        return request == s.original() && State.CONFIRMED == s.state() && "INVITE".equals(request.getMethod())
            && null == s.awaitingAck() && (!s.isUac() || null != request.ack()) && null == s.proxy()
            && request.headers().find(HeaderName.REPLACES, 0) < 0 && null == request.getHeader("Join");
    }
}
