package io.sipline.container.factory;

import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import javax.servlet.sip.Address;
import javax.servlet.sip.AuthInfo;
import javax.servlet.sip.Parameterable;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipURI;
import javax.servlet.sip.TooManyHopsException;
import javax.servlet.sip.URI;

import io.sipline.container.address.SipAddresses;
import io.sipline.container.api.CSeqText;
import io.sipline.container.api.HeaderText;
import io.sipline.container.api.MessageHeaders;
import io.sipline.container.api.SipServletRequestImpl;
import io.sipline.container.api.TaggedParty;
import io.sipline.container.security.AuthInfoImpl;
import io.sipline.container.api.ApplicationSessionHandle;
import io.sipline.container.api.ContainerShard;
import io.sipline.container.api.RunningApplication;
import io.sipline.container.api.SipApplicationSessionImpl;
import io.sipline.container.api.SipSessionImpl;
import io.sipline.sip.message.HeaderName;

/**
 * The {@link SipFactory} of one application (JSR 289 §4.1.1, a {@code ServletContext} attribute): addresses and URIs
 * through the address package, application sessions on a shard (the caller's shard when called from one, else one
 * picked round robin or by key, which makes it and hands it out as an {@code ApplicationSessionHandle}), and new
 * requests in new UAC SIP sessions, including the copy of a received request that
 * {@code createRequest(orig, sameCallId)} and the B2BUA helper make.
 * <p>
 * Threading: any thread; what touches a shard's state is handed to it.
 */
public final class SipFactoryImpl implements SipFactory
{
    private final RunningApplication application;
    private final ShardPicker shards;

    /** Finds shards for new application sessions. */
    public interface ShardPicker
    {
        /** The shard the calling thread runs, or null off the shards. */
        ContainerShard current();

        /** A shard for a new application session created off the shards (round robin). */
        ContainerShard next();

        /** The shard that owns application sessions of this key (a stable hash of it). */
        ContainerShard forKey(String key);

        /** Looks an application session up by application name and key on every shard. */
        SipApplicationSessionImpl byKey(String applicationName, String key);
    }

    public SipFactoryImpl(final RunningApplication application, final ShardPicker shards)
    {
        this.application = application;
        this.shards = shards;
    }

    // ================================================================================================================
    // Addresses and URIs
    // ================================================================================================================

    @Override
    public URI createURI(final String uri) throws ServletParseException
    {
        return SipAddresses.parseUri(uri);
    }

    @Override
    public SipURI createSipURI(final String user, final String host)
    {
        return SipAddresses.sipUri(user, host);
    }

    @Override
    public Address createAddress(final String sipAddress) throws ServletParseException
    {
        return SipAddresses.parseAddress(sipAddress);
    }

    @Override
    public Address createAddress(final URI uri)
    {
        return SipAddresses.address(uri, null);
    }

    @Override
    public Address createAddress(final URI uri, final String displayName)
    {
        return SipAddresses.address(uri, displayName);
    }

    @Override
    public Parameterable createParameterable(final String s) throws ServletParseException
    {
        return SipAddresses.parseParameterable(s);
    }

    /** Digest authentication (JSR 289 §20) is not part of this version; refused with the reason. */
    @Override
    public AuthInfo createAuthInfo()
    {
        return new AuthInfoImpl();
    }

    // ================================================================================================================
    // Application sessions
    // ================================================================================================================

    /**
     * A new application session: on the calling shard; off the shards (an HTTP thread, an application's own thread)
     * made by a shard picked round robin, on that shard, and given as an {@link ApplicationSessionHandle} whose calls
     * run there.
     */
    @Override
    public SipApplicationSession createApplicationSession()
    {
        final ContainerShard current = shards.current();
        if (null != current)
        {
            return new SipApplicationSessionImpl(application, current, null);
        }
        final ContainerShard shard = shards.next();
        return new ApplicationSessionHandle(shard.callAndWait(() -> new SipApplicationSessionImpl(application, shard,
            null)));
    }

