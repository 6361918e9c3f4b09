package io.sipline.container.api;

import java.util.List;

import javax.servlet.sip.SipSession.State;


/**
 * The requests a {@link SipSessionImpl} makes from its dialog state (RFC 3261 §12.2.1.1): Request-URI the remote
 * target, Route the route set (with a strict first hop: its URI as Request-URI, the remote target as last Route),
 * From and To with both tags, the Call-ID, the next local CSeq, and the container's Contact in target refreshes;
 * in a UAC session without a dialog yet, a new initial request with the same Call-ID, From and To. The ACK of a 2xx
 * reuses the INVITE's CSeq number (§13.2.2.4).
 * <p>
 * Stateless; called on the session's shard or by the application while it holds the application session.
 */
final class InDialogRequests
{
    private InDialogRequests()
    {
    }

    /**
     * {@link SipSessionImpl#createRequest}: the session is valid and {@code method} is neither ACK nor CANCEL.
     *
     * @param base the header section whose spans the new one may share (a request a B2BUA relays), or null.
     */
    static SipServletRequestImpl create(final SipSessionImpl s, final String method, final MessageHeaders base)
    {
        if (State.TERMINATED == s.state())
        {
            throw new IllegalStateException("the session is terminated");
        }
        if ("BYE".equals(method) && s.hasSentBye())
        {
            throw new IllegalStateException("this session sent its BYE already (RFC 3261 §15.1.1)");
        }
        final SessionDialog dialog = s.dialog;
        if (!s.isUac() && dialog.noRemoteTag() && State.INITIAL == s.state())
        {
            throw new IllegalStateException("no dialog yet on the UAS side");
        }
        dialog.localCseqBase(s.original(), s.isUac());
        final SipServletRequestImpl r = inDialog(s, method, dialog.nextCseq(), base);
        final ReliableProvisionals rel = s.reliableProvisionalsIfAny();
        if ("PRACK".equals(method) && null != rel && null != rel.unacknowledged())
        {
            // RFC 3262 §7.2: a PRACK made with createRequest (a B2BUA relaying one) acknowledges the last reliable
            // provisional response this UAC accepted (RAck is a system header: the container writes it)
            final SipServletResponseImpl acked = rel.unacknowledged();
            r.headers().set("RAck", ReliableProvisionals.rackOf(acked));
            rel.prackCreated(acked);
        }
        return r;
    }

    /** The ACK for a 2xx to INVITE (§13.2.2.4): CSeq number of the INVITE, method ACK. */
    static SipServletRequestImpl ack(final SipSessionImpl s, final SipServletResponseImpl response)
    {
        final SipServletRequestImpl ack = inDialog(s, "ACK", response.cseqNumber(), null);
        final SessionFork fork = s.fork;
        if (null != fork && null != fork.parent && response == fork.ok)
        {
            fork.ack = ack; // the INVITE's own ACK stays the main dialog's
        }
        else
        {
            response.requestImpl().ack(ack);
        }
        return ack;
    }

    private static SipServletRequestImpl inDialog(final SipSessionImpl s, final String method, final long cseq,
        final MessageHeaders base)
    {
        final SessionDialog d = s.dialog;
        d.sent(cseq);
        final SipServletRequestImpl original = s.original();
        final List<String> routes = d.routeSet();
        final boolean strict = d.strictRouting();
        // Max-Forwards, From, To, Call-ID, CSeq, Contact and one header the application or a B2BUA copy adds; an
        // ACK has no Contact, and seldom more than these (a section grows when it must)
        final int capacity = ("ACK".equals(method) ? 5 : 7) + routes.size();
        final MessageHeaders h = null == base ? MessageHeaders.empty(capacity)
            : MessageHeaders.over(base, capacity, capacity);
        for (int i = strict ? 1 : 0; i < routes.size(); i++)
        {
            h.insert(h.size(), "Route", routes.get(i));
        }
        if (strict)
        {
            h.insert(h.size(), "Route", "<" + d.remoteTarget() + ">"); // §12.2.1.1: a strict router's last hop
        }
        h.insert(h.size(), "Max-Forwards", "70");
        h.insert(h.size(), "From", d.requestFrom());
        final boolean noRemoteTag = d.noRemoteTag();
        final TaggedParty to = d.requestTo();
        if (null == to)
        {
            h.insert(h.size(), "To", d.remoteParty());
        }
        else
        {
            h.insert(h.size(), "To", to);
        }
        d.insertCallId(h);
        h.insert(h.size(), "CSeq", CSeqText.of(cseq, method));
        if (SessionDialog.isTargetRefresh(method))
        {
            h.insert(h.size(), "Contact", s.contactValue());
        }
        final String requestUri = strict ? d.firstRouteUri() : d.remoteTarget();
        final SipServletRequestImpl r = SipServletRequestImpl.outgoing(method, requestUri, h);
        r.session(s);
        if (noRemoteTag && State.INITIAL == s.state())
        {
            r.initial(true);
            s.original(r);
        }
        return r;
    }
}
