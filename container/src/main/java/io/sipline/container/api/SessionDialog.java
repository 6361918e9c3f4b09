package io.sipline.container.api;

import java.util.Collections;
import java.util.List;

import io.sipline.sip.message.HeaderName;

/**
 * The RFC 3261 §12 dialog state of one {@link SipSessionImpl}, as the text the container writes into the session's
 * in-dialog requests: Call-ID, local and remote tags, the parties without tags, the remote target, the route set and
 * the CSeq numbers.
 * <pre>
 *   UAS (§12.1.1)  remote tag, target, route set (Record-Route in order), remote CSeq: from the initial request;
 *                  local tag: made for the first response; parties: from the request's To and From when first needed
 *   UAC (§12.1.2)  Call-ID, local tag: from the shard; remote target: the Request-URI until a tagged 1xx or 2xx
 *                  gives its Contact and Record-Route (reversed); local CSeq: the initial request's, then counted
 * </pre>
 * Not threadsafe; used on the session's shard, or by the application while it holds the application session.
 */
final class SessionDialog
{
    String callId;
    String localTag;
    String remoteTag;
    /** From/To as written for this side and the peer, without tags; null until first needed on the UAS side. */
    String localParty;
    String remoteParty;
    String remoteTarget;
    /** The To of the UAS's responses to the initial request, local tag included; made once. */
    private String taggedTo;
    List<String> routeSet = List.of();
    long localCseq;
    long remoteCseq = -1;

    /** The dialog of a received initial request (UAS, §12.1.1); the parties are made when first needed. */
    static SessionDialog received(final SipServletRequestImpl request)
    {
        final SessionDialog d = new SessionDialog();
        final MessageHeaders h = request.headers();
        d.callId = h.get(HeaderName.CALL_ID);
        d.remoteTag = HeaderText.param(h.get(HeaderName.FROM), "tag");
        d.remoteCseq = request.cseqNumber();
        final String contact = h.get(HeaderName.CONTACT);
        d.remoteTarget = null == contact ? null : HeaderText.uri(contact);
        d.routeSet = h.find(HeaderName.RECORD_ROUTE, 0) < 0 ? List.of() : List.copyOf(h.getAll("Record-Route"));
        return d;
    }

    /** The dialog of a request the application originates (UAC, §12.1.2), before any response. */
    static SessionDialog outgoing(final String callId, final String localTag, final String fromWithoutTag,
        final String toWithoutTag, final String requestUri)
    {
        final SessionDialog d = new SessionDialog();
        d.callId = callId;
        d.localTag = localTag;
        d.localParty = fromWithoutTag;
        d.remoteParty = toWithoutTag;
        d.remoteTarget = requestUri;
        return d;
    }

    /**
     * The UAC side of another dialog of the same forked request (§12.1.2): same Call-ID, local tag, parties and local
     * CSeq; remote tag, target and route set come from its response ({@link #adopt}).
     */
    SessionDialog forkUac(final SipServletRequestImpl original)
    {
        final SessionDialog d = new SessionDialog();
        d.callId = callId;
        d.localTag = localTag;
        d.localParty = localParty(original);
        d.remoteParty = remoteParty(original);
        localCseqBase(original, true);
        d.localCseq = localCseq;
        return d;
    }

    /**
     * The UAS side of another dialog of the same received request: same Call-ID, parties, remote tag and target,
     * route set and remote CSeq; a local tag of its own, made for its first response.
     */
    SessionDialog forkUas(final SipServletRequestImpl original)
    {
        final SessionDialog d = new SessionDialog();
        d.callId = callId;
        d.localParty = localParty(original);
        d.remoteParty = remoteParty(original);
        d.remoteTag = remoteTag;
        d.remoteTarget = remoteTarget;
        d.routeSet = routeSet;
        d.remoteCseq = remoteCseq;
        return d;
    }

    /** From or To as this side writes it, without tag (a UAS takes it from the To of its initial request). */
    String localParty(final SipServletRequestImpl original)
    {
        if (null == localParty && null != original && original.isIncoming())
        {
            localParty = HeaderText.withTag(original.headers().get(HeaderName.TO), null);
        }
        return localParty;
    }

