package io.sipline.container.api;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

import javax.servlet.sip.Proxy;
import javax.servlet.sip.ProxyBranch;
import javax.servlet.sip.Rel100Exception;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.TooManyHopsException;

import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.SipMessage;

/**
 * A SIP response (JSR 289 §5.1.2, §11): one received on a client transaction (over a compact copy of its bytes), or
 * one the application creates with {@link SipServletRequestImpl#createResponse} and sends on the request's server
 * transaction. The headers of a created response refer to the request's bytes (Via, From, To, Call-ID, CSeq are
 * not copied until written).
 * <p>
 * System headers (§5.4.2): Call-ID, From, To, CSeq, Via, Record-Route, Route, Content-Length, RSeq, RAck, and Contact
 * except in 3xx and 485 responses and in responses to REGISTER and OPTIONS.
 * <p>
 * Threading: see {@link SipServletMessageImpl}.
 */
public final class SipServletResponseImpl extends ServletResponseAdapter implements SipServletResponse
{
    /**
     * Bits of {@link #flags}: the response came through a proxy branch, is relayed upstream, has its PRACK made, is a
     * reliable provisional response.
     */
    private static final byte BRANCH_RESPONSE = 1;
    private static final byte FORWARDED = 2;
    private static final byte PRACK_CREATED = 4;
    private static final byte RELIABLE = 8;

    /** The header that holds a reliable provisional response's RSeq (RFC 3262 §7.1). */
    private static final String RSEQ = "RSeq";

    private final SipServletRequestImpl request;
    /** 100..699 (checked where set, RFC 3261 §21), in two bytes: the object stays within 72 B. */
    private short status;
    /** The reason phrase; for a received response made from the bytes on first use. */
    private String reason;
    /** Where a received response's reason phrase is in its bytes, packed as {@code start << 16 | end}. */
    private int reasonSpan;
    /**
     * The proxy and branch a received response came through (JSR 289 §10.2.4), in one field: the branch when there is
     * one and it is the proxy's ({@code ProxyBranch.getProxy}), the proxy when there is no branch, a {@link
     * ProxyPair} otherwise (a fake proxy in a test, say); null when none.
     */
    private ResponseRoute proxyLink;
    /**
     * {@link #BRANCH_RESPONSE}; {@link #FORWARDED}: a response a proxy relays upstream (not retransmitted by us: the
     * UAS retransmits its 2xx); {@link #PRACK_CREATED}: {@link #createPrack} was called on this received reliable
     * provisional response; {@link #RELIABLE}: a reliable provisional response, whose RSeq is its RSeq header's (a
     * system header, JSR 289 §5.4.1, so the application cannot change it). One byte for the four.
     */
    private byte flags;
    /** The entry of {@link #headers} not written ({@link #forwardOf}), or -1. */
    private short skippedHeader = -1;
    /**
     * Where a received response's To tag is in its bytes, packed as {@code start << 16 | end}; -1 when it has none
     * or it lies past 64 KiB (then {@link #toTag} reads the header's text).
     */
    private int toTagSpan = -1;
    /** The To tag once read. */
    private String toTag;

    private SipServletResponseImpl(final SipMessage message, final byte[] bytes, final SipServletRequestImpl request,
        final InetSocketAddress remote, final InetSocketAddress local)
    {
        super(message, bytes, remote, local);
        this.request = request;
        this.status = (short)message.statusCode();
        final int reasonStart = message.reasonStart() - message.offset();
        final int reasonEnd = message.reasonEnd() - message.offset();
        if (message.reasonStart() < 0 || reasonEnd < reasonStart)
        {
            this.reason = "";
        }
        else if (reasonEnd < 0xFFFF)
        {
            this.reasonSpan = reasonStart << 16 | reasonEnd;
        }
        else
        {
            this.reason = ReasonPhrases.received(status, bytes, reasonStart, reasonEnd);
        }
        this.committed = true;
        final int tagStart = message.toTagStart() - message.offset();
        final int tagEnd = message.toTagEnd() - message.offset();
        if (message.toTagStart() >= 0 && tagEnd <= 0xFFFF && message.buffer()[message.toTagStart()] != '"')
        {
            this.toTagSpan = tagStart << 16 | tagEnd;
        }
    }

