package io.sipline.container.api;

import java.io.IOException;
import java.io.Serializable;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import javax.servlet.sip.Address;
import javax.servlet.sip.AuthInfo;
import javax.servlet.sip.B2buaHelper;
import javax.servlet.sip.Proxy;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;
import javax.servlet.sip.SipURI;
import javax.servlet.sip.TooManyHopsException;
import javax.servlet.sip.URI;
import javax.servlet.sip.ar.SipApplicationRoutingDirective;
import javax.servlet.sip.ar.SipApplicationRoutingRegion;

import io.sipline.container.address.BaseUri;
import io.sipline.sip.message.Ascii;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.transaction.Transaction;
import io.sipline.sip.transaction.TransactionAttachment;

/**
 * A SIP request (JSR 289 §5.1, §11): received (over one compact copy of its bytes, with the server transaction that
 * carries it) or made by the container for the application (SipFactory, SipSession.createRequest, B2buaHelper,
 * createAck, createCancel) and sent on a client transaction.
 * <p>
 * Protected (system) headers (§5.4.2): Call-ID, From, To, CSeq, Via, Record-Route, Route (change it with
 * {@link #pushRoute}), Path, RAck, RSeq, Content-Length, and Contact except in REGISTER. From and To can still be
 * changed through their {@code Address} (display name, URI, parameters but the tag) before the request is sent.
 * <p>
 * The transaction and client-leg bookkeeping are {@link TransactionalRequest}'s; what the application router said is
 * a {@link RouterState} shared with the requests that continue its routing; answering digest challenges is
 * {@link DigestAnswer}; the Servlet API's ServletRequest methods are {@link ServletRequestAdapter}'s.
 * <p>
 * Threading: see {@link SipServletMessageImpl}.
 */
