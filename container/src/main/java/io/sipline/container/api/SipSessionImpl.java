package io.sipline.container.api;

import java.io.Serializable;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

import javax.servlet.ServletContext;
import javax.servlet.ServletException;
import javax.servlet.sip.Address;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipSession;
import javax.servlet.sip.SipSessionEvent;
import javax.servlet.sip.SipSessionListener;
import javax.servlet.sip.URI;
import javax.servlet.sip.ar.SipApplicationRoutingRegion;

import io.sipline.container.security.SipPrincipal;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMethod;

/**
 * One SIP session (JSR 289 §6.2): one dialog, or one dialog-less series of transactions, of one application session.
 * It keeps the session's state (INITIAL, EARLY, CONFIRMED, TERMINATED, §6.2.1), its handler servlet and its
 * transactions in progress, and hands the rest to its parts: the RFC 3261 §12 dialog state ({@link SessionDialog}),
 * the requests made from it ({@link InDialogRequests}), the attributes ({@link SessionAttributes}) and the derived
 * sessions of a forked request ({@link SessionFork}).
 * <p>
 * Lives in its shard's {@link SessionTable} under (Call-ID, local tag) once it has a local tag, so that responses and
 * in-dialog requests find it. Ready to invalidate (§6.2.4.1.2) when TERMINATED, or INITIAL with every transaction it
 * took part in finished; then invalidated by the container when {@link #getInvalidateWhenReady()} (the default).
 * <p>
 * Threading: used on its shard by the container; an application may call it from another thread, but not
 * concurrently with the container's use (JSR 289 §6.3: the container serializes its own calls per application
 * session by running them on the session's shard).
 */
public final class SipSessionImpl implements SipSession
{
    private final SipApplicationSessionImpl app;
    private String id;
    private final int number;
    private final long created;
    private long lastAccessed;
    private String handler;
    private State state = State.INITIAL;
    boolean valid = true;
    private boolean invalidateWhenReady = true;
    private boolean readyNotified;
    /** Made on the first attribute, dropped with the last: an established call without attributes holds none. */
    private SessionAttributes attributes;

    /** What the application router said about the initial request (shared with it), or null. */
    private RouterState router;

    private final boolean uac;
    /** The dialog state; never null. */
    final SessionDialog dialog;
    /** Registered in the shard's table (a derived session is, through its head's entry). */
    boolean registered;

    private SipServletRequestImpl original;
    /**
     * Requests of this session whose transaction has no final response yet (JSR 289 B2BUA pending messages), in the
     * order they began: the first in a field (a session has one at a time in most calls), the others in the extras'
     * list, made when two overlap.
     */
    private SipServletRequestImpl ongoingFirst;
    private boolean hadTransaction;
    /** Written by the thread that sends the BYE (an application's, perhaps not the shard's), read by any. */
    private volatile boolean byeSent;
    private SipSessionImpl linked;
    private boolean b2bua;
    /** The 2xx this UAS sent and whose ACK has not come yet, or null. */
    private AckWait awaitingAck;
    /** What few sessions use (proxy role, 100rel, overlapping requests, settled user), or null until then. */
    private SessionExtras extras;
    /** The session's part in a forked request's dialogs, made on the first other dialog, or null. */
    SessionFork fork;

    SipSessionImpl(final SipApplicationSessionImpl app, final boolean uac, final SessionDialog dialog)
    {
        this.app = app;
        this.uac = uac;
        this.dialog = dialog;
        this.number = app.nextSessionNumber();
        this.created = this.lastAccessed = app.host().currentTimeMillis();
        app.add(this);
    }

    /**
     * The session of a received initial request (UAS side, RFC 3261 §12.1.1): remote party and tag from From, the
     * local party from To, the remote target from Contact, the route set from Record-Route as received.
     */
    public static SipSessionImpl forReceived(final SipApplicationSessionImpl app, final SipServletRequestImpl request,
        final String handler)
    {
        final SipSessionImpl s = new SipSessionImpl(app, false, SessionDialog.received(app.host(), request));
        s.handler = handler;
        s.original = request;
        request.session(s);
        s.fireCreated();
        return s;
    }

