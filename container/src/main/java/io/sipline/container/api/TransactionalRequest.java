package io.sipline.container.api;

import java.net.InetSocketAddress;

import javax.servlet.sip.ProxyBranch;

import io.sipline.sip.message.SipMessage;
import io.sipline.sip.shard.ShardIds;
import io.sipline.sip.transaction.Transaction;

/**
 * A request as the container carries it on transactions: the transaction (server for a received request, client
 * once sent) checked against its use id so that a reused transaction is not mistaken for it, the final response,
 * the B2BUA link (JSR 289 §12.3), and the client-leg bookkeeping of a request the container sends, whose fields
 * are in a {@link ClientLeg} made the first time one is set, so that a received request carries none. The JSR 289
 * API of the request is {@link SipServletRequestImpl}'s.
 * <p>
 * Threading: see {@link SipServletMessageImpl}.
 */
abstract class TransactionalRequest extends ServletRequestAdapter
{
    /** The transaction that carries this request (server for received ones, client once sent), and its use id. */
    private Transaction transaction;
    private long transactionId;
    private SipServletResponseImpl finalResponse;
    private SipServletRequestImpl linked;
    private boolean provisionalReceived;
    /**
     * The client-leg bookkeeping once one of its fields was set, else null: a {@link SentLeg} for an ACK until one
     * of {@link ClientLeg}'s own is set.
     */
    private SentLeg leg;

    /** A received request over one exact copy of its bytes. */
    TransactionalRequest(final SipMessage message, final byte[] bytes, final InetSocketAddress remote,
        final InetSocketAddress local)
    {
        super(message, bytes, remote, local);
    }

    /** A request the container builds. */
    TransactionalRequest(final MessageHeaders headers)
    {
        super(headers);
    }

    /** The client-leg bookkeeping, made now if this request had none (or had the {@link SentLeg} of an ACK). */
    final ClientLeg leg()
    {
        if (leg instanceof ClientLeg l)
        {
            return l;
        }
        final ClientLeg l = new ClientLeg();
        if (null != leg)
        {
            leg.copyTo(l);
        }
        leg = l;
        return l;
    }

    /** Where and how this request went, made now if it had none: an ACK's holds no more (it has no transaction). */
    private SentLeg sentLeg()
    {
        if (null == leg)
        {
            leg = "ACK".equals(getMethod()) ? new SentLeg() : new ClientLeg();
        }
        return leg;
    }

    /** The client leg's own bookkeeping, or null when none was set. */
    private ClientLeg clientLegIfAny()
    {
        return leg instanceof ClientLeg l ? l : null;
    }

    /** The transaction, or null once it ended or was reused. */
    public Transaction transaction()
    {
        return null != transaction && transaction.id() == transactionId && 0 != transactionId ? transaction : null;
    }

    public void transaction(final Transaction tx)
    {
        transaction = tx;
        transactionId = null == tx ? 0 : tx.id();
    }

    /** The branch of our Via once sent, made into text now (a CANCEL reuses it, RFC 3261 §9.1); else null. */
    public String branch()
    {
        return hasBranch() ? appendBranch(new StringBuilder(ShardIds.ID_LENGTH + 8)).toString() : null;
    }

    /** Whether the request was given a branch ({@link #branch(int, long)}). */
    public boolean hasBranch()
    {
        return null != leg && leg.branchRandom >= 0;
    }

    /**
     * Gives the request the branch of our Via: the id of {@code origin} and {@code randomBits} ({@link
     * ShardIds#nextRandom()}), then the branch suffix if any; kept as numbers and written where needed.
     */
    public void branch(final int origin, final long randomBits)
    {
        final SentLeg l = sentLeg();
        l.branchOrigin = (char)origin;
        l.branchRandom = randomBits;
    }

    /** Appends the branch (the request must have one: {@link #hasBranch()}) to {@code sb}; returns {@code sb}. */
    public StringBuilder appendBranch(final StringBuilder sb)
    {
        ShardIds.appendBranch(sb, leg.branchOrigin, leg.branchRandom);
        final String suffix = branchSuffix();
        return null == suffix ? sb : sb.append(suffix);
    }

    public InetSocketAddress destination()
    {
        return null == leg ? null : leg.destination;
    }