    private SipServletResponseImpl(final SipServletRequestImpl request, final MessageHeaders headers,
        final int status, final String reason)
    {
        super(headers);
        this.request = request;
        this.status = (short)status;
        this.reason = null == reason ? ReasonPhrases.of(status) : reason;
        this.session = request.sessionImpl();
    }

    /**
     * A received response to a request this application sent.
     *
     * @param message borrowed; copied here.
     */
    public static SipServletResponseImpl received(final SipMessage message, final SipServletRequestImpl request,
        final InetSocketAddress remote, final InetSocketAddress local)
    {
        final SipServletResponseImpl r = new SipServletResponseImpl(message, ReceivedCopy.head(message), request,
            remote, local);
        r.session = request.sessionImpl();
        if (r.status >= 200 && r.status < 300 && "INVITE".equals(request.getMethod()))
        {
            r.committed = false; // §5.2: a 2xx to INVITE stays uncommitted until its ACK is created
        }
        return r;
    }

    /**
     * The response a proxy sends upstream for one it received on a branch (RFC 3261 §16.7 step 9): every header but
     * the top Via (ours), the same body, over the received bytes; {@code status} as given (503 becomes 500 at the
     * caller, §16.7 step 6).
     */
    public static SipServletResponseImpl forwardOf(final SipServletRequestImpl original,
        final SipServletResponseImpl received, final int status)
    {
        received.applyHeaderObjects();
        final SipServletResponseImpl r = relay(original, received, received.headers, status);
        r.skippedHeader = (short)received.headers.find(HeaderName.VIA, 0); // written without our Via: nothing copied
        r.committed = true;
        return r;
    }

    /**
     * A forwarded response whose header section may be changed (a 401/407 that gets the other branches'
     * challenges, RFC 3261 §16.7 step 7): the entries are copied, the top Via left out.
     */
    public static SipServletResponseImpl editableForwardOf(final SipServletRequestImpl original,
        final SipServletResponseImpl received, final int status)
    {
        received.applyHeaderObjects();
        final MessageHeaders rh = received.headers;
        final MessageHeaders h = MessageHeaders.over(rh, rh.size() + 2, 2);
        final int ourVia = rh.find(HeaderName.VIA, 0);
        for (int i = 0; i < rh.size(); i++)
        {
            if (i != ourVia)
            {
                h.appendEntry(rh, i);
            }
        }
        return relay(original, received, h, status);
    }

    /** The response relayed for {@code received} on {@code original}'s transaction, over {@code headers}. */
    private static SipServletResponseImpl relay(final SipServletRequestImpl original,
        final SipServletResponseImpl received, final MessageHeaders headers, final int status)
    {
        final SipServletResponseImpl r = new SipServletResponseImpl(original, headers, status,
            status == received.status ? received.getReasonPhrase() : null);
        r.shareBody(received);
        r.flags |= FORWARDED;
        r.proxyLink = received.proxyLink;
        return r;
    }

    /**
     * Makes this received response the one a proxy sends upstream itself (a relayed subsequent request's, RFC 3261
     * §16.7 step 9): written without the top Via (ours), on its request's server transaction, not retransmitted by
     * us. Nothing is copied.
     */
    public void relayUpstream()
    {
        flags |= FORWARDED;
        skippedHeader = (short)headers.find(HeaderName.VIA, 0);
    }

    /** The header entry the writer leaves out (our Via in a relayed response), or -1. */
    public int skippedHeader()
    {
        return skippedHeader;
    }

    /** A response to a received request (RFC 3261 §8.2.6.2); see {@link SipServletRequestImpl#createResponse}. */
    static SipServletResponseImpl toRequest(final SipServletRequestImpl request, final int status,
        final String reason)
    {
        return toRequest(request, request.sessionImpl(), status, reason);
    }