    /**
     * A session for a request this application originates (UAC side, §12.1.2): a new Call-ID (or {@code callId})
     * and local tag from the shard, parties as given, remote target the Request-URI until a response says more.
     */
    public static SipSessionImpl forOutgoing(final SipApplicationSessionImpl app, final String callId,
        final CharSequence fromWithoutTag, final CharSequence toWithoutTag, final CharSequence requestUri,
        final String handler)
    {
        return outgoing(app, SessionDialog.outgoing(app.host(), callId, fromWithoutTag, toWithoutTag, requestUri),
            handler);
    }

    /**
     * As {@link #forOutgoing}, for a copy of {@code uriOf} (B2buaHelper, SipFactory): remote target its Request-URI,
     * taken as its received bytes while they are unread ({@link SessionDialog}).
     */
    public static SipSessionImpl forCopy(final SipApplicationSessionImpl app, final String callId,
        final CharSequence fromWithoutTag, final CharSequence toWithoutTag, final SipServletRequestImpl uriOf,
        final String handler)
    {
        return outgoing(app, SessionDialog.outgoing(app.host(), callId, fromWithoutTag, toWithoutTag, uriOf), handler);
    }

    private static SipSessionImpl outgoing(final SipApplicationSessionImpl app, final SessionDialog dialog,
        final String handler)
    {
        final SipSessionImpl s = new SipSessionImpl(app, true, dialog);
        s.handler = handler;
        s.fireCreated();
        return s;
    }

    /**
     * A session of an application session another node of the cluster wrote to the grid ({@link SessionTakeover}):
     * its id, side, handler, state and dialog as written, its attributes told to no listener (it moved, it was not
     * created). Not registered yet. Shard only.
     */
    static SipSessionImpl restored(final SipApplicationSessionImpl app, final String id, final boolean uac,
        final String handler, final State state, final SessionDialog dialog)
    {
        final SipSessionImpl s = new SipSessionImpl(app, uac, dialog);
        s.id = id;
        s.handler = handler;
        s.state = state;
        s.hadTransaction = true;
        return s;
    }

    /** An attribute of a session taken over from another node (see {@link #restored}). */
    void restoreAttribute(final String name, final Object value)
    {
        if (null == attributes)
        {
            attributes = new SessionAttributes();
        }
        attributes.restore(name, value);
    }

    /** What a derived session takes from the session it is derived from, beside the dialog state. */
    void copyFrom(final SipSessionImpl from)
    {
        handler = from.handler;
        original = from.original;
        router = from.router;
        b2bua = from.b2bua; // linked to nothing until it is relayed (createResponseToOriginalRequest) or linked
        invalidateWhenReady = from.invalidateWhenReady;
        attributes = null == from.attributes ? null : SessionAttributes.copyOf(from.attributes);
    }

    void markTransactionSeen()
    {
        hadTransaction = true;
    }

    // ================================================================================================================
    // Forked requests (JSR 289 §6.2.3.2)
    // ================================================================================================================

    /**
     * A response to this UAC session's initial request with a To tag of another dialog than the session's (a
     * forking proxy downstream; RFC 3261 §12.1.2, §13.2.2.4: each tag is a dialog of its own) is given to the
     * application in a session derived from this one, made once per tag: same application session, Call-ID, local
     * tag and party, handler, routing info and local CSeq, a copy of the attributes, and its own remote tag, remote
     * target and route set from {@code response}. Requests of that dialog find it through this session's entry in
     * the shard's table ({@link #dialogFor}). Shard only.
     */
    public SipSessionImpl derive(final SipServletResponseImpl response)
    {
        return SessionFork.derive(this, response);
    }