    String remoteParty(final SipServletRequestImpl original)
    {
        if (null == remoteParty && null != original && original.isIncoming())
        {
            remoteParty = HeaderText.withTag(original.headers().get(HeaderName.FROM), null);
        }
        return remoteParty;
    }

    /** The To of the UAS's responses to its initial request (§8.2.6.2), made once; the local tag must be set. */
    String taggedTo(final String requestTo)
    {
        if (null == taggedTo)
        {
            taggedTo = HeaderText.withTag(requestTo, localTag);
        }
        return taggedTo;
    }

    /** The UAC's local CSeq starts at its initial request's (§12.1.2), once that request exists. */
    void localCseqBase(final SipServletRequestImpl original, final boolean uac)
    {
        if (0 == localCseq && null != original && uac)
        {
            localCseq = original.cseqNumber();
        }
    }

    /** The CSeq of a new request in the dialog: one more than the last (§12.2.1.1). */
    long nextCseq()
    {
        return ++localCseq;
    }

    /** A request with {@code cseq} is sent in the dialog: the local CSeq is at least its number. */
    void sent(final long cseq)
    {
        localCseq = Math.max(localCseq, cseq);
    }

    /**
     * Whether a request that found this dialog by its To tag belongs to it (§12.2.2): the dialog's remote tag is its
     * From tag (a dialog without a remote tag yet, an RFC 2543 peer's or a UAC's before any tagged response, takes
     * any), and its CSeq is not lower than the remote CSeq. ACK and CANCEL reuse the INVITE's number and are never
     * checked here.
     *
     * @param anyTag the request may come from another remote tag than the dialog's (a forked subscription's NOTIFY).
     * @return 0 when it belongs, 481 for another remote tag, 500 for a CSeq out of order.
     */
    int match(final byte[] b, final int fromTagStart, final int fromTagEnd, final long cseq, final boolean anyTag)
    {
        if (!anyTag && null != remoteTag && !remoteTag.isEmpty() && !sameTag(remoteTag, b, fromTagStart, fromTagEnd))
        {
            return 481;
        }
        return remoteCseq >= 0 && cseq < remoteCseq ? 500 : 0;
    }

    private static boolean sameTag(final String tag, final byte[] b, final int start, final int end)
    {
        if (start < 0 || end - start != tag.length())
        {
            return false;
        }
        for (int i = 0; i < tag.length(); i++)
        {
            if (b[start + i] != tag.charAt(i))
            {
                return false;
            }
        }
        return true;
    }

    /** A request arrived in the dialog (§12.2.2): remote CSeq; a target refresh's Contact is the new target. */
    void onRequest(final SipServletRequestImpl request)
    {
        remoteCseq = Math.max(remoteCseq, request.cseqNumber());
        if (isTargetRefresh(request.getMethod()))
        {
            refreshTarget(request.headers());
        }
    }

    /** Remote target := the URI of the message's Contact, when it has one (§12.2.1.2, §12.2.2). */
    void refreshTarget(final MessageHeaders h)
    {
        final String contact = h.get(HeaderName.CONTACT);
        if (null != contact)
        {
            remoteTarget = HeaderText.uri(contact);
        }
    }

    /** The dialog of a received tagged 1xx or 2xx (§12.1.2): remote tag, target, route set (Record-Route reversed). */
    void adopt(final SipServletResponseImpl response)
    {
        remoteTag = response.toTag();
        final MessageHeaders h = response.headers();
        refreshTarget(h);
        if (h.find(HeaderName.RECORD_ROUTE, 0) >= 0)
        {
            final List<String> rr = h.getAll("Record-Route");
            Collections.reverse(rr);
            routeSet = List.copyOf(rr);
        }
        else
        {
            routeSet = List.of();
        }
    }

    static boolean isDialogCreating(final String method)
    {
        return "INVITE".equals(method) || "SUBSCRIBE".equals(method) || "REFER".equals(method);
    }

    /** Target-refresh methods: INVITE (§12.2), UPDATE (RFC 3311), SUBSCRIBE, NOTIFY (RFC 6665), REFER (RFC 3515). */
    static boolean isTargetRefresh(final String method)
    {
        return "INVITE".equals(method) || "UPDATE".equals(method) || "SUBSCRIBE".equals(method)
            || "NOTIFY".equals(method) || "REFER".equals(method);
    }
}