    /**
     * A response to {@code request} in {@code session}'s dialog: for a session derived for another dialog of the
     * request (JSR 289 §6.2.3.2; B2buaHelper.createResponseToOriginalRequest relaying a forked 2xx upstream), To has
     * that session's own local tag, and it may be sent after the request's first 2xx (RFC 6026 §8.6: the INVITE server
     * transaction passes further 2xx on while Accepted).
     */
    public static SipServletResponseImpl toRequest(final SipServletRequestImpl request, final SipSessionImpl session,
        final int status, final String reason)
    {
        final MessageHeaders rh = request.headers();
        final boolean dialogCreating = status > 100 && status < 300 && isDialogCreating(request.getMethod())
            && request.isInitial();
        // room for what is copied, a Contact and one header the application adds (a body's Content-Type)
        final int copied = rh.count(HeaderName.VIA) + (dialogCreating ? rh.count(HeaderName.RECORD_ROUTE) : 0) + 4;
        final MessageHeaders h = MessageHeaders.over(rh, copied + 2, 3); // texts: the tagged To, Contact, that one
        h.copyFrom(rh, HeaderName.VIA);
        if (dialogCreating)
        {
            h.copyFrom(rh, HeaderName.RECORD_ROUTE); // §12.1.1
        }
        h.copyFrom(rh, HeaderName.FROM);
        h.copyFrom(rh, HeaderName.TO);
        h.copyFrom(rh, HeaderName.CALL_ID);
        h.copyFrom(rh, HeaderName.CSEQ);
        final SipServletResponseImpl r = new SipServletResponseImpl(request, h, status, reason);
        r.session = session;
        final int to = h.find(HeaderName.TO, 0);
        if (status > 100 && to >= 0 && null != session && !request.toHasTag())
        {
            // the request's To is cut from its tag once (a view of its bytes): every response to it carries the same
            final int requestTo = rh.find(HeaderName.TO, 0);
            h.setValue(to, request == session.original() ? session.taggedTo(rh, requestTo)
                : TaggedParty.of(rh.value(requestTo), session.localTagForResponse()));
        }
        if (null != session && (dialogCreating || (status >= 200 && status < 300 && isTargetRefresh(request))))
        {
            h.insert(h.size(), "Contact", session.contactValue());
        }
        return r;
    }

    private static boolean isDialogCreating(final String method)
    {
        return "INVITE".equals(method) || "SUBSCRIBE".equals(method) || "REFER".equals(method)
            || "NOTIFY".equals(method);
    }

    private static boolean isTargetRefresh(final SipServletRequestImpl request)
    {
        final String m = request.getMethod();
        return "INVITE".equals(m) || "UPDATE".equals(m) || "SUBSCRIBE".equals(m) || "NOTIFY".equals(m);
    }

    // ================================================================================================================
    // Container view
    // ================================================================================================================

    public SipServletRequestImpl requestImpl()
    {
        return request;
    }

    /** Marks a response received on a proxy branch; {@code branch} makes it an intermediate one (doBranchResponse). */
    public void proxied(final Proxy p, final ProxyBranch b, final boolean branch)
    {
        proxyLink = link(p, b);
        flags = (byte)(branch ? flags | BRANCH_RESPONSE : flags & ~BRANCH_RESPONSE);
    }

    /**
     * A received response a supervised proxy forwards once the application has seen it: writable until then, so that
     * the application's edits of its headers and content go upstream (JSR 289 §10.2.4); {@link #markCommitted} after.
     */
    public void openForUpstream()
    {
        committed = false;
    }

    public boolean isForwarded()
    {
        return 0 != (flags & FORWARDED);
    }

    /**
     * Tag of the To header (the remote tag of a received response). A received response's is read from its bytes
     * (the parser found it) and kept: the To header's text is not made for it.
     */
    public String toTag()
    {
        if (null != toTag)
        {
            return toTag;
        }
        if (toTagSpan >= 0)
        {
            toTag = new String(headers.bytes(), toTagSpan >>> 16, (toTagSpan & 0xFFFF) - (toTagSpan >>> 16),
                StandardCharsets.US_ASCII);
            return toTag;
        }
        return HeaderText.param(headers.get(HeaderName.TO), "tag");
    }