    /**
     * The UAS side of a forked dialog (B2buaHelper {@code createResponseToOriginalRequest}: a second 2xx to the
     * original request cannot share the first one's To tag, so it is a dialog, and a session, of its own): same
     * application session, Call-ID, remote party, tag and target, route set, initial request, handler and a copy of
     * the attributes, and a local tag of its own (made for its first response, which registers it). Any thread.
     *
     * @throws IllegalStateException when this session has no received initial request any more.
     */
    public SipSessionImpl deriveUas()
    {
        if (uac || null == original || !original.isIncoming())
        {
            throw new IllegalStateException("the session has no received initial request to answer again");
        }
        return SessionFork.deriveUas(this);
    }

    /**
     * The session of the dialog whose remote tag is {@code tag} among this session and the ones derived from it, or
     * null when none has it yet.
     */
    public SipSessionImpl dialogFor(final String tag)
    {
        return SessionFork.dialogFor(this, tag);
    }

    /** As {@link #dialogFor(String)} over a borrowed message's bytes; this session when none matches. Shard only. */
    SipSessionImpl dialogFor(final byte[] b, final int start, final int end)
    {
        return SessionFork.dialogFor(this, b, start, end);
    }

    /** Whether sessions were derived from this one for other dialogs of its initial request. */
    public boolean hasForks()
    {
        return null != fork && null != fork.derived;
    }

    /** Whether this session was derived from another for a forked dialog (JSR 289 §6.2.3.2). */
    public boolean isDerived()
    {
        return null != parent();
    }

    /** The session this one was derived from, or this session when it was not derived. */
    public SipSessionImpl head()
    {
        return null == parent() ? this : parent();
    }

    private SipSessionImpl parent()
    {
        return null == fork ? null : fork.parent;
    }

    /** A derived session's 2xx to the initial INVITE, or null. */
    public SipServletResponseImpl derived2xx()
    {
        return null == fork ? null : fork.ok;
    }

    /**
     * The received 2xx to this UAC session's initial INVITE whose ACK the application has not created yet (a derived
     * session's own 2xx), or null: what {@code B2buaHelper.getPendingMessages(UAC)} lists beside the requests in
     * progress, and what the container ACKs itself before a BYE.
     */
    public SipServletResponseImpl unacknowledged2xx()
    {
        if (null == original || original.isIncoming())
        {
            return null;
        }
        final SipServletResponseImpl ok = isDerived() ? derived2xx() : original.last2xx();
        return null != ok && !ok.isCommitted() ? ok : null;
    }

    /** The ACK sent for {@link #derived2xx()}, or null. */
    public SipServletRequestImpl derivedAck()
    {
        return null == fork ? null : fork.ack;
    }

    /** Marks a derived UAC session whose 2xx the application relayed upstream (it ACKs when the caller does). */
    public void relayed()
    {
        if (null != fork)
        {
            fork.relayed = true;
        }
    }

    public boolean isRelayed()
    {
        return null != fork && fork.relayed;
    }

    /**
     * The early dialogs of this head's derived sessions end (they become TERMINATED, so they are invalidated when
     * ready): RFC 3261 §13.2.2.3 (a non-2xx final response ends every early dialog) and §13.2.2.4 (64*T1 after the
     * first 2xx, "all the early dialogs that have not transitioned to established dialogs are terminated"). With
     * {@code onlyTag}, only the derived session of that tag ends (the 2xx that confirmed this session's dialog had
     * its tag). Shard only.
     *
     * @return whether a session ended.
     */
    public boolean endEarlyForks(final String onlyTag)
    {
        return SessionFork.endEarly(this, onlyTag);
    }

    /** The BYE the container sent on this derived dialog itself, or null. */
    public SipServletRequestImpl containerBye()
    {
        return null == fork ? null : fork.containerBye;
    }

    public void containerBye(final SipServletRequestImpl bye)
    {
        fork.containerBye = bye;
    }

    // ================================================================================================================
    // Container view
    // ================================================================================================================

    public ContainerShard host()
    {
        return app.host();
    }

    public SipApplicationSessionImpl appSession()
    {
        return app;
    }

    public String handler()
    {
        return handler;
    }