    /**
     * The application session of {@code key} (JSR 289 §15.11.2), made on the shard that owns the key when there is
     * none; off the shards given as an {@link ApplicationSessionHandle}.
     */
    @Override
    public SipApplicationSession createApplicationSessionByKey(final String key)
    {
        if (null == key)
        {
            throw new NullPointerException("key");
        }
        final ContainerShard owner = shards.forKey(key);
        if (null != shards.current())
        {
            return byKey(owner, key);
        }
        return new ApplicationSessionHandle(owner.callAndWait(() -> byKey(owner, key)));
    }

    private SipApplicationSessionImpl byKey(final ContainerShard owner, final String key)
    {
        final SipApplicationSessionImpl existing = shards.byKey(application.name(), key);
        if (null != existing && existing.isValid())
        {
            return existing;
        }
        return new SipApplicationSessionImpl(application, owner, key);
    }

    // ================================================================================================================
    // Requests
    // ================================================================================================================

    @Override
    public SipServletRequest createRequest(final SipApplicationSession appSession, final String method,
        final Address from, final Address to)
    {
        if (null == from || null == to)
        {
            throw new NullPointerException(null == from ? "from" : "to");
        }
        return newRequest(appSession, method, from.toString(), to.toString(), to.getURI().toString());
    }

    @Override
    public SipServletRequest createRequest(final SipApplicationSession appSession, final String method,
        final URI from, final URI to)
    {
        return createRequest(appSession, method, createAddress(from), createAddress(to));
    }

    @Override
    public SipServletRequest createRequest(final SipApplicationSession appSession, final String method,
        final String from, final String to) throws ServletParseException
    {
        return createRequest(appSession, method, createAddress(from), createAddress(to));
    }