    /** Whether the To header has a tag; a received response's is known from the parser, without a String. */
    boolean hasToTag()
    {
        return null != toTag || toTagSpan >= 0 || null != toTag();
    }

    @Override
    protected boolean isSystemHeader(final HeaderName known, final String name)
    {
        return switch (known)
        {
            case CALL_ID, FROM, TO, CSEQ, VIA, RECORD_ROUTE, ROUTE, CONTENT_LENGTH, RSEQ, RACK -> true;
            case CONTACT -> !((status >= 300 && status < 400) || status == 485
                || "REGISTER".equals(request.getMethod()) || "OPTIONS".equals(request.getMethod()));
            default -> false;
        };
    }

    // ================================================================================================================
    // SipServletResponse
    // ================================================================================================================

    /** The method of the request this response answers (its CSeq method), without parsing CSeq again. */
    @Override
    public String getMethod()
    {
        return request.getMethod();
    }

    @Override
    public SipServletRequest getRequest()
    {
        return request;
    }

    /**
     * JSR 289: the transport a received response came on (its connection's, see the superclass); a response we send
     * goes back the way its request came (RFC 3261 §18.2.2), so it is the request's.
     */
    @Override
    public String getTransport()
    {
        return incoming || null == request ? super.getTransport() : request.getTransport();
    }

    @Override
    public int getStatus()
    {
        return status;
    }

    @Override
    public String getReasonPhrase()
    {
        if (null == reason && incoming)
        {
            reason = ReasonPhrases.received(status, headers.bytes(), reasonSpan >>> 16, reasonSpan & 0xFFFF);
        }
        return reason;
    }

    @Override
    public void setStatus(final int statusCode)
    {
        setStatus(statusCode, null);
    }

    @Override
    public void setStatus(final int statusCode, final String reasonPhrase)
    {
        checkWritable();
        if (incoming)
        {
            throw new IllegalStateException("a received response cannot be changed");
        }
        if (statusCode < 100 || statusCode > 699)
        {
            throw new IllegalArgumentException("status " + statusCode + " is not 100..699");
        }
        status = (short)statusCode;
        reason = null == reasonPhrase ? ReasonPhrases.of(statusCode) : reasonPhrase;
    }

    /** The ACK for this 2xx to INVITE (RFC 3261 §13.2.2.4), in the response's dialog. */
    @Override
    public SipServletRequest createAck()
    {
        if (!incoming || !"INVITE".equals(request.getMethod()) || status < 200 || status >= 300)
        {
            throw new IllegalStateException("createAck applies to a received 2xx response to INVITE");
        }
        if (committed)
        {
            throw new IllegalStateException("the ACK for this response was already created");
        }
        committed = true;
        return session.createAck(this);
    }

    /**
     * JSR 289 §5.7.1 and RFC 3262 §4/§7.2: the PRACK for this received reliable provisional response, in its
     * session's (early) dialog, with RAck = RSeq, CSeq number and method of the INVITE.
     *
     * @throws Rel100Exception NOT_INVITE (not a response to INVITE), NOT_1XX (a final or 100 response), NOT_100rel
     *                         (a provisional response that was not sent reliably).
     * @throws IllegalStateException for a response this application sends, or when a PRACK was already created for
     *                               it.
     */
    @Override
    public SipServletRequest createPrack() throws Rel100Exception
    {
        if (!"INVITE".equals(request.getMethod()))
        {
            throw new Rel100Exception(Rel100Exception.NOT_INVITE);
        }
        if (status <= 100 || status >= 200)
        {
            throw new Rel100Exception(Rel100Exception.NOT_1XX);
        }
        if (!incoming)
        {
            throw new IllegalStateException("createPrack applies to a received reliable provisional response");
        }
        if (0 == (flags & RELIABLE))
        {
            throw new Rel100Exception(Rel100Exception.NOT_100rel);
        }
        if (0 != (flags & PRACK_CREATED))
        {
            throw new IllegalStateException("the PRACK for this response was already created");
        }
        final SipServletRequestImpl prack = (SipServletRequestImpl)session.createRequest("PRACK");
        prack.headers().set("RAck", ReliableProvisionals.rackOf(this));
        flags |= PRACK_CREATED;
        session.reliableProvisionals().prackCreated(this);
        return prack;
    }