    public boolean isUac()
    {
        return uac;
    }

    public String localTag()
    {
        return dialog.localTag();
    }

    /** {@link #localTag()} as it is kept: a String, or an {@link IdText} that no String was made of; or null. */
    public CharSequence localTagChars()
    {
        return dialog.localTagChars();
    }

    public String remoteTag()
    {
        return dialog.remoteTag();
    }

    /** Whether the dialog has a remote tag ({@link #remoteTag()} not null), read without making its String. */
    public boolean hasRemoteTag()
    {
        return !dialog.noRemoteTag();
    }

    public String callId()
    {
        return dialog.callId();
    }

    /** Adds the session's Call-ID to {@code h}, written from its numbers when this container made it. */
    public void insertCallId(final MessageHeaders h)
    {
        dialog.insertCallId(h);
    }

    /** Whether the session's Call-ID is the one at {@code [start, end)} of {@code b}; no String is made. */
    boolean callIdIs(final byte[] b, final int start, final int end)
    {
        return dialog.callIdIs(b, start, end);
    }

    State state()
    {
        return state;
    }

    void state(final State value)
    {
        state = value;
    }

    /**
     * The local tag the UAS puts in To of its responses; made (and the session registered) on first use. A String, or
     * an {@link IdText} that no String was made of (written from its numbers).
     */
    public CharSequence localTagForResponse()
    {
        if (null == dialog.localTagChars())
        {
            dialog.localTag(app.host().newTagText());
            if (app.host().onShardThread())
            {
                register();
            }
        }
        return dialog.localTagChars();
    }

    /** Registers the session under (Call-ID, local tag) in its shard's table; shard thread only. */
    public void register()
    {
        if (!registered && null != dialog.localTagChars() && valid)
        {
            app.host().sessions().putDialog(dialog.localTagChars(), this);
            registered = true;
        }
    }

    /**
     * The To of this UAS's responses to its initial request: the request's To (entry {@code requestTo} of its
     * headers) with the local tag, made once and shared by every response (RFC 3261 §8.2.6.2).
     */
    public TaggedParty taggedTo(final MessageHeaders requestHeaders, final int requestTo)
    {
        localTagForResponse();
        return dialog.taggedTo(requestHeaders, requestTo);
    }

    /**
     * The From of this session's requests: the local party with the local tag (RFC 3261 §8.1.1.3, §12.2.1.1), made
     * once and shared by the initial request and the requests in the dialog.
     */
    public TaggedParty requestFrom()
    {
        return dialog.requestFrom();
    }

    public String contactValue()
    {
        return app.host().contact();
    }

    /** Sets what the application router said about this session's initial request ({@link RouterStates}). */
    void routing(final RouterState state)
    {
        router = state;
    }

    public Serializable stateInfo()
    {
        return null == router ? null : router.stateInfo;
    }

    public SipServletRequestImpl original()
    {
        return original;
    }

    public void original(final SipServletRequestImpl request)
    {
        original = request;
    }

    /**
     * The authenticated user of this session's initial request (ACKs and CANCELs in its dialog are never
     * challenged and carry it), or null; still known after {@link #settle}.
     */
    public SipPrincipal initialPrincipal()
    {
        return null != original ? original.principal() : null == extras ? null : extras.settledPrincipal;
    }

    /**
     * Lets go of the initial request once its INVITE transaction ended with the dialog confirmed and acknowledged
     * ({@link SessionSettling}); keeps it otherwise. Shard only.
     */
    public void settle(final SipServletRequestImpl request)
    {
        SessionSettling.settle(this, request);
    }

    /** The initial request was let go ({@link SessionSettling}); its user, or null, is kept for the dialog. */
    void settled(final SipPrincipal principal)
    {
        if (null != principal)
        {
            extras().settledPrincipal = principal;
        }
        original = null;
    }

    SessionAttributes attributeTable()
    {
        return attributes;
    }

    public SipSessionImpl linked()
    {
        return linked;
    }

    public void linked(final SipSessionImpl other)
    {
        linked = other;
    }