    /**
     * A new request like {@code origRequest} in a new SIP session of its application session (JSR 289 §4.1.1); see
     * {@link #copyRequest}.
     */
    @Deprecated
    @Override
    public SipServletRequest createRequest(final SipServletRequest origRequest, final boolean sameCallId)
    {
        final SipServletRequestImpl orig = check(origRequest);
        try
        {
            return copyRequest(orig, sameCallId, null, false);
        }
        catch (final TooManyHopsException e)
        {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /**
     * A request (JSR 289 §4.1.1 rules): From with a new tag, To without one, a new Call-ID from the session's shard,
     * CSeq 1, Max-Forwards 70, the container's Contact for dialog-creating methods, Request-URI the To URI.
     */
    private SipServletRequest newRequest(final SipApplicationSession appSession, final String method,
        final String from, final String to, final String requestUri)
    {
        if (appSession instanceof ApplicationSessionHandle h) // an HTTP thread: the session's shard makes it
        {
            return h.call(() -> newRequest(h.session(), method, from, to, requestUri));
        }
        if (!(appSession instanceof SipApplicationSessionImpl app) || !app.isValid())
        {
            throw new IllegalArgumentException("not a valid application session of this container");
        }
        if (null == method || "ACK".equalsIgnoreCase(method) || "CANCEL".equalsIgnoreCase(method))
        {
            throw new IllegalArgumentException("cannot create " + method + " with SipFactory");
        }
        final String fromBare = HeaderText.withTag(from, null);
        final String toBare = HeaderText.withTag(to, null);
        final SipSessionImpl session = SipSessionImpl.forOutgoing(app, null, fromBare, toBare, requestUri,
            application.defaultServlet());
        final MessageHeaders h = MessageHeaders.empty(8);
        h.insert(h.size(), "Max-Forwards", "70");
        h.insert(h.size(), "From", session.requestFrom());
        h.insert(h.size(), "To", toBare);
        session.insertCallId(h);
        h.insert(h.size(), "CSeq", "1 " + method);
        if (isDialogCreating(method))
        {
            h.insert(h.size(), "Contact", session.contactValue());
        }
        final SipServletRequestImpl request = SipServletRequestImpl.outgoing(method, stripUriHeaders(requestUri), h);
        request.session(session);
        request.initial(true);
        session.original(request);
        return request;
    }

    /**
     * Copies a received request into a new UAC SIP session of the same application session (JSR 289 §4.1.1 and
     * B2buaHelper.createRequest, §12.2): every header but Via, Route, Record-Route, Path and Contact is kept (sharing
     * the original's bytes), From gets a new tag, To loses its tag, the Call-ID is new (a Call-ID of the same shard,
     * so that the new leg's messages are processed where the first leg's are) unless {@code sameCallId}, CSeq keeps
     * its number, Max-Forwards is decremented, the body is shared, and the container's Contact is added.
     *
     * @param headerMap From, To, Route and non-system headers to use instead of the original's (B2BUA), or null.
     * @param b2bua     true for the B2BUA helper: Max-Forwards 0 refuses with {@link TooManyHopsException}.
     */
    public SipServletRequestImpl copyRequest(final SipServletRequestImpl orig, final boolean sameCallId,
        final Map<String, List<String>> headerMap, final boolean b2bua) throws TooManyHopsException
    {
        final int maxForwards = orig.getMaxForwards();
        if (b2bua && 0 == maxForwards)
        {
            throw new TooManyHopsException();
        }
        final SipApplicationSessionImpl app = orig.sessionImpl().appSession();
        orig.applyHeaderObjects(); // the headers copied below carry the application's edits of their objects
        final MessageHeaders oh = orig.headers();
        // a map of one entry (a B2BUA's usual map) is read once for both uses below, with forEach: a pass over a
        // map's entries is an iterator and its entries on the heap (a Map.of map's entry set is a new set besides)
        final SingleEntry single = null != headerMap && 1 == headerMap.size() ? SingleEntry.of(headerMap) : null;
        final String singleName = null == single ? null : single.name;
        final List<String> singleValues = null == single ? null : single.values;
        String mappedFrom = null;
        String mappedTo = null;
        if (null != single)
        {
            mappedFrom = mappedParty(singleName, singleValues, "From");
            mappedTo = mappedParty(singleName, singleValues, "To");
        }
        else if (null != headerMap && !headerMap.isEmpty())
        {
            // one pass for both
            for (final Map.Entry<String, List<String>> e : headerMap.entrySet())
            {
                if (null == mappedFrom)
                {
                    mappedFrom = mappedParty(e.getKey(), e.getValue(), "From");
                }
                if (null == mappedTo)
                {
                    mappedTo = mappedParty(e.getKey(), e.getValue(), "To");
                }
            }
        }
        // the original's parties stay views of its bytes (no String) unless the map gives others
        final CharSequence fromBare = null != mappedFrom ? HeaderText.withTag(mappedFrom, null)
            : HeaderText.partyWithoutTag(oh, HeaderName.FROM);
        final CharSequence toBare = null != mappedTo ? HeaderText.withTag(mappedTo, null)
            : HeaderText.partyWithoutTag(oh, HeaderName.TO);
        final String method = orig.getMethod();
        final SipSessionImpl session = SipSessionImpl.forCopy(app, sameCallId ? orig.getCallId() : null,
            fromBare, toBare, orig, orig.sessionImpl().handler());
        // texts: the six headers inserted below and one per header the map sets; the rest are spans of oh's bytes
        final MessageHeaders h = MessageHeaders.over(oh, oh.size() + 2,
            6 + (null == headerMap ? 0 : headerMap.size()));
        h.insert(h.size(), "Max-Forwards", HeaderText.decimal(maxForwards < 0 ? 70 : Math.max(0, maxForwards - 1)));
        h.insert(h.size(), "From", session.requestFrom());
        if (toBare instanceof String text)
        {
            h.insert(h.size(), "To", text);
        }
        else
        {
            h.insert(h.size(), "To", TaggedParty.ofParty(toBare, null)); // written from the original's bytes
        }
        session.insertCallId(h);
        h.insert(h.size(), "CSeq", CSeqText.of(orig.cseqNumber(), method));
        if (isDialogCreating(method))
        {
            h.insert(h.size(), "Contact", session.contactValue());
        }
        for (int i = 0; i < oh.size(); i++)
        {
            if (!isRewritten(oh.known(i)))
            {
                h.appendEntry(oh, i);
            }
        }
        if (null != single)
        {
            applyHeader(h, singleName, singleValues);
        }
        else if (null != headerMap && !headerMap.isEmpty())
        {
            for (final Map.Entry<String, List<String>> e : headerMap.entrySet())
            {
                applyHeader(h, e.getKey(), e.getValue());
            }
        }
        final SipServletRequestImpl request = SipServletRequestImpl.outgoingWithUriOf(method, orig, h);
        request.session(session);
        request.initial(true);
        request.shareBody(orig);
        request.continueFrom(orig);
        session.original(request);
        return request;
    }

    /**
     * The name and values of a one-entry header map, read by {@link Map#forEach}, which a {@code Map.of} map answers
     * with its fields (no entry, set or iterator); made and read in one method, so the JIT may keep it off the heap.
     */
    private static final class SingleEntry implements BiConsumer<String, List<String>>
    {
        private String name;
        private List<String> values;

        static SingleEntry of(final Map<String, List<String>> map)
        {
            final SingleEntry e = new SingleEntry();
            map.forEach(e);
            return e;
        }

        @Override
        public void accept(final String key, final List<String> value)
        {
            name = key;
            values = value;
        }
    }

    /** The first value of a header map's entry when it names {@code party} (From or To), else null. */
    private static String mappedParty(final String name, final List<String> values, final String party)
    {
        return null == values || values.isEmpty() || !party.equalsIgnoreCase(name) ? null : values.getFirst();
    }

    /** One entry of a B2BUA header map (JSR 289 §12.2.1): From/To are read above; Route and others replace. */
    private static void applyHeader(final MessageHeaders h, final String name, final List<String> values)
    {
        final HeaderName k = HeaderName.lookup(name);
        if (HeaderName.FROM == k || HeaderName.TO == k)
        {
            return;
        }
        if (isSystem(k) && HeaderName.ROUTE != k)
        {
            throw new IllegalArgumentException(name + " is a system header and cannot be set in the header map");
        }
        h.remove(name);
        if (null != values)
        {
            for (int i = 0; i < values.size(); i++) // by index: no iterator per header
            {
                final String v = values.get(i);
                if (HeaderName.ROUTE == k)
                {
                    h.insert(0, name, v);
                }
                else
                {
                    h.add(name, v);
                }
            }
        }
    }

    private static boolean isRewritten(final HeaderName k)
    {
        return switch (k)
        {
            case VIA, ROUTE, RECORD_ROUTE, PATH, CONTACT, FROM, TO, CALL_ID, CSEQ, MAX_FORWARDS, CONTENT_LENGTH -> true;
            default -> false;
        };
    }

    private static boolean isSystem(final HeaderName k)
    {
        return switch (k)
        {
            case VIA, ROUTE, RECORD_ROUTE, PATH, CONTACT, CALL_ID, CSEQ, CONTENT_LENGTH -> true;
            default -> false;
        };
    }

    private static boolean isDialogCreating(final String method)
    {
        return "INVITE".equals(method) || "SUBSCRIBE".equals(method) || "REFER".equals(method);
    }

    /** A Request-URI carries no URI headers or method parameter (RFC 3261 §19.1.5). */
    private static String stripUriHeaders(final String uri)
    {
        final int q = uri.indexOf('?');
        return q < 0 ? uri : uri.substring(0, q);
    }

    static SipServletRequestImpl check(final SipServletRequest request)
    {
        if (!(request instanceof SipServletRequestImpl impl) || null == impl.sessionImpl())
        {
            throw new IllegalArgumentException("not a request of this container");
        }
        return impl;
    }
}