    public void destination(final InetSocketAddress value)
    {
        if (null != value || null != leg)
        {
            sentLeg().destination = value;
        }
    }

    /** The transport this request was sent on (its top Via's), null before it was sent or when it was received. */
    public String sentTransport()
    {
        return null == leg ? null : leg.sentTransport();
    }

    public void sentTransport(final String value)
    {
        if (null != value || null != leg)
        {
            sentLeg().sentTransport(value);
        }
    }

    /**
     * JSR 289: for a request the container sent, the transport it went on; for one received on a TCP or TLS
     * connection, that connection's (UDP, TCP, TLS).
     */
    @Override
    public String getTransport()
    {
        final String sent = sentTransport();
        return isIncoming() || null == sent ? super.getTransport() : sent;
    }

    public SipServletResponseImpl finalResponse()
    {
        return finalResponse;
    }

    /** Records the final response sent (received request) or received (sent request). */
    public void finalResponse(final SipServletResponseImpl response)
    {
        finalResponse = response;
        if (incoming)
        {
            committed = true;
        }
    }

    public boolean provisionalReceived()
    {
        return provisionalReceived;
    }

    public void provisionalReceived(final boolean value)
    {
        provisionalReceived = value;
    }

    /** A CANCEL waiting for the first provisional response before it may be sent (RFC 3261 §9.1). */
    public SipServletRequestImpl pendingCancel()
    {
        final ClientLeg l = clientLegIfAny();
        return null == l || isCancel() ? null : l.cancelLink;
    }

    /** Sets or clears the CANCEL waiting to be sent; this request is not a CANCEL. */
    public void pendingCancel(final SipServletRequestImpl cancel)
    {
        if (null != cancel || leg instanceof ClientLeg)
        {
            leg().cancelLink = cancel;
        }
    }

    /** For a CANCEL: the INVITE it cancels; else null. */
    public SipServletRequestImpl cancelled()
    {
        final ClientLeg l = clientLegIfAny();
        return null == l || !isCancel() ? null : l.cancelLink;
    }

    private boolean isCancel()
    {
        return "CANCEL".equals(getMethod());
    }

    public SipServletRequestImpl linked()
    {
        return linked;
    }

    /** Links two requests of a B2BUA (JSR 289 §12.3, getLinkedSipServletRequest), both ways. */
    public void link(final SipServletRequestImpl other)
    {
        linked = other;
        if (null != other)
        {
            ((TransactionalRequest)other).linked = (SipServletRequestImpl)this;
        }
    }

    public SipServletResponseImpl last2xx()
    {
        final ClientLeg l = clientLegIfAny();
        return null == l ? null : l.last2xx;
    }

    public void last2xx(final SipServletResponseImpl response)
    {
        if (null != response || leg instanceof ClientLeg)
        {
            leg().last2xx = response;
        }
    }

    /** The ACK sent for the 2xx to this INVITE (resent when the 2xx is retransmitted, RFC 3261 §13.2.2.4). */
    public SipServletRequestImpl ack()
    {
        final ClientLeg l = clientLegIfAny();
        return null == l ? null : l.ack;
    }

    public void ack(final SipServletRequestImpl value)
    {
        if (null != value || leg instanceof ClientLeg)
        {
            leg().ack = value;
        }
    }

    /** The branch that sent this request, when a proxy did; else null. */
    public ProxyBranch proxyBranch()
    {
        final ClientLeg l = clientLegIfAny();
        return null == l ? null : l.proxyBranch;
    }

    public void proxyBranch(final ProxyBranch value)
    {
        if (null != value || leg instanceof ClientLeg)
        {
            leg().proxyBranch = value;
        }
    }

    /** A strict router's next hop (RFC 3261 §16.6 step 6), or null. */
    public String nextHopUri()
    {
        final MessageExtras x = extrasIfAny();
        return null == x ? null : x.nextHopUri;
    }

    public void nextHopUri(final String uri)
    {
        if (null != uri || null != extrasIfAny())
        {
            extras().nextHopUri = uri;
        }
    }

    /** What the branch of our Via ends with: the suffix of the proxy branch that sent this request, or null. */
    public String branchSuffix()
    {
        return leg instanceof ClientLeg l && l.proxyBranch instanceof SuffixedBranch b ? b.branchSuffix() : null;
    }
}