    /** The 2xx this UAS sent and whose ACK has not come yet, or null. */
    public AckWait awaitingAck()
    {
        return awaitingAck;
    }

    public void awaitingAck(final AckWait record)
    {
        awaitingAck = record;
    }

    /** The proxy of this session's initial request, or null. */
    public SessionProxy proxy()
    {
        return null == extras ? null : extras.proxy;
    }

    public void proxy(final SessionProxy value)
    {
        if (null != value || null != extras)
        {
            extras().proxy = value;
        }
    }

    public String proxyRouteKey()
    {
        return null == extras ? null : extras.proxyRouteKey;
    }

    /** The session no longer record-routes (its Record-Route key is unregistered). */
    void clearProxyRouteKey()
    {
        if (null != extras)
        {
            extras.proxyRouteKey = null;
        }
    }

    private SessionExtras extras()
    {
        if (null == extras)
        {
            extras = new SessionExtras();
        }
        return extras;
    }

    /**
     * The session record-routes as a proxy (JSR 289 §10.2.2): registered under (Call-ID, {@code key}) so that a
     * subsequent request whose popped Route carries the key finds it. Shard only.
     */
    public void registerProxyRoute(final String key)
    {
        if (null == proxyRouteKey() && valid)
        {
            extras().proxyRouteKey = key;
            app.host().sessions().putDialog(key, this);
        }
    }

    /** This session's reliable provisional responses (RFC 3262), made on first use. */
    public ReliableProvisionals reliableProvisionals()
    {
        final SessionExtras x = extras();
        if (null == x.reliableProvisionals)
        {
            x.reliableProvisionals = new ReliableProvisionals();
        }
        return x.reliableProvisionals;
    }

    /** As {@link #reliableProvisionals()}, null when the session never used 100rel. */
    public ReliableProvisionals reliableProvisionalsIfAny()
    {
        return null == extras ? null : extras.reliableProvisionals;
    }

    public void markB2bua()
    {
        b2bua = true;
    }

    public boolean isB2bua()
    {
        return b2bua;
    }

    // ================================================================================================================
    // Transactions and state (JSR 289 §6.2.1)
    // ================================================================================================================

    /**
     * The request at {@code i} among those whose transaction has no final response yet, in the order they began, or
     * null past their end.
     */
    public SipServletRequestImpl ongoing(final int i)
    {
        if (0 == i || null == ongoingFirst)
        {
            return 0 == i ? ongoingFirst : null;
        }
        final List<SipServletRequestImpl> more = null == extras ? null : extras.ongoingMore;
        return null == more || i > more.size() ? null : more.get(i - 1);
    }

    /** A transaction starts (a request received or sent). */
    public void begin(final SipServletRequestImpl request)
    {
        if (!"ACK".equals(request.getMethod()))
        {
            if (null == ongoingFirst)
            {
                ongoingFirst = request;
            }
            else
            {
                extras().overlapping(request);
            }
            hadTransaction = true;
        }
        lastAccessed = app.host().currentTimeMillis();
        app.touch();
    }

    /** A transaction ended for the application (a final response sent or received, or a timeout). */
    public void end(final SipServletRequestImpl request)
    {
        if (ongoingFirst == request)
        {
            ongoingFirst = null == extras ? null : extras.nextOngoing();
        }
        else if (null != extras)
        {
            extras.ended(request);
        }
    }

    /**
     * Whether a borrowed request that found this session by its To tag belongs to its dialog (RFC 3261 §12.2.2): 0,
     * or the status to refuse it with (481: another remote tag; 500: its CSeq is out of order); when it belongs, its
     * CSeq is the dialog's remote CSeq from now on. A NOTIFY may come
     * from a subscription's other fork with a remote tag of its own (RFC 6665 §4.1.2.4) and is not refused for it.
     */
    public int matchInDialog(final SipMessage request)
    {
        return dialog.match(app.host(), request.buffer(), request.fromTagStart(), request.fromTagEnd(),
            request.method(), request.cseqNumber(), SipMethod.NOTIFY == request.method());
    }