public final class SipServletRequestImpl extends TransactionalRequest implements SipServletRequest,
    TransactionAttachment
{
    private final String method;
    private static final SipApplicationRoutingDirective[] DIRECTIVES = SipApplicationRoutingDirective.values();
    /** No span ({@link #uriSpan}, {@link #poppedRouteSpan}): spans are 16-bit positions below 0xFFFF. */
    private static final int NO_SPAN = -1;

    /** Bits of {@link #flags}: an initial request, a B2BUA's, one the container relays without a proxy object. */
    private static final int INITIAL = 1;
    private static final int B2BUA = 2;
    private static final int RELAYED = 4;
    /** Where {@link #flags} holds the routing directive's ordinal (two bits). */
    private static final int DIRECTIVE_SHIFT = 3;
    private static final int DIRECTIVE_MASK = 3 << DIRECTIVE_SHIFT;
    /** Where {@link #flags} holds whether the To has a tag: 0 not known, 1 no, 2 yes (two bits). */
    private static final int TO_TAGGED_SHIFT = 5;
    private static final int TO_TAGGED_MASK = 3 << TO_TAGGED_SHIFT;

    /**
     * The Request-URI as a {@link URI} (set by the application, or parsed when it asked for one) or as its text;
     * null while it is the received span ({@link #uriSpan}) and unread. One field for both forms: the text of a
     * URI object is its {@code toString()}.
     */
    private Object uri;
    /**
     * Where the received Request-URI is in the message's bytes, packed as {@code start << 16 | end}, or
     * {@link #NO_SPAN}; its String is made when first read.
     */
    private int uriSpan = NO_SPAN;
    /**
     * {@link #INITIAL}, {@link #B2BUA}, {@link #RELAYED} (a received subsequent request the container forwards itself,
     * without a proxy object: ProxyRelay), the routing directive's ordinal and whether a received request's To has a
     * tag as the parser found (not known for a request the container made: its To is read as text), in one byte: the
     * request object stays within 88 B.
     */
    private byte flags = (byte)(SipApplicationRoutingDirective.NEW.ordinal() << DIRECTIVE_SHIFT);

    static
    {
        if (DIRECTIVES.length > (DIRECTIVE_MASK >>> DIRECTIVE_SHIFT) + 1)
        {
            throw new ExceptionInInitializerError("more routing directives than two bits hold");
        }
    }
    /** What the application router said (shared with the requests that continue its routing), or null. */
    private RouterState routerState;
    /**
     * Where the popped Route's text is in the received bytes, packed as {@code start << 16 | end}, made into text
     * when asked; or {@link #NO_SPAN}. A primitive here, so that a proxied subsequent request records its popped
     * Route allocating nothing.
     */
    private int poppedRouteSpan = NO_SPAN;

    private SipServletRequestImpl(final SipMessage message, final byte[] bytes, final InetSocketAddress remote,
        final InetSocketAddress local)
    {
        super(message, bytes, remote, local);
        this.method = message.methodName();
        final int uriStart = message.requestUriStart() - message.offset();
        final int uriEnd = message.requestUriEnd() - message.offset();
        if (uriStart >= 0 && uriEnd < 0xFFFF)
        {
            this.uriSpan = uriStart << 16 | uriEnd;
        }
        else if (uriStart >= 0)
        {
            this.uri = new String(bytes, uriStart, uriEnd - uriStart, StandardCharsets.UTF_8);
        }
        // the parser marks a To it read without a tag -2, and one it did not read -1
        final int toTagged = message.toTagStart() >= 0 ? 2 : message.toTagStart() == -2 ? 1 : 0;
        flags = (byte)(flags | toTagged << TO_TAGGED_SHIFT);
    }

    private SipServletRequestImpl(final String method, final String requestUri, final MessageHeaders headers)
    {
        super(headers);
        this.method = method;
        this.uri = requestUri;
    }

    /**
     * A received request.
     *
     * @param message borrowed; copied here.
     */
    public static SipServletRequestImpl received(final SipMessage message, final Transaction tx,
        final InetSocketAddress remote, final InetSocketAddress local)
    {
        final SipServletRequestImpl r = new SipServletRequestImpl(message, ReceivedCopy.head(message), remote, local);
        r.transaction(tx);
        return r;
    }

    /**
     * The copy of a received request that a proxy forwards (RFC 3261 §16.6 steps 1-3): every header but the ones
     * the caller then changes, over the same bytes, the same body, the Request-URI {@code target}, Max-Forwards
     * decremented (70 when absent), in the original's session and routing state.
     */
    public static SipServletRequestImpl forwardOf(final SipServletRequestImpl original, final String target)
    {
        original.applyHeaderObjects();
        final MessageHeaders rh = original.headers;
        final MessageHeaders h = MessageHeaders.over(rh, rh.size() + 3, 4);
        for (int i = 0; i < rh.size(); i++)
        {
            h.appendEntry(rh, i);
        }
        final int mf = original.getMaxForwards();
        h.set("Max-Forwards", HeaderText.decimal(mf < 0 ? 70 : Math.max(0, mf - 1)));
        final SipServletRequestImpl r = new SipServletRequestImpl(original.method, target, h);
        r.shareBody(original);
        r.session = original.session;
        r.initial(original.isInitial());
        r.principal(original.principal());
        r.continueFrom(original);
        return r;
    }

    /** A request the container makes; headers in the order they are written (Via is added when sent). */
    public static SipServletRequestImpl outgoing(final String method, final String requestUri,
        final MessageHeaders headers)
    {
        return new SipServletRequestImpl(method, requestUri, headers);
    }

    /**
     * A request the container makes with {@code orig}'s Request-URI (a B2BUA or SipFactory copy): over the same
     * bytes ({@code headers} over {@code orig}'s), the received Request-URI stays a span of them, so that no String
     * of it is made unless read; else its text.
     */
    public static SipServletRequestImpl outgoingWithUriOf(final String method, final SipServletRequestImpl orig,
        final MessageHeaders headers)
    {
        if (orig.uriUnread() && headers.bytes() == orig.headers.bytes())
        {
            final SipServletRequestImpl r = new SipServletRequestImpl(method, null, headers);
            r.uriSpan = orig.uriSpan;
            return r;
        }
        return new SipServletRequestImpl(method, orig.requestUriText(), headers);
    }

    /** Whether the Request-URI is the received span, neither made into text nor replaced. */
    private boolean uriUnread()
    {
        return null == uri && NO_SPAN != uriSpan;
    }

    /**
     * The received span of the Request-URI, {@code start << 16 | end} over the bytes of {@link #headers()}, while it
     * is unread and ASCII: a copy's dialog record takes those bytes as they are, no String made; else -1 (read
     * {@link #requestUriText}).
     */
    public int requestUriAsciiSpan()
    {
        if (uriUnread() && AsciiSpan.isAscii(headers.bytes(), uriSpan >>> 16, uriSpan & 0xFFFF))
        {
            return uriSpan;
        }
        return NO_SPAN;
    }

    /** The received span of the Request-URI, {@code start << 16 | end}, while unread; else -1. */
    int requestUriSpan()
    {
        return uriUnread() ? uriSpan : NO_SPAN;
    }

    // ================================================================================================================
    // Container view: Request-URI, proxy and B2BUA roles
    // ================================================================================================================

    /**
     * Whether the To header has a tag: a received request's is known from the parser, else found in the To's bytes
     * while it is a span (no String of it made), else read in its text.
     */
    boolean toHasTag()
    {
        final int toTagged = (flags & TO_TAGGED_MASK) >>> TO_TAGGED_SHIFT;
        if (0 != toTagged)
        {
            return 2 == toTagged;
        }
        final int tagged = HeaderText.tagged(headers, headers.find(HeaderName.TO, 0));
        return tagged >= 0 ? 1 == tagged : null != HeaderText.param(headers.get(HeaderName.TO), "tag");
    }

    /** Whether the Request-URI contains the ASCII bytes {@code what}; as received, it is read in place. */
    public boolean requestUriContains(final byte[] what)
    {
        if (!uriUnread())
        {
            final String text = requestUriText();
            return null != text && text.contains(new String(what, StandardCharsets.US_ASCII));
        }
        return Ascii.indexOf(headers.bytes(), uriSpan >>> 16, uriSpan & 0xFFFF, what) >= 0;
    }

    /**
     * {@code seed} mixed (FNV-1a steps) with each character of the Request-URI, as loop detection hashes it; as
     * received and ASCII, read in place, so that no String is made.
     */
    public int mixRequestUri(final int seed)
    {
        int x = seed;
        if (uriUnread())
        {
            final byte[] b = headers.bytes();
            final int uriEnd = uriSpan & 0xFFFF;
            int i = uriSpan >>> 16;
            while (i < uriEnd && b[i] >= 0)
            {
                x = (x ^ b[i]) * 0x01000193;
                i++;
            }
            if (i == uriEnd)
            {
                return x;
            }
            x = seed; // not ASCII: the characters of the decoded text, as for a URI given as text
        }
        final String text = requestUriText();
        for (int i = 0; i < text.length(); i++)
        {
            x = (x ^ text.charAt(i)) * 0x01000193;
        }
        return x;
    }

    /**
     * The Request-URI as it goes on the wire when it is a URI object of this container (set by the application or
     * parsed from text): borrowed, never to be modified; else null (read {@link #requestUriText}).
     */
    public byte[] requestUriWire()
    {
        return uri instanceof BaseUri b ? b.wireBytes() : null;
    }

    public String requestUriText()
    {
        if (uri instanceof URI u)
        {
            return u.toString();
        }
        if (null == uri && NO_SPAN != uriSpan)
        {
            final int start = uriSpan >>> 16;
            uri = new String(headers.bytes(), start, (uriSpan & 0xFFFF) - start, StandardCharsets.UTF_8);
        }
        return (String)uri;
    }

    /** The container replaces the Request-URI (proxy Route rules, RFC 3261 §16.4, §16.6 step 6). */
    public void replaceRequestUri(final String uri)
    {
        this.uri = uri;
        uriSpan = NO_SPAN;
    }

    public void initial(final boolean value)
    {
        flag(INITIAL, value);
    }

    public boolean isB2bua()
    {
        return 0 != (flags & B2BUA);
    }

    private void flag(final int bit, final boolean value)
    {
        flags = (byte)(value ? flags | bit : flags & ~bit);
    }

    /** The proxy of this received request, or null. */
    public Proxy proxy()
    {
        final MessageExtras x = extrasIfAny();
        return null == x ? null : x.proxy;
    }

    public void proxy(final Proxy value)
    {
        if (null != value || null != extrasIfAny())
        {
            extras().proxy = value;
        }
    }

    /**
     * Whether this received request is being forwarded as it is by the container (a subsequent request of a
     * record-routed dialog whose servlet did not ask for its proxy): it is on a client transaction of its own, and the
     * responses to it go back on its server transaction.
     */
    public boolean isRelayed()
    {
        return 0 != (flags & RELAYED);
    }

    public void relayed(final boolean value)
    {
        flag(RELAYED, value);
    }

    // ================================================================================================================
    // Container view: application routing (JSR 289 §15)
    // ================================================================================================================

    /** Sets what the application router said about this initial request (JSR 289 §15.4.1; {@link RouterStates}). */
    void routing(final RouterState state)
    {
        routerState = state;
    }

    public Serializable stateInfo()
    {
        return null == routerState ? null : routerState.stateInfo;
    }

    /** The router's answer as this request holds it (shared, {@link RouterStates}), or null. */
    RouterState routerState()
    {
        return routerState;
    }

    public SipApplicationRoutingRegion region()
    {
        return null == routerState ? null : routerState.region;
    }

    /**
     * A request made from a received initial one (B2BUA leg, SipFactory copy) continues its routing (JSR 289
     * §15.2.2: CONTINUE with the original's router state), unless the application sets another directive.
     */
    public void continueFrom(final SipServletRequestImpl orig)
    {
        directive(SipApplicationRoutingDirective.CONTINUE);
        routerState = orig.routerState;
    }

    public SipApplicationRoutingDirective directive()
    {
        return DIRECTIVES[(flags & DIRECTIVE_MASK) >>> DIRECTIVE_SHIFT];
    }

    private void directive(final SipApplicationRoutingDirective value)
    {
        flags = (byte)(flags & ~DIRECTIVE_MASK | value.ordinal() << DIRECTIVE_SHIFT);
    }

    public void poppedRoute(final Address route)
    {
        final MessageExtras x = extras();
        x.poppedRoute = route;
        x.poppedRouteText = null;
        poppedRouteSpan = NO_SPAN;
    }

    /** The Route value the container popped (JSR 289 §15.5), parsed when the application asks for it. */
    public void poppedRoute(final String routeValue)
    {
        final MessageExtras x = extras();
        x.poppedRoute = null;
        x.poppedRouteText = routeValue;
        poppedRouteSpan = NO_SPAN;
    }

    /**
     * The Route value the container popped, still in this request's received bytes at {@code span} (see
     * {@link MessageHeaders#valueSpan}): no String is made unless the application asks for it.
     */
    public void poppedRouteSpan(final long span)
    {
        final MessageExtras x = extrasIfAny();
        if (null != x)
        {
            x.poppedRoute = null;
            x.poppedRouteText = null;
        }
        poppedRouteSpan = span < 0 ? NO_SPAN : (int)(span >>> 32) << 16 | (int)span;
    }

    /**
     * The container pushed a route back to itself on this request ({@code ROUTE_BACK}, JSR 289 §15.4.1), whose URI
     * carries {@code token}; the URI is fitted to the transport the request leaves on when it is sent.
     */
    public void routeBackToken(final String token)
    {
        extras().routeBackToken = token;
    }

    /**
     * The Route of ours popped from this request carried an RFC 5626 flow token (§5.3: the request goes on the flow
     * it names, or gets 430 Flow Failed).
     */
    public void flowToken(final String token)
    {
        extras().flowToken = token;
    }

    /** The flow token of the Route of ours popped from this request, or null (no extras are made to answer). */
    public String flowToken()
    {
        final MessageExtras x = extrasIfAny();
        return null == x ? null : x.flowToken;
    }

    /** The token of the container's route back on this request, or null (no extras are made to answer). */
    public String routeBackToken()
    {
        final MessageExtras x = extrasIfAny();
        return null == x ? null : x.routeBackToken;
    }

    // ================================================================================================================
    // System headers
    // ================================================================================================================

    @Override
    protected boolean isSystemHeader(final HeaderName known, final String name)
    {
        return switch (known)
        {
            case CALL_ID, FROM, TO, CSEQ, VIA, RECORD_ROUTE, ROUTE, PATH, CONTENT_LENGTH, RSEQ, RACK -> true;
            case CONTACT -> !"REGISTER".equals(method);
            default -> false;
        };
    }

    // ================================================================================================================
    // SipServletRequest
    // ================================================================================================================

    @Override
    public String getMethod()
    {
        return method;
    }

    @Override
    public URI getRequestURI()
    {
        if (!(uri instanceof URI))
        {
            try
            {
                uri = AddressCodec.uri(requestUriText());
            }
            catch (final ServletParseException e)
            {
                throw new IllegalStateException("Request-URI does not parse: " + e.getMessage(), e);
            }
        }
        return (URI)uri;
    }

    @Override
    public void setRequestURI(final URI uri)
    {
        checkWritable();
        if (null == uri)
        {
            throw new NullPointerException("uri");
        }
        this.uri = uri;
    }

    @Override
    public boolean isInitial()
    {
        return 0 != (flags & INITIAL);
    }

    @Override
    public SipServletResponse createResponse(final int statusCode)
    {
        return createResponse(statusCode, null);
    }

    /**
     * A response to this received request (JSR 289 §5.1.2; RFC 3261 §8.2.6.2): Via, From, To, Call-ID and CSeq
     * copied, To tagged with the session's local tag above 100, Record-Route copied into responses that create a
     * dialog (§12.1.1), and the container's Contact in those.
     */
    @Override
    public SipServletResponse createResponse(final int statusCode, final String reasonPhrase)
    {
        if (!incoming)
        {
            throw new IllegalStateException("createResponse on a request this application sent");
        }
        if ("ACK".equals(method))
        {
            throw new IllegalStateException("an ACK gets no response");
        }
        if (statusCode < 100 || statusCode > 699)
        {
            throw new IllegalArgumentException("status " + statusCode + " is not 100..699");
        }
        if (null != finalResponse())
        {
            throw new IllegalStateException("a final response (" + finalResponse().getStatus() + ") was already sent");
        }
        return SipServletResponseImpl.toRequest(this, statusCode, reasonPhrase);
    }

    /** Responses to this request go on its transaction; the container's checks apply. */
    @Override
    public SipServletRequest createCancel()
    {
        if (incoming || !"INVITE".equals(method))
        {
            throw new IllegalStateException("createCancel applies to an INVITE this application sent");
        }
        if (!committed || null != finalResponse())
        {
            throw new IllegalStateException(!committed ? "the INVITE was not sent" : "the INVITE has a final response");
        }
        return ClientLeg.cancelFor(this);
    }

    @Override
    public B2buaHelper getB2buaHelper()
    {
        if (null == session)
        {
            throw new IllegalStateException("no session");
        }
        if (null != proxy())
        {
            throw new IllegalStateException("the application already proxies this request");
        }
        flags |= B2BUA;
        session.markB2bua();
        return session.appSession().b2buaHelper();
    }

    @Override
    public Proxy getProxy() throws TooManyHopsException
    {
        return getProxy(true);
    }

    /**
     * JSR 289 §10.1: the one proxy of this received request, made on first use. A request whose Max-Forwards is 0
     * may not be proxied (RFC 3261 §16.3 step 3): {@link TooManyHopsException}, which the container answers with
     * 483 when the servlet lets it escape.
     */
    @Override
    public Proxy getProxy(final boolean create) throws TooManyHopsException
    {
        if (null != proxy())
        {
            return proxy();
        }
        if (0 != (flags & RELAYED))
        {
            // the container already forwards this subsequent request: its proxy, as started, made on first use
            proxy(session.host().proxyFor(this));
            return proxy();
        }
        if (!incoming)
        {
            throw new IllegalStateException("getProxy applies to a received request");
        }
        if ("ACK".equals(method) || "CANCEL".equals(method))
        {
            throw new IllegalStateException(method + " is proxied by the container with its transaction");
        }
        if (0 == getMaxForwards())
        {
            throw new TooManyHopsException();
        }
        if (0 != (flags & B2BUA))
        {
            throw new IllegalStateException("the application already acts as a B2BUA on this request");
        }
        if (!create)
        {
            return null;
        }
        if (null != finalResponse())
        {
            throw new IllegalStateException("the request was already answered (" + finalResponse().getStatus() + ")");
        }
        if (null == session)
        {
            throw new IllegalStateException("no session");
        }
        proxy(session.host().proxyFor(this));
        return proxy();
    }

    @Override
    public int getMaxForwards()
    {
        return intHeader(HeaderName.MAX_FORWARDS);
    }

    @Override
    public void setMaxForwards(final int n)
    {
        checkWritable();
        if (n < 0 || n > 255)
        {
            throw new IllegalArgumentException("Max-Forwards " + n + " is not 0..255");
        }
        headers.set("Max-Forwards", HeaderText.decimal(n));
    }

    /**
     * Pushes {@code uri} as a loose route: {@code ;lr} is added to the pushed value when the URI lacks it, as the
     * reference container does, so that the next hop is not taken for a strict router (RFC 3261 §16.12); the
     * application's URI object is not changed.
     */
    @Override
    public void pushRoute(final SipURI uri)
    {
        if (uri.getLrParam())
        {
            pushRouteText("<" + uri + ">");
            return;
        }
        final SipURI loose = (SipURI)uri.clone();
        loose.setLrParam(true);
        pushRouteText("<" + loose + ">");
    }

    @Override
    public void pushRoute(final Address uri)
    {
        pushRouteText(uri.toString());
    }

    private void pushRouteText(final String value)
    {
        checkWritable();
        if (!isInitial() && !incoming)
        {
            throw new IllegalStateException("pushRoute applies to initial requests");
        }
        headers.addFirst("Route", value);
    }

    @Override
    public void pushPath(final Address uri)
    {
        checkWritable();
        if (!"REGISTER".equals(method))
        {
            throw new IllegalStateException("Path is pushed on REGISTER requests (RFC 3327)");
        }
        headers.addFirst("Path", uri.toString());
    }

    @Override
    public Address getPoppedRoute()
    {
        MessageExtras x = extrasIfAny();
        if ((null == x || null == x.poppedRoute && null == x.poppedRouteText) && NO_SPAN != poppedRouteSpan)
        {
            final int start = poppedRouteSpan >>> 16;
            x = extras();
            x.poppedRouteText = new String(headers.bytes(), start, (poppedRouteSpan & 0xFFFF) - start,
                StandardCharsets.UTF_8);
            poppedRouteSpan = NO_SPAN;
        }
        if (null == x)
        {
            return null;
        }
        if (null == x.poppedRoute && null != x.poppedRouteText)
        {
            try
            {
                x.poppedRoute = AddressCodec.address(x.poppedRouteText);
            }
            catch (final ServletParseException e)
            {
                x.poppedRoute = null;
            }
            x.poppedRouteText = null;
        }
        return x.poppedRoute;
    }

    @Override
    public Address getInitialPoppedRoute()
    {
        return getPoppedRoute();
    }

    @Override
    public SipApplicationRoutingRegion getRegion()
    {
        return region();
    }

    @Override
    public URI getSubscriberURI()
    {
        return null == routerState ? null : routerState.subscriberUri;
    }

    @Override
    public SipApplicationRoutingDirective getRoutingDirective()
    {
        if (!isInitial())
        {
            throw new IllegalStateException("not an initial request");
        }
        return DIRECTIVES[(flags & DIRECTIVE_MASK) >>> DIRECTIVE_SHIFT];
    }

    /**
     * JSR 289 §15.2.2: CONTINUE or REVERSE take the router state of the request this one is derived from.
     */
    @Override
    public void setRoutingDirective(final SipApplicationRoutingDirective value, final SipServletRequest origRequest)
    {
        if (!isInitial() || committed)
        {
            throw new IllegalStateException(committed ? "the request was sent" : "not an initial request");
        }
        if (SipApplicationRoutingDirective.NEW != value)
        {
            if (!(origRequest instanceof SipServletRequestImpl orig) || !orig.isInitial() || !orig.incoming)
            {
                throw new IllegalStateException("CONTINUE and REVERSE need the received initial request");
            }
            routerState = orig.routerState;
        }
        directive(value);
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
            throw new IllegalStateException("a received request cannot be sent; create a new one");
        }
        checkWritable();
        if (null == session)
        {
            throw new IllegalStateException("the request has no session");
        }
        if (!session.isValid())
        {
            throw new IllegalStateException("the session was invalidated");
        }
        if ("BYE".equals(method))
        {
            session.byeSent(); // before it leaves: a second BYE made meanwhile on another thread is refused too
        }
        sendOnShard();
    }

    /**
     * JSR 289 §4.1.5 / RFC 3261 §22.2: the credentials for each realm of a 401 or 407 the {@code AuthInfo} covers
     * (see {@link DigestAnswer}).
     *
     * @throws IllegalArgumentException when the response is not a 401 or 407, or the {@code AuthInfo} is not one
     *     {@code SipFactory.createAuthInfo()} made.
     */
    @Override
    public void addAuthHeader(final SipServletResponse challengeResponse, final AuthInfo authInfo)
    {
        DigestAnswer.answer(this, challengeResponse, authInfo);
    }

    /** As {@link #addAuthHeader(SipServletResponse, AuthInfo)} with one user name and password for every realm. */
    @Override
    public void addAuthHeader(final SipServletResponse challengeResponse, final String username,
        final String password)
    {
        DigestAnswer.answer(this, challengeResponse, username, password);
    }

    @Override
    public String toString()
    {
        return method + " " + requestUriText() + " (" + getCallId() + ")";
    }
}
