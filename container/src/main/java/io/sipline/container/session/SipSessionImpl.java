package io.sipline.container.session;

import java.io.Serializable;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import javax.servlet.ServletContext;
import javax.servlet.ServletException;
import javax.servlet.sip.Address;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipSession;
import javax.servlet.sip.SipSessionAttributeListener;
import javax.servlet.sip.SipSessionBindingEvent;
import javax.servlet.sip.SipSessionBindingListener;
import javax.servlet.sip.SipSessionEvent;
import javax.servlet.sip.SipSessionListener;
import javax.servlet.sip.URI;
import javax.servlet.sip.ar.SipApplicationRoutingRegion;

import io.sipline.container.address.SipAddresses;
import io.sipline.container.message.HeaderText;
import io.sipline.container.message.MessageHeaders;
import io.sipline.container.message.SipServletRequestImpl;
import io.sipline.container.message.SipServletResponseImpl;
import io.sipline.container.security.SipPrincipal;
import io.sipline.sip.message.HeaderName;

/**
 * One SIP session (JSR 289 §6.2): one dialog (or one dialog-less transaction series) of one application session, with
 * its state (INITIAL, EARLY, CONFIRMED, TERMINATED, §6.2.1), attributes, handler servlet and the dialog's state as
 * RFC 3261 §12 keeps it (Call-ID, local and remote tags and parties, remote target, route set, CSeq numbers), from
 * which it makes subsequent requests ({@link #createRequest}, {@link #createAck}).
 * <p>
 * Lives in its shard's {@link SessionTable} under (Call-ID, local tag) once it has a local tag, so that responses and
 * in-dialog requests find it. A UAC session whose INVITE was forked downstream has derived sessions for its other
 * dialogs (JSR 289 §6.2.3.2, {@link #derive}), which share its local tag and are found through its entry by their
 * remote tag; the UAS side of such a dialog, made when a B2BUA relays it ({@link #deriveUas}), has a local tag and an
 * entry of its own. Ready to invalidate (§6.2.4.1.2) when TERMINATED, or INITIAL with every transaction it
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
    private boolean valid = true;
    private boolean invalidateWhenReady = true;
    private boolean readyNotified;
    private Map<String, Object> attributes;

    private SipApplicationRoutingRegion region;
    private URI subscriber;
    private Serializable stateInfo;

    private final boolean uac;
    private String callId;
    private String localTag;
    private String remoteTag;
    /** From/To as written for this side and the peer, without tags. */
    private String localParty;
    private String remoteParty;
    private String remoteTarget;
    private String taggedTo;
    private List<String> routeSet = List.of();
    private long localCseq;
    private long remoteCseq = -1;
    private boolean registered;

    private SipServletRequestImpl original;
    /** The user of the initial request, kept when {@link #settle} lets go of the request. */
    private SipPrincipal settledPrincipal;
    /** Requests of this session whose transaction has no final response yet (JSR 289 B2BUA pending messages). */
    private final List<SipServletRequestImpl> ongoing = new ArrayList<>(2);
    private boolean hadTransaction;
    private SipSessionImpl linked;
    private boolean b2bua;
    /** The 2xx this UAS sent and whose ACK has not come yet, or null. */
    private AckWait awaitingAck;
    /** The proxy of this session's initial request (JSR 289 §10), or null. */
    private SessionProxy proxy;
    /** The key of our Record-Route (the session is found by it for subsequent requests), or null. */
    private String proxyRouteKey;
    /** RFC 3262 state (RSeq numbers, the reliable provisional awaiting its PRACK), made on first use, or null. */
    private ReliableProvisionals reliableProvisionals;
    /**
     * What a forked initial request adds (JSR 289 §6.2.3.2 derived sessions), or null: made on the first other dialog,
     * so a call that never forks carries one null reference and allocates nothing for it.
     */
    private Fork fork;

    /** A session's part in a forked request's dialogs. Shard only, but {@link #relayed}. */
    private static final class Fork
    {
        /** On the head (the session registered in the shard's table): the sessions derived from it, or null. */
        List<SipSessionImpl> derived;
        /** On a derived session: its head, or null once it became the head itself. */
        SipSessionImpl parent;
        /** On a derived session: its dialog's 2xx to the initial INVITE, or null. */
        SipServletResponseImpl ok;
        /** The ACK sent for {@link #ok} (resent when the 2xx is retransmitted), or null. */
        SipServletRequestImpl ack;
        /** The application relayed {@link #ok} upstream (createResponseToOriginalRequest): ACKed when the caller ACKs. */
        boolean relayed;
        /** The BYE the container sent to end this dialog itself (its response is not the application's), or null. */
        SipServletRequestImpl containerBye;
        /** A derived UAS session: the initial request is its head's, which lets go of it (releaseOriginal). */
        boolean sharesOriginal;
    }

    private SipSessionImpl(final SipApplicationSessionImpl app, final boolean uac)
    {
        this.app = app;
        this.uac = uac;
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
        final SipSessionImpl s = new SipSessionImpl(app, false);
        s.handler = handler;
        final MessageHeaders h = request.headers();
        s.callId = h.get(HeaderName.CALL_ID);
        final String from = h.get(HeaderName.FROM);
        s.remoteTag = HeaderText.param(from, "tag");
        // the parties without tags are made when first needed (a UAS often never sends in its dialog)
        s.remoteCseq = request.cseqNumber();
        final String contact = h.get(HeaderName.CONTACT);
        s.remoteTarget = null == contact ? null : HeaderText.uri(contact);
        s.routeSet = h.find(HeaderName.RECORD_ROUTE, 0) < 0 ? List.of() : List.copyOf(h.getAll("Record-Route"));
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
        final String fromWithoutTag, final String toWithoutTag, final String requestUri, final String handler)
    {
        final SipSessionImpl s = new SipSessionImpl(app, true);
        s.handler = handler;
        s.callId = null == callId ? app.host().newCallId() : callId;
        s.localTag = app.host().newTag();
        s.localParty = fromWithoutTag;
        s.remoteParty = toWithoutTag;
        s.remoteTarget = requestUri;
        s.fireCreated();
        return s;
    }

    /**
     * JSR 289 §6.2.3.2 (derived SipSessions): a response to this UAC session's initial request with a To tag of
     * another dialog than the session's (a forking proxy downstream; RFC 3261 §12.1.2, §13.2.2.4: each tag is a
     * dialog of its own) is given to the application in a session derived from this one, made once per tag: same
     * application session, Call-ID, local tag and party, handler, routing info and local CSeq, a copy of the
     * attributes (the application's data of the call), and its own remote tag, remote target and
     * route set from {@code response}. Requests of that dialog find it through this session's entry in the shard's
     * table ({@link #dialogFor}). Shard only.
     */
    public SipSessionImpl derive(final SipServletResponseImpl response)
    {
        final SipSessionImpl head = null == parent() ? this : parent();
        final SipSessionImpl d = new SipSessionImpl(app, true);
        d.fork = new Fork();
        d.fork.parent = head;
        d.handler = handler;
        d.callId = callId;
        d.localTag = localTag;
        d.localParty = localParty();
        d.remoteParty = remoteParty();
        localCseqBase();
        d.localCseq = localCseq;
        d.original = original;
        d.region = region;
        d.subscriber = subscriber;
        d.stateInfo = stateInfo;
        d.b2bua = b2bua; // linked to nothing until it is relayed (createResponseToOriginalRequest) or linked
        d.invalidateWhenReady = invalidateWhenReady;
        if (null != attributes)
        {
            d.attributes = new HashMap<>(attributes);
        }
        d.hadTransaction = true;
        d.registered = true; // through head's entry
        if (null == head.fork)
        {
            head.fork = new Fork();
        }
        if (null == head.fork.derived)
        {
            head.fork.derived = new ArrayList<>(2);
        }
        head.fork.derived.add(d);
        d.fireCreated();
        d.adoptDialog(response);
        return d;
    }

    /**
     * The UAS side of a forked dialog (JSR 289 §6.2.3.2; B2buaHelper {@code createResponseToOriginalRequest}: a
     * second 2xx to the original request cannot share the first one's To tag, so it is a dialog, and a session, of
     * its own, a clone of the original one): same application session, Call-ID,
     * remote party, tag and target, route set, initial request, handler and a copy of the attributes, and a local tag
     * of its own (made for its first response, which registers it in the shard's table under it). Any thread.
     *
     * @throws IllegalStateException when this session has no received initial request any more.
     */
    public SipSessionImpl deriveUas()
    {
        if (uac || null == original || !original.isIncoming())
        {
            throw new IllegalStateException("the session has no received initial request to answer again");
        }
        final SipSessionImpl d = new SipSessionImpl(app, false);
        d.fork = new Fork();
        d.fork.sharesOriginal = true;
        d.handler = handler;
        d.callId = callId;
        d.localParty = localParty();
        d.remoteParty = remoteParty();
        d.remoteTag = remoteTag;
        d.remoteTarget = remoteTarget;
        d.routeSet = routeSet;
        d.remoteCseq = remoteCseq;
        d.original = original;
        d.region = region;
        d.subscriber = subscriber;
        d.stateInfo = stateInfo;
        d.b2bua = b2bua;
        d.invalidateWhenReady = invalidateWhenReady;
        if (null != attributes)
        {
            d.attributes = new HashMap<>(attributes);
        }
        d.fireCreated();
        return d;
    }

    /**
     * The session of the dialog whose remote tag is {@code tag} among this session and the ones derived from it, or
     * null when none has it yet.
     */
    public SipSessionImpl dialogFor(final String tag)
    {
        if (null == tag || tag.equals(remoteTag))
        {
            return this;
        }
        final List<SipSessionImpl> derived = null == fork ? null : fork.derived;
        if (null != derived)
        {
            for (int i = 0; i < derived.size(); i++)
            {
                if (tag.equals(derived.get(i).remoteTag))
                {
                    return derived.get(i);
                }
            }
        }
        return null;
    }

    /** As {@link #dialogFor(String)} over a borrowed message's bytes; this session when none matches. Shard only. */
    SipSessionImpl dialogFor(final byte[] b, final int start, final int end)
    {
        final List<SipSessionImpl> derived = null == fork ? null : fork.derived;
        if (null == derived || start < 0
            || (null != remoteTag && remoteTag.length() == end - start && matches(remoteTag, b, start)))
        {
            return this;
        }
        for (int i = 0; i < derived.size(); i++)
        {
            final String tag = derived.get(i).remoteTag;
            if (null != tag && tag.length() == end - start && matches(tag, b, start))
            {
                return derived.get(i);
            }
        }
        return this;
    }

    private static boolean matches(final String tag, final byte[] b, final int start)
    {
        for (int i = 0; i < tag.length(); i++)
        {
            if (b[start + i] != tag.charAt(i))
            {
                return false;
            }
        }
        return true;
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
     * session's own 2xx, JSR 289 §6.2.3.2), or null: what {@code B2buaHelper.getPendingMessages(UAC)} lists beside the
     * requests in progress, and what the container ACKs itself before a BYE ({@code ShardRuntime}).
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
     * ready): RFC 3261 §13.2.2.3 (a non-2xx final response ends every early
     * dialog) and §13.2.2.4 (64*T1 after the first 2xx, "all the early dialogs that have not transitioned to
     * established dialogs are terminated"). With {@code onlyTag}, only the derived session of that tag ends (its
     * dialog became this session's: the 2xx that confirmed this session's dialog had its tag). Shard only.
     *
     * @return whether a session ended.
     */
    public boolean endEarlyForks(final String onlyTag)
    {
        final List<SipSessionImpl> derived = null == fork ? null : fork.derived;
        if (null == derived)
        {
            return false;
        }
        boolean ended = false;
        for (int i = 0; i < derived.size(); i++)
        {
            final SipSessionImpl d = derived.get(i);
            if (State.EARLY == d.state && (null == onlyTag || onlyTag.equals(d.remoteTag)))
            {
                d.state = State.TERMINATED;
                ended = true;
            }
        }
        return ended;
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

    public ShardHost host()
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
        return localTag;
    }

    public String remoteTag()
    {
        return remoteTag;
    }

    public String callId()
    {
        return callId;
    }

    /** The local tag the UAS puts in To of its responses; made (and the session registered) on first use. */
    public String localTagForResponse()
    {
        if (null == localTag)
        {
            localTag = app.host().newTag();
            registerIfOnShard();
        }
        return localTag;
    }

    /** Registers the session under (Call-ID, local tag) in its shard's table; shard thread only. */
    public void register()
    {
        if (!registered && null != localTag && valid)
        {
            app.host().sessions().putDialog(callId, localTag, this);
            registered = true;
        }
    }

    private void registerIfOnShard()
    {
        if (app.host().onShardThread())
        {
            register();
        }
    }

    /** From or To as this side writes it, without tag (a UAS takes it from the To of its initial request). */
    private String localParty()
    {
        if (null == localParty && null != original && original.isIncoming())
        {
            localParty = HeaderText.withTag(original.headers().get(HeaderName.TO), null);
        }
        return localParty;
    }

    private String remoteParty()
    {
        if (null == remoteParty && null != original && original.isIncoming())
        {
            remoteParty = HeaderText.withTag(original.headers().get(HeaderName.FROM), null);
        }
        return remoteParty;
    }

    /**
     * The To of this UAS's responses to its initial request: the request's To with the local tag, made once and
     * shared by every response (RFC 3261 §8.2.6.2).
     */
    public String taggedTo(final String requestTo)
    {
        if (null == taggedTo)
        {
            taggedTo = HeaderText.withTag(requestTo, localTagForResponse());
        }
        return taggedTo;
    }

    public String contactValue()
    {
        return app.host().contact();
    }

    public void routing(final SipApplicationRoutingRegion routingRegion, final URI subscriberUri,
        final Serializable routerState)
    {
        region = routingRegion;
        subscriber = subscriberUri;
        stateInfo = routerState;
    }

    public Serializable stateInfo()
    {
        return stateInfo;
    }

    public SipServletRequestImpl original()
    {
        return original;
    }

    /**
     * The authenticated user of this session's initial request (ACKs and CANCELs in its dialog are never
     * challenged and carry it), or null; still known after {@link #settle}.
     */
    public SipPrincipal initialPrincipal()
    {
        return null != original ? original.principal() : settledPrincipal;
    }

    /**
     * The transaction of the initial INVITE ended (RFC 6026: Timer L on the UAS side, Timer M on the UAC side, both
     * 64*T1 after the 2xx) with the dialog confirmed and the 2xx acknowledged: nothing of the container can reach
     * the request or its responses any more. No 2xx retransmission can arrive after that (the UAS stops after
     * 64*T1, RFC 3261 §13.3.1.4), so no ACK needs resending; {@code getPendingMessages} has nothing of it;
     * {@code createResponseToOriginalRequest} could only answer a transaction that is over. What the session still
     * needs from it (the parties without tags, the local CSeq base, the user) is copied, and the request, its
     * responses and its ACK become garbage unless the application keeps them: an established call then holds only
     * its dialog state. A request with Join or Replaces (RFC 3911, RFC 3891) is kept, for
     * {@code SipSessionsUtil.getCorrespondingSipSession}.
     */
    public void settle(final SipServletRequestImpl request)
    {
        if (request != original || State.CONFIRMED != state || !"INVITE".equals(request.getMethod())
            || null != awaitingAck || (uac && null == request.ack()) || null != proxy
            || request.headers().find(HeaderName.REPLACES, 0) >= 0 || null != request.getHeader("Join"))
        {
            return;
        }
        localParty();
        remoteParty();
        localCseqBase();
        settledPrincipal = request.principal();
        original = null;
    }

    public void original(final SipServletRequestImpl request)
    {
        original = request;
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
        return proxy;
    }

    public void proxy(final SessionProxy value)
    {
        proxy = value;
    }

    public String proxyRouteKey()
    {
        return proxyRouteKey;
    }

    /**
     * The session record-routes as a proxy (JSR 289 §10.2.2): registered under (Call-ID, {@code key}) so that a
     * subsequent request whose popped Route carries the key finds it. Shard only.
     */
    public void registerProxyRoute(final String key)
    {
        if (null == proxyRouteKey && valid)
        {
            proxyRouteKey = key;
            app.host().sessions().putDialog(callId, key, this);
        }
    }

    /** This session's reliable provisional responses (RFC 3262), made on first use. */
    public ReliableProvisionals reliableProvisionals()
    {
        if (null == reliableProvisionals)
        {
            reliableProvisionals = new ReliableProvisionals();
        }
        return reliableProvisionals;
    }

    /** As {@link #reliableProvisionals()}, null when the session never used 100rel. */
    public ReliableProvisionals reliableProvisionalsIfAny()
    {
        return reliableProvisionals;
    }

    public void markB2bua()
    {
        b2bua = true;
    }

    public boolean isB2bua()
    {
        return b2bua;
    }

    /** The requests whose transaction has no final response yet. */
    public List<SipServletRequestImpl> ongoing()
    {
        return ongoing;
    }

    /** A transaction starts (a request received or sent). */
    public void begin(final SipServletRequestImpl request)
    {
        if (!"ACK".equals(request.getMethod()))
        {
            ongoing.add(request);
            hadTransaction = true;
        }
        lastAccessed = app.host().currentTimeMillis();
        app.touch();
    }

    /** A transaction ended for the application (a final response sent or received, or a timeout). */
    public void end(final SipServletRequestImpl request)
    {
        ongoing.remove(request);
    }

    /** A request arrived in this session's dialog: CSeq order (RFC 3261 §12.2.2) and target refresh. */
    public void onSubsequentRequest(final SipServletRequestImpl request)
    {
        remoteCseq = Math.max(remoteCseq, request.cseqNumber());
        if (isTargetRefresh(request.getMethod()))
        {
            final String contact = request.headers().get(HeaderName.CONTACT);
            if (null != contact)
            {
                remoteTarget = HeaderText.uri(contact);
            }
        }
    }

    /**
     * A response this session's UAS sends: EARLY on a tagged 1xx to the dialog-creating request, CONFIRMED on its
     * 2xx, TERMINATED on a final failure of it or on the 2xx of a BYE (§6.2.1).
     */
    public void onResponseSent(final SipServletResponseImpl response)
    {
        final int status = response.getStatus();
        final SipServletRequestImpl request = response.requestImpl();
        if (status >= 200)
        {
            end(request);
        }
        final String method = request.getMethod();
        if (request == original && isDialogCreating(method))
        {
            if (status > 100 && status < 200 && State.INITIAL == state)
            {
                state = State.EARLY;
            }
            else if (status >= 200 && status < 300)
            {
                state = State.CONFIRMED;
            }
            else if (status >= 300 && State.CONFIRMED != state)
            {
                state = State.TERMINATED;
            }
        }
        else if ("BYE".equals(method) && status >= 200 && status < 300)
        {
            state = State.TERMINATED;
        }
    }

    /**
     * A response to a request of this UAC session arrived (§12.1.2): the first tagged 1xx or 2xx to the dialog-
     * creating request sets the remote tag, target and route set (Record-Route reversed).
     */
    public void onResponseReceived(final SipServletResponseImpl response)
    {
        final int status = response.getStatus();
        final SipServletRequestImpl request = response.requestImpl();
        lastAccessed = app.host().currentTimeMillis();
        if (status >= 200)
        {
            end(request);
        }
        final String method = request.getMethod();
        if (request == original && isDialogCreating(method) && status > 100)
        {
            final String tag = response.toTag();
            if (status < 300 && null != tag && (null == remoteTag || State.CONFIRMED != state))
            {
                adoptDialog(response);
            }
            if (null != parent() && status >= 200 && status < 300 && "INVITE".equals(method))
            {
                fork.ok = response;
            }
            if (status < 200 && null != tag && State.INITIAL == state)
            {
                state = State.EARLY;
            }
            else if (status >= 200 && status < 300)
            {
                state = State.CONFIRMED;
            }
            else if (status >= 300 && State.CONFIRMED != state)
            {
                state = State.INITIAL; // the UAC may try again in the same session (§6.2.1)
            }
        }
        else if ("BYE".equals(method) && status >= 200)
        {
            state = State.TERMINATED;
        }
        else if (status >= 200 && status < 300 && isTargetRefresh(method))
        {
            final String contact = response.headers().get(HeaderName.CONTACT);
            if (null != contact)
            {
                remoteTarget = HeaderText.uri(contact);
            }
        }
    }

    /** The dialog of a received tagged 1xx or 2xx (§12.1.2): remote tag, target, route set (Record-Route reversed). */
    private void adoptDialog(final SipServletResponseImpl response)
    {
        remoteTag = response.toTag();
        final MessageHeaders h = response.headers();
        final String contact = h.get(HeaderName.CONTACT);
        if (null != contact)
        {
            remoteTarget = HeaderText.uri(contact);
        }
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
        if (!ongoing.isEmpty())
        {
            return false;
        }
        if (null != proxy && null == proxyRouteKey && hadTransaction)
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

    private static boolean isDialogCreating(final String method)
    {
        return "INVITE".equals(method) || "SUBSCRIBE".equals(method) || "REFER".equals(method);
    }

    private static boolean isTargetRefresh(final String method)
    {
        return "INVITE".equals(method) || "UPDATE".equals(method) || "SUBSCRIBE".equals(method)
            || "NOTIFY".equals(method) || "REFER".equals(method);
    }

    // ================================================================================================================
    // Requests in the session
    // ================================================================================================================

    /**
     * A subsequent request in this session's dialog (RFC 3261 §12.2.1.1): Request-URI the remote target, Route the
     * route set, From/To with both tags, the Call-ID, the next local CSeq; the container's Contact in target
     * refreshes. In a session without a dialog (INITIAL, UAC), a new request with the same Call-ID, From and To.
     */
    @Override
    public SipServletRequest createRequest(final String method)
    {
        checkValid();
        if (null == method || "ACK".equalsIgnoreCase(method) || "CANCEL".equalsIgnoreCase(method))
        {
            throw new IllegalArgumentException("use createAck/createCancel for " + method);
        }
        if (State.TERMINATED == state)
        {
            throw new IllegalStateException("the session is terminated");
        }
        if (!uac && null == remoteTag && State.INITIAL == state)
        {
            throw new IllegalStateException("no dialog yet on the UAS side");
        }
        localCseqBase();
        final SipServletRequestImpl r = inDialog(method, nextCseq());
        if ("PRACK".equals(method) && null != reliableProvisionals && null != reliableProvisionals.unacknowledged())
        {
            // RFC 3262 §7.2: a PRACK made with createRequest (a B2BUA relaying one) acknowledges the last reliable
            // provisional response this UAC accepted (RAck is a system header: the container writes it)
            final SipServletResponseImpl acked = reliableProvisionals.unacknowledged();
            r.headers().set("RAck", ReliableProvisionals.rackOf(acked));
            reliableProvisionals.prackCreated(acked);
        }
        return r;
    }

    private void localCseqBase()
    {
        if (0 == localCseq && null != original && uac)
        {
            localCseq = original.cseqNumber();
        }
    }

    /** Bumps the local CSeq (used by {@link #createRequest}); returns the new value. */
    private long nextCseq()
    {
        return ++localCseq;
    }

    private SipServletRequestImpl inDialog(final String method, final long cseq)
    {
        localCseq = Math.max(localCseq, cseq);
        final MessageHeaders h = MessageHeaders.empty(8 + routeSet.size());
        for (final String route : routeSet)
        {
            h.insert(h.size(), "Route", route);
        }
        h.insert(h.size(), "Max-Forwards", "70");
        h.insert(h.size(), "From", HeaderText.withTag(localParty(), localTag));
        h.insert(h.size(), "To", null == remoteTag ? remoteParty() : HeaderText.withTag(remoteParty(), remoteTag));
        h.insert(h.size(), "Call-ID", callId);
        h.insert(h.size(), "CSeq", cseq + " " + method);
        if (isTargetRefresh(method))
        {
            h.insert(h.size(), "Contact", contactValue());
        }
        final SipServletRequestImpl r = SipServletRequestImpl.outgoing(method, remoteTarget, h);
        r.session(this);
        if (null == remoteTag && State.INITIAL == state)
        {
            r.initial(true);
            original = r;
        }
        return r;
    }

    /** The ACK for a 2xx to INVITE (RFC 3261 §13.2.2.4): CSeq number of the INVITE, method ACK. */
    public SipServletRequestImpl createAck(final SipServletResponseImpl response)
    {
        final SipServletRequestImpl ack = inDialog("ACK", response.cseqNumber());
        if (null != parent() && response == fork.ok)
        {
            fork.ack = ack; // the INVITE's own ACK stays the main dialog's
        }
        else
        {
            response.requestImpl().ack(ack);
        }
        return ack;
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
        return callId;
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
        return party(localParty(), localTag);
    }

    @Override
    public Address getRemoteParty()
    {
        return party(remoteParty(), remoteTag);
    }

    private static Address party(final String value, final String tag)
    {
        if (null == value)
        {
            return null;
        }
        try
        {
            return SipAddresses.parseAddress(null == tag ? value : HeaderText.withTag(value, tag));
        }
        catch (final ServletParseException e)
        {
            throw new IllegalStateException("party does not parse: " + value, e);
        }
    }

    @Override
    public SipApplicationRoutingRegion getRegion()
    {
        checkValid();
        return region;
    }

    @Override
    public URI getSubscriberURI()
    {
        checkValid();
        return subscriber;
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

    /** Ends the session: listeners told, attributes unbound, removed from the tables. */
    void invalidateNow()
    {
        if (!valid)
        {
            return;
        }
        for (final SipSessionListener l : app.application().listeners(SipSessionListener.class))
        {
            l.sessionDestroyed(new SipSessionEvent(this));
        }
        if (null != attributes)
        {
            for (final String name : attributes.keySet().toArray(new String[0]))
            {
                removeAttribute(name);
            }
        }
        valid = false;
        // the sessions of a forked INVITE's other dialogs keep using its transaction; a derived UAS session's request
        // is its head's
        final boolean keepsOriginal = null != fork && (null != fork.parent || null != fork.derived
            || fork.sharesOriginal);
        if (null != fork && (null != fork.parent || null != fork.derived))
        {
            onShard(this::leaveForkedDialogs);
        }
        else if (registered)
        {
            unregister(localTag);
        }
        registered = false;
        if (null != proxyRouteKey)
        {
            unregister(proxyRouteKey);
            proxyRouteKey = null;
        }
        if (null != linked && linked.linked == this)
        {
            linked.linked = null;
        }
        linked = null;
        if (!keepsOriginal)
        {
            releaseOriginal();
        }
        app.remove(this);
    }

    /**
     * An invalidated session of a forked request leaves its siblings (on the shard): a derived one is dropped from
     * its head's list; a head with live derived sessions hands the shard table's entry, and the list, to the first
     * of them, so that the other dialogs' requests still find their sessions.
     */
    private void leaveForkedDialogs()
    {
        final SipSessionImpl head = fork.parent;
        if (null != head)
        {
            if (null != head.fork.derived && head.fork.derived.remove(this) && head.fork.derived.isEmpty())
            {
                head.fork.derived = null; // the head alone again: it lets go of the INVITE as any session
            }
            fork.parent = null;
            return;
        }
        final List<SipSessionImpl> rest = fork.derived;
        fork.derived = null;
        if (rest.isEmpty())
        {
            app.host().sessions().removeDialog(callId, localTag, this); // no-op unless the entry is still ours
            return;
        }
        final SipSessionImpl heir = rest.remove(0);
        heir.fork.parent = null;
        heir.fork.derived = rest.isEmpty() ? null : rest;
        for (final SipSessionImpl d : rest)
        {
            d.fork.parent = heir;
        }
        app.host().sessions().putDialog(callId, localTag, heir);
    }

    private void onShard(final Runnable task)
    {
        if (app.host().onShardThread())
        {
            task.run();
        }
        else
        {
            app.host().execute(task);
        }
    }

    /**
     * The session is over: its initial INVITE's transaction, still waiting out Timer L or M (64*T1 after the 2xx,
     * RFC 6026), lets go of the request, so that the call's messages and sessions do not stay reachable for 32 s after
     * the BYE. A late CANCEL still gets its 200 (RFC 3261 §9.2); a 2xx retransmitted after the dialog's BYE completed
     * finds no ACK to resend (the UAS gives up at 64*T1, §13.3.1.4). Requests of other methods let go of their
     * transaction at their final response already.
     */
    private void releaseOriginal()
    {
        final SipServletRequestImpl request = original;
        if (null == request || null == request.finalResponse() || !"INVITE".equals(request.getMethod()))
        {
            return;
        }
        if (app.host().onShardThread())
        {
            app.host().release(request);
        }
        else
        {
            app.host().execute(() -> app.host().release(request));
        }
    }

    /** Removes this session's entry under (Call-ID, {@code key}) from its shard's table, on the shard. */
    private void unregister(final String key)
    {
        if (app.host().onShardThread())
        {
            app.host().sessions().removeDialog(callId, key, this);
        }
        else
        {
            app.host().execute(() -> app.host().sessions().removeDialog(callId, key, this));
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
        return null == attributes ? Collections.emptyEnumeration()
            : Collections.enumeration(new ArrayList<>(attributes.keySet()));
    }

    @Override
    public void setAttribute(final String name, final Object attribute)
    {
        checkValid();
        if (null == name || null == attribute)
        {
            throw new NullPointerException(null == name ? "name" : "attribute");
        }
        if (null == attributes)
        {
            attributes = new HashMap<>(4);
        }
        final Object old = attributes.put(name, attribute);
        if (old == attribute)
        {
            return;
        }
        if (attribute instanceof SipSessionBindingListener b)
        {
            b.valueBound(new SipSessionBindingEvent(this, name));
        }
        if (old instanceof SipSessionBindingListener b)
        {
            b.valueUnbound(new SipSessionBindingEvent(this, name));
        }
        for (final SipSessionAttributeListener l : app.application().listeners(SipSessionAttributeListener.class))
        {
            if (null == old)
            {
                l.attributeAdded(new SipSessionBindingEvent(this, name));
            }
            else
            {
                l.attributeReplaced(new SipSessionBindingEvent(this, name));
            }
        }
    }

    @Override
    public void removeAttribute(final String name)
    {
        checkValid();
        final Object old = null == attributes ? null : attributes.remove(name);
        if (null == old)
        {
            return;
        }
        if (attributes.isEmpty())
        {
            attributes = null; // an established call keeps no empty map (an attribute held only until the ACK)
        }
        if (old instanceof SipSessionBindingListener b)
        {
            b.valueUnbound(new SipSessionBindingEvent(this, name));
        }
        for (final SipSessionAttributeListener l : app.application().listeners(SipSessionAttributeListener.class))
        {
            l.attributeRemoved(new SipSessionBindingEvent(this, name));
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

    private void fireCreated()
    {
        for (final SipSessionListener l : app.application().listeners(SipSessionListener.class))
        {
            l.sessionCreated(new SipSessionEvent(this));
        }
    }

    void fireReadyToInvalidate()
    {
        for (final SipSessionListener l : app.application().listeners(SipSessionListener.class))
        {
            l.sessionReadyToInvalidate(new SipSessionEvent(this));
        }
    }

    @Override
    public String toString()
    {
        return "SipSession[" + getId() + " " + state + " " + callId + "]";
    }
}