    /** A response this session's UAS sends: its state changes (§6.2.1, {@link SessionStates}). */
    public void onResponseSent(final SipServletResponseImpl response)
    {
        SessionStates.onResponseSent(this, response);
    }

    /**
     * A response to a request of this UAC session arrived: its state changes, and the first tagged 1xx or 2xx to the
     * dialog-creating request sets the remote tag, target and route set (RFC 3261 §12.1.2, {@link SessionStates}).
     */
    public void onResponseReceived(final SipServletResponseImpl response)
    {
        lastAccessed = app.host().currentTimeMillis();
        SessionStates.onResponseReceived(this, response);
    }

    /** This session sent a BYE (RFC 3261 §15.1.1: the session is over for it); see {@link #hasSentBye}. */
    void byeSent()
    {
        byeSent = true;
    }

    /**
     * Whether this session sent a BYE: another one is refused, as the reference container's stack refuses it. Not
     * for the sessions of a forked request's dialogs, whose requests may pass through one another's objects.
     */
    boolean hasSentBye()
    {
        return byeSent && null == fork;
    }

    /** A BYE was received: the dialog ends with its 2xx; the session is TERMINATED then (§6.2.1). */
    public void terminate()
    {
        state = State.TERMINATED;
    }

    /** JSR 289 §6.2.4.1.2. */
    @Override
    public boolean isReadyToInvalidate()
    {
        checkValid();
        return readyToInvalidate();
    }

    boolean readyToInvalidate()
    {
        if (null != ongoingFirst)
        {
            return false;
        }
        if (null != proxy() && null == proxyRouteKey() && hadTransaction)
        {
            return true; // a proxy that did not record-route sees nothing of the dialog after its transaction
        }
        return State.TERMINATED == state || (State.INITIAL == state && hadTransaction);
    }

    boolean readyNotified()
    {
        return readyNotified;
    }

    void readyNotified(final boolean value)
    {
        readyNotified = value;
    }

    // ================================================================================================================
    // Requests in the session
    // ================================================================================================================

    /**
     * A subsequent request in this session's dialog (RFC 3261 §12.2.1.1), or, in a UAC session without a dialog, a
     * new request with the same Call-ID, From and To ({@link InDialogRequests}).
     */
    @Override
    public SipServletRequest createRequest(final String method)
    {
        return createRelayed(method, null);
    }

    /**
     * As {@link #createRequest(String)}, for a B2BUA relaying {@code orig} (JSR 289 §12.2.2): the new request's header
     * section is over {@code orig}'s bytes, so that the headers copied from it are shared spans, not texts.
     *
     * @param orig the request relayed, or null (a request of the session's own).
     */
    public SipServletRequestImpl createRelayed(final String method, final SipServletRequestImpl orig)
    {
        checkValid();
        if (null == method || "ACK".equalsIgnoreCase(method) || "CANCEL".equalsIgnoreCase(method))
        {
            throw new IllegalArgumentException("use createAck/createCancel for " + method);
        }
        return InDialogRequests.create(this, method, null == orig ? null : orig.headers());
    }

    /** The ACK for a 2xx to INVITE (RFC 3261 §13.2.2.4): CSeq number of the INVITE, method ACK. */
    public SipServletRequestImpl createAck(final SipServletResponseImpl response)
    {
        return InDialogRequests.ack(this, response);
    }

    // ================================================================================================================
    // SipSession
    // ================================================================================================================

    @Override
    public SipApplicationSession getApplicationSession()
    {
        return app;
    }

    @Override
    public String getCallId()
    {
        return dialog.callId();
    }

    @Override
    public long getCreationTime()
    {
        checkValid();
        return created;
    }

    @Override
    public String getId()
    {
        if (null == id)
        {
            id = app.getId() + "-" + number;
        }
        return id;
    }

    @Override
    public long getLastAccessedTime()
    {
        return lastAccessed;
    }