    /** The RSeq of a reliable provisional response (its RSeq header's, RFC 3262 §7.1), or 0 for any other response. */
    public long rseq()
    {
        if (0 == (flags & RELIABLE))
        {
            return 0;
        }
        final int i = headers.find(RSEQ, 0);
        return i < 0 ? 0 : headers.leadingNumber(i);
    }

    /**
     * A received response is a reliable provisional one with this RSeq (RFC 3262 §4: Require 100rel and RSeq), as its
     * RSeq header reads ({@link ReliableProvisionals#parseRseq}): 0 marks it as not reliable.
     */
    public void markReliable(final long value)
    {
        flags = (byte)(0 == value ? flags & ~RELIABLE : flags | RELIABLE);
    }

    /**
     * Whether this 101-199 response to an INVITE claims to be reliable (RFC 3262 §4): its Require lists 100rel. The
     * container then reads its RSeq ({@link ReliableProvisionals#parseRseq}) and {@link #markReliable marks} it.
     */
    public boolean requires100rel()
    {
        return status > 100 && status < 200 && "INVITE".equals(request.getMethod())
            && ReliableProvisionals.listsOptionTag(headers, HeaderName.REQUIRE);
    }

    @Override
    protected void sendWith(final ContainerShard host)
    {
        host.send(this);
    }

    @Override
    public void send() throws IOException
    {
        if (incoming)
        {
            throw new IllegalStateException("a received response cannot be sent");
        }
        checkWritable();
        final boolean forkedAnswer = session != request.sessionImpl() && status < 300;
        if (null != request.finalResponse() && !(forkedAnswer && request.finalResponse().status < 300))
        {
            throw new IllegalStateException("a final response (" + request.finalResponse().getStatus()
                + ") was already sent");
        }
        if (status >= 200 && status < 300 && 0 == (flags & FORWARDED))
        {
            checkNoUnacknowledgedOffer();
        }
        if (status >= 200 && null == request.finalResponse())
        {
            request.finalResponse(this);
        }
        sendOnShard();
    }

    /**
     * RFC 3262 §3: a UAS "MUST NOT send a final response until those provisional responses are acknowledged" when
     * the final response is a 2xx and an unacknowledged reliable provisional response carried a session description.
     */
    private void checkNoUnacknowledgedOffer()
    {
        final ReliableProvisionals rel = null == session ? null : session.reliableProvisionalsIfAny();
        final SipServletResponseImpl pending = null == rel ? null : rel.pending();
        if (null != pending && pending.request == request && pending.bodyLength() > 0)
        {
            throw new IllegalStateException("the reliable provisional response " + pending.status + " (RSeq "
                + pending.rseq() + ") carried a session description and has no PRACK yet: RFC 3262 §3 forbids a 2xx "
                + "before it is acknowledged");
        }
    }

