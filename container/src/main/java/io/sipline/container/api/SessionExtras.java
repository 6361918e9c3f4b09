package io.sipline.container.api;

import java.util.ArrayList;
import java.util.List;

import io.sipline.container.security.SipPrincipal;

/**
 * What few SIP sessions use, kept apart so that every {@link SipSessionImpl} holds one reference instead of one per
 * field (a session object is made for each leg of every call): the role of a proxy (JSR 289 §10) and the key of its
 * Record-Route, the RFC 3262 state of reliable provisional responses, the requests whose transactions overlap the
 * first ongoing one, and the user of the initial request once the session let it go. Made on the first use of any.
 * <p>
 * Threading: owned by its session (see {@link SipSessionImpl}).
 */
final class SessionExtras
{
    /** The user of the initial request, kept when {@link SipSessionImpl#settle} lets go of the request. */
    SipPrincipal settledPrincipal;
    /** The ongoing requests after the first, in the order they began; made when two overlap. */
    List<SipServletRequestImpl> ongoingMore;
    /** The proxy of the session's initial request (JSR 289 §10), or null. */
    SessionProxy proxy;
    /** The key of our Record-Route (the session is found by it for subsequent requests), or null. */
    String proxyRouteKey;
    /** RFC 3262 state (RSeq numbers, the reliable provisional awaiting its PRACK), made on first use, or null. */
    ReliableProvisionals reliableProvisionals;

    /** A request begins while the first ongoing one has no final response yet. */
    void overlapping(final SipServletRequestImpl request)
    {
        if (null == ongoingMore)
        {
            ongoingMore = new ArrayList<>(2);
        }
        ongoingMore.add(request);
    }

    /** The first ongoing request ended: the next one, taken out of the list, or null. */
    SipServletRequestImpl nextOngoing()
    {
        return null == ongoingMore || ongoingMore.isEmpty() ? null : ongoingMore.removeFirst();
    }

    /** An overlapping request's transaction ended. */
    void ended(final SipServletRequestImpl request)
    {
        if (null != ongoingMore)
        {
            ongoingMore.remove(request);
        }
    }
}