    @Override
    public Address getLocalParty()
    {
        return SessionDialog.party(dialog.localParty(), dialog.localTag());
    }

    @Override
    public Address getRemoteParty()
    {
        return SessionDialog.party(dialog.remoteParty(), dialog.remoteTag());
    }

    @Override
    public SipApplicationRoutingRegion getRegion()
    {
        checkValid();
        return null == router ? null : router.region;
    }

    @Override
    public URI getSubscriberURI()
    {
        checkValid();
        return null == router ? null : router.subscriberUri;
    }

    @Override
    public ServletContext getServletContext()
    {
        return app.application().servletContext();
    }

    @Override
    public State getState()
    {
        checkValid();
        return state;
    }

    @Override
    public void invalidate()
    {
        checkValid();
        invalidateNow();
    }

    /** Ends the session: listeners told, attributes unbound, removed from the tables ({@link SessionInvalidation}). */
    void invalidateNow()
    {
        if (valid)
        {
            SessionInvalidation.invalidate(this);
        }
    }

    void removeAttributes()
    {
        if (null != attributes)
        {
            attributes.removeAll(this);
            attributes = null;
        }
    }

    @Override
    public boolean isValid()
    {
        return valid;
    }

    @Override
    public boolean getInvalidateWhenReady()
    {
        checkValid();
        return invalidateWhenReady;
    }

    @Override
    public void setInvalidateWhenReady(final boolean value)
    {
        checkValid();
        invalidateWhenReady = value;
    }

    boolean invalidateWhenReadyFlag()
    {
        return invalidateWhenReady;
    }

    @Override
    public Object getAttribute(final String name)
    {
        checkValid();
        return null == attributes ? null : attributes.get(name);
    }

    @Override
    public Enumeration<String> getAttributeNames()
    {
        checkValid();
        return null == attributes ? Collections.emptyEnumeration() : attributes.names();
    }

    @Override
    public void setAttribute(final String name, final Object attribute)
    {
        checkValid();
        if (null == attributes)
        {
            if (null == name || null == attribute)
            {
                throw new NullPointerException(null == name ? "name" : "attribute");
            }
            attributes = new SessionAttributes();
        }
        attributes.set(this, name, attribute);
    }

    @Override
    public void removeAttribute(final String name)
    {
        checkValid();
        if (null != attributes && attributes.remove(this, name))
        {
            attributes = null; // the last one went
        }
    }

    @Override
    public void setHandler(final String name) throws ServletException
    {
        checkValid();
        if (null == app.application().servlet(name))
        {
            throw new ServletException("no servlet named " + name + " in " + app.getApplicationName());
        }
        handler = name;
    }

    /** Outbound interfaces: this version sends from the shard's listening socket; others are refused. */
    @Override
    public void setOutboundInterface(final InetSocketAddress address)
    {
        checkValid();
        if (null == address)
        {
            throw new NullPointerException("address");
        }
        if (address.getPort() != app.host().localPort())
        {
            throw new IllegalArgumentException(address + " is not an interface this container listens on");
        }
    }

    @Override
    public void setOutboundInterface(final InetAddress address)
    {
        checkValid();
        if (null == address)
        {
            throw new NullPointerException("address");
        }
    }

    private void checkValid()
    {
        if (!valid)
        {
            throw new IllegalStateException("the SipSession " + getId() + " was invalidated");
        }
    }

    void fireCreated()
    {
        final ClassLoader previousLoader = ListenerLoader.enter(app.application());
        try
        {
            // by index: a for-each over the listener list makes an iterator per session
            final List<SipSessionListener> listeners = app.application().listeners(SipSessionListener.class);
            for (int i = 0; i < listeners.size(); i++)
            {
                listeners.get(i).sessionCreated(new SipSessionEvent(this));
            }
        }
        finally
        {
            ListenerLoader.exit(previousLoader);
        }
    }

    @Override
    public String toString()
    {
        return "SipSession[" + getId() + " " + state + " " + dialog.callId() + "]";
    }
}