    /**
     * JSR 289 §5.7.1, RFC 3262 §3: sends this 101-199 response to an INVITE reliably. The container adds
     * {@code Require: 100rel} and an {@code RSeq} (random first value, one higher for each next one), retransmits it
     * from T1 doubling until the matching PRACK arrives, and after 64*T1 without one tells the application's
     * {@link javax.servlet.sip.SipErrorListener#noPrackReceived} and, if the INVITE is still unanswered then,
     * answers it 500.
     *
     * @throws Rel100Exception NOT_1XX (100 or a final status), NOT_INVITE, NO_REQ_SUPPORT (the INVITE lists 100rel
     *                         in neither Supported nor Require).
     * @throws IllegalStateException for a received or committed response, when the INVITE has its final response, or
     *                               while an earlier reliable provisional response of this session has no PRACK
     *                               (RFC 3262 §3: "MUST NOT send a second reliable provisional response until the
     *                               first is acknowledged").
     */
    @Override
    public void sendReliably() throws Rel100Exception
    {
        if (incoming)
        {
            throw new IllegalStateException("a received response cannot be sent");
        }
        checkWritable();
        if (status <= 100 || status >= 200)
        {
            throw new Rel100Exception(Rel100Exception.NOT_1XX);
        }
        if (!"INVITE".equals(request.getMethod()))
        {
            throw new Rel100Exception(Rel100Exception.NOT_INVITE);
        }
        final MessageHeaders rh = request.headers();
        if (!ReliableProvisionals.listsOptionTag(rh, HeaderName.SUPPORTED)
            && !ReliableProvisionals.listsOptionTag(rh, HeaderName.REQUIRE))
        {
            throw new Rel100Exception(Rel100Exception.NO_REQ_SUPPORT);
        }
        if (null != request.finalResponse())
        {
            throw new IllegalStateException("a final response (" + request.finalResponse().getStatus()
                + ") was already sent");
        }
        final ReliableProvisionals rel = session.reliableProvisionals();
        if (null != rel.pending())
        {
            throw new IllegalStateException("the reliable provisional response " + rel.pending().status + " (RSeq "
                + rel.pending().rseq() + ") has no PRACK yet (RFC 3262 §3: one at a time)");
        }
        final long rseq = rel.takeRseq();
        if (!ReliableProvisionals.listsOptionTag(headers, HeaderName.REQUIRE))
        {
            headers.add("Require", ReliableProvisionals.OPTION_TAG);
        }
        headers.set(RSEQ, Long.toString(rseq));
        flags |= RELIABLE;
        rel.pending(this);
        sendOnShard();
    }

    @Override
    public Iterator<String> getChallengeRealms()
    {
        final List<String> realms = new ArrayList<>(1);
        for (final String name : new String[] {"WWW-Authenticate", "Proxy-Authenticate"})
        {
            for (final String v : headers.getAll(name))
            {
                final int at = v.toLowerCase(Locale.ROOT).indexOf("realm=");
                if (at >= 0)
                {
                    int p = at + 6;
                    final boolean quoted = p < v.length() && v.charAt(p) == '"';
                    final int end = quoted ? v.indexOf('"', p + 1) : v.indexOf(',', p);
                    p += quoted ? 1 : 0;
                    realms.add(v.substring(p, end < 0 ? v.length() : end).strip());
                }
            }
        }
        return realms.iterator();
    }

    @Override
    public Proxy getProxy()
    {
        relayedProxy();
        return null == proxyLink ? null : proxyLink.routeProxy();
    }

    @Override
    public ProxyBranch getProxyBranch()
    {
        relayedProxy();
        return null == proxyLink ? null : proxyLink.routeBranch();
    }

    /** What {@link #proxyLink} holds for proxy {@code p} and branch {@code b}. */
    private static ResponseRoute link(final Proxy p, final ProxyBranch b)
    {
        if (null == p && null == b)
        {
            return null;
        }
        if (null == b)
        {
            return p instanceof final ResponseRoute own && null == own.routeBranch() ? own : new ProxyPair(p, null);
        }
        return b.getProxy() == p && b instanceof final ResponseRoute own ? own : new ProxyPair(p, b);
    }

    /** A proxy and a branch that is not one of its own, which {@link #proxyLink} cannot hold as the branch alone. */
    private record ProxyPair(Proxy routeProxy, ProxyBranch routeBranch) implements ResponseRoute
    {
    }

    /**
     * A response to a subsequent request the container relayed without a proxy object: the request's proxy and its
     * one branch are made now that the application asks (JSR 289 §10.2.4: a proxied response has both).
     */
    private void relayedProxy()
    {
        if (null != proxyLink || !request.isRelayed())
        {
            return;
        }
        final Proxy proxy;
        try
        {
            proxy = request.getProxy();
        }
        catch (final TooManyHopsException e)
        {
            return; // not for a relayed request: its Max-Forwards was above 0
        }
        final List<ProxyBranch> branches = proxy.getProxyBranches();
        proxyLink = link(proxy, branches.isEmpty() ? null : branches.get(0));
    }

    @Override
    public boolean isBranchResponse()
    {
        return 0 != (flags & BRANCH_RESPONSE);
    }

    @Override
    public String toString()
    {
        return status + " " + getReasonPhrase() + " (" + getMethod() + ", " + getCallId() + ")";
    }
}
