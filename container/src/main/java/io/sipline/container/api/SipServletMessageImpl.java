package io.sipline.container.api;

import java.io.IOException;
import java.io.UnsupportedEncodingException;
import java.net.InetSocketAddress;
import java.nio.charset.Charset;
import java.security.Principal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.ListIterator;
import java.util.Locale;

import javax.servlet.sip.Address;
import javax.servlet.sip.Parameterable;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipServletMessage;
import javax.servlet.sip.SipSession;

import io.sipline.container.security.SipPrincipal;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.SipMessage;

/**
 * What requests and responses share (JSR 289 §5): the header section ({@link MessageHeaders}: the received bytes
 * plus an edit overlay), the body, attributes, the session, the transport addresses, and the rules that protect
 * system headers (§5.4.2) and committed messages (§5.2).
 * <p>
 * A received message keeps a compact copy of its head and one of its body ({@link ReceivedCopy}); header Strings
 * and {@code Address} objects are made on first access and cached. A message made by the container or the
 * application writes straight into a pooled buffer when sent.
 * <p>
 * Threading: a message belongs to its application session's shard; the container uses it only there, and an
 * application that hands it to another thread must not use it concurrently (JSR 289 §5: messages are not
 * thread-safe).
 */
public abstract class SipServletMessageImpl implements SipServletMessage
{
    protected MessageHeaders headers;
    /**
     * The body, null when there is none: an array of exactly its bytes (the received body's copy, or the array the
     * application set), shared by the messages made from this one; its length is the Content-Length.
     */
    protected byte[] body;
    protected SipSessionImpl session;
    protected boolean incoming;
    protected boolean committed;
    protected InetSocketAddress remote;
    protected InetSocketAddress local;
    /**
     * What few messages use, or null until one of its fields is set: the From and To {@code Address} objects alone
     * (what an application reads of most requests), or {@link MessageExtras}, which holds them too.
     */
    private MessageParties extras;

    /** The extras, made now if the message had none (taking over its {@link MessageParties}, if any). */
    final MessageExtras extras()
    {
        if (extras instanceof MessageExtras x)
        {
            return x;
        }
        final MessageExtras x = new MessageExtras();
        if (null != extras)
        {
            x.fromAddress = extras.fromAddress;
            x.toAddress = extras.toAddress;
        }
        extras = x;
        return x;
    }

    /** The extras, or null when none was ever needed. */
    final MessageExtras extrasIfAny()
    {
        return extras instanceof MessageExtras x ? x : null;
    }

    /** The holder of the From and To objects, made now if the message had none: parties only, not extras. */
    private MessageParties parties()
    {
        if (null == extras)
        {
            extras = new MessageParties();
        }
        return extras;
    }

    /**
     * A received message: headers over {@code bytes}, a copy of its head ({@link ReceivedCopy#head}), and its body
     * copied into an array of its own ({@link ReceivedCopy#body}).
     */
    protected SipServletMessageImpl(final SipMessage message, final byte[] bytes, final InetSocketAddress remote,
        final InetSocketAddress local)
    {
        this.headers = MessageHeaders.of(message, bytes);
        this.body = ReceivedCopy.body(message);
        this.incoming = true;
        this.remote = remote;
        this.local = local;
    }

    /** A message the container builds. */
    protected SipServletMessageImpl(final MessageHeaders headers)
    {
        this.headers = headers;
    }

    // ================================================================================================================
    // Container view
    // ================================================================================================================

    public MessageHeaders headers()
    {
        return headers;
    }

    public SipSessionImpl sessionImpl()
    {
        return session;
    }

    public void session(final SipSessionImpl value)
    {
        session = value;
    }

    public boolean isIncoming()
    {
        return incoming;
    }

    public void markCommitted()
    {
        committed = true;
    }

    /** The body as bytes for writing, all of the array; null when there is none. */
    public byte[] bodyBytes()
    {
        return body;
    }

    public int bodyLength()
    {
        return null == body ? 0 : body.length;
    }

    /**
     * Uses another message's body and Content-Type (a B2BUA leg made from a received request): the bytes are shared,
     * never written; {@link #setContent} replaces the reference.
     */
    public void shareBody(final SipServletMessageImpl from)
    {
        body = from.body;
    }

    /** Sets the transport addresses (the container, when the message is sent or received). */
    public void addresses(final InetSocketAddress remoteAddress, final InetSocketAddress localAddress)
    {
        remote = remoteAddress;
        local = localAddress;
    }

    /** The address the message came from or went to; null before it was sent. */
    public InetSocketAddress remoteAddress()
    {
        return remote;
    }

    /**
     * Hands this message to its session's shard for sending: at once on the shard, else as a task (the application
     * may send from its own thread).
     */
    protected final void sendOnShard()
    {
        committed = true;
        final ContainerShard host = session.host();
        if (host.onShardThread())
        {
            sendWith(host);
        }
        else
        {
            host.execute(() -> sendWith(host));
        }
    }

    /** {@code host.send(this)} with this message's type. */
    protected abstract void sendWith(ContainerShard host);

    /** Whether a header may be set, added or removed by the application on this message (JSR 289 §5.4.2). */
    protected abstract boolean isSystemHeader(HeaderName known, String name);

    protected final void checkWritable()
    {
        if (committed)
        {
            throw new IllegalStateException("the message is committed (JSR 289 §5.2): it can no longer be modified");
        }
    }

    private void checkHeaderWritable(final String name)
    {
        if (null == name || name.isEmpty())
        {
            throw new NullPointerException("header name");
        }
        checkWritable();
        final HeaderName k = HeaderName.lookup(name);
        if (isSystemHeader(k, name))
        {
            throw new IllegalArgumentException(name + " is a system header (JSR 289 §5.4.2): the container manages it");
        }
        final MessageExtras x = extrasIfAny();
        if (null != x && null != x.bound)
        {
            x.bound.unbind(k, name); // set explicitly: objects handed out for its old values no longer write it
        }
    }

    /** The object bound to the {@code ordinal}-th value ({@code text}) of a header, else {@code value} bound. */
    private Parameterable bind(final String name, final int ordinal, final String text, final Parameterable value,
        final boolean address)
    {
        final MessageExtras x = extras();
        if (null == x.bound)
        {
            x.bound = new HeaderBindings();
        }
        return x.bound.bind(name, ordinal, text, value, address);
    }

    // ================================================================================================================
    // Headers
    // ================================================================================================================

    @Override
    public String getHeader(final String name)
    {
        if (null == name)
        {
            throw new NullPointerException("name");
        }
        return headers.get(name);
    }

    @Override
    public ListIterator<String> getHeaders(final String name)
    {
        if (null == name)
        {
            throw new NullPointerException("name");
        }
        return Collections.unmodifiableList(headers.getAll(name)).listIterator();
    }

    @Override
    public Iterator<String> getHeaderNames()
    {
        return Collections.unmodifiableSet(headers.names()).iterator();
    }

    @Override
    public void setHeader(final String name, final String value)
    {
        checkHeaderWritable(name);
        if (null == value)
        {
            headers.remove(name);
            return;
        }
        headers.set(name, value);
    }

    @Override
    public void addHeader(final String name, final String value)
    {
        checkHeaderWritable(name);
        if (null == value)
        {
            throw new NullPointerException("value");
        }
        headers.add(name, value);
    }

    @Override
    public void removeHeader(final String name)
    {
        checkHeaderWritable(name);
        headers.remove(name);
    }

    /**
     * The first value as an {@code Address}: read-only for a system header or a committed message; on a message to
     * be sent, bound to the header (its edits are written when the message is sent, until the header is set again).
     */
    @Override
    public Address getAddressHeader(final String name) throws ServletParseException
    {
        final String value = getHeader(name);
        if (null == value)
        {
            return null;
        }
        return address(name, 0, value);
    }

    @Override
    public ListIterator<Address> getAddressHeaders(final String name) throws ServletParseException
    {
        final List<String> values = headers.getAll(name);
        final List<Address> out = new ArrayList<>(values.size());
        for (int i = 0; i < values.size(); i++)
        {
            out.add(address(name, i, values.get(i)));
        }
        return Collections.unmodifiableList(out).listIterator();
    }

    private Address address(final String name, final int ordinal, final String value) throws ServletParseException
    {
        final HeaderName k = HeaderName.lookup(name);
        if (HeaderName.FROM == k)
        {
            return getFrom();
        }
        if (HeaderName.TO == k)
        {
            return getTo();
        }
        if (HeaderName.CONTACT == k && !committed && !incoming && isSystemHeader(k, name))
        {
            // JSR 289 §4.1.3: the container's Contact; its user part and parameters are the application's to set
            return (Address)bind(name, ordinal, value, AddressCodec.containerContactAddress(value, name), true);
        }
        if (isSystemHeader(k, name) || committed)
        {
            return AddressCodec.readOnlyAddress(value, name);
        }
        // a received message's too: the copy a proxy or a B2BUA makes of it takes the edits (applyHeaderObjects)
        return (Address)bind(name, ordinal, value, AddressCodec.address(value), true);
    }

    @Override
    public void setAddressHeader(final String name, final Address addr)
    {
        setHeader(name, addr.toString());
    }

    @Override
    public void addAddressHeader(final String name, final Address addr, final boolean first)
    {
        checkHeaderWritable(name);
        if (first)
        {
            headers.addFirst(name, addr.toString());
        }
        else
        {
            headers.add(name, addr.toString());
        }
    }

    /** The first value as a {@code Parameterable}, bound to the header as {@link #getAddressHeader} is. */
    @Override
    public Parameterable getParameterableHeader(final String name) throws ServletParseException
    {
        final String value = getHeader(name);
        return null == value ? null : parameterable(name, 0, value);
    }

    @Override
    public ListIterator<? extends Parameterable> getParameterableHeaders(final String name)
        throws ServletParseException
    {
        final List<String> values = headers.getAll(name);
        final List<Parameterable> out = new ArrayList<>(values.size());
        for (int i = 0; i < values.size(); i++)
        {
            out.add(parameterable(name, i, values.get(i)));
        }
        return Collections.unmodifiableList(out).listIterator();
    }

    private Parameterable parameterable(final String name, final int ordinal, final String value)
        throws ServletParseException
    {
        final Parameterable p = AddressCodec.parameterable(value);
        final HeaderName k = HeaderName.lookup(name);
        return isSystemHeader(k, name) || committed || HeaderName.FROM == k || HeaderName.TO == k ? p
            : bind(name, ordinal, value, p, false);
    }

    @Override
    public void setParameterableHeader(final String name, final Parameterable param)
    {
        setHeader(name, param.toString());
    }

    @Override
    public void addParameterableHeader(final String name, final Parameterable param, final boolean first)
    {
        addAddressHeaderText(name, param.toString(), first);
    }

    private void addAddressHeaderText(final String name, final String value, final boolean first)
    {
        checkHeaderWritable(name);
        if (first)
        {
            headers.addFirst(name, value);
        }
        else
        {
            headers.add(name, value);
        }
    }

    /**
     * From (JSR 289 §5.4.2.1): the tag is the container's; the display name, URI and other parameters may be
     * changed by the application on a request it has not yet sent, and the change is written back to the header.
     */
    @Override
    public Address getFrom()
    {
        final MessageParties x = parties();
        if (null == x.fromAddress)
        {
            x.fromAddress = partyAddress(HeaderName.FROM);
        }
        return x.fromAddress;
    }

    @Override
    public Address getTo()
    {
        final MessageParties x = parties();
        if (null == x.toAddress)
        {
            x.toAddress = partyAddress(HeaderName.TO);
        }
        return x.toAddress;
    }

    private Address partyAddress(final HeaderName k)
    {
        final int i = headers.find(k, 0);
        if (i < 0)
        {
            return null;
        }
        try
        {
            final boolean readOnly = incoming || committed || this instanceof SipServletResponseImpl;
            return AddressCodec.partyAddress(headers, i, readOnly, k.canonical());
        }
        catch (final ServletParseException e)
        {
            throw new IllegalStateException(k.canonical() + " does not parse: " + e.getMessage(), e);
        }
    }

    /**
     * Before the message is copied (a proxy branch, a relayed response, a B2BUA leg): the header objects the
     * application got and edited are written into the header section, and stay bound (later edits are written too).
     */
    public void applyHeaderObjects()
    {
        final MessageExtras x = extrasIfAny();
        if (null != x && null != x.bound)
        {
            x.bound.writeTo(headers);
        }
    }

    /**
     * Before the message is written: From and To as the application left their {@code Address} objects (display
     * name, URI, parameters; the tag is protected there), and the bound header objects that changed, then forgets
     * them so that later reads see the header.
     */
    public void syncParties()
    {
        final MessageParties x = extras;
        if (null == x)
        {
            return;
        }
        if (null != x.fromAddress && !incoming)
        {
            headers.setValue(headers.find(HeaderName.FROM, 0), x.fromAddress.toString());
        }
        if (null != x.toAddress && !incoming)
        {
            headers.setValue(headers.find(HeaderName.TO, 0), x.toAddress.toString());
        }
        x.fromAddress = null;
        x.toAddress = null;
        if (x instanceof MessageExtras e && null != e.bound)
        {
            e.bound.writeTo(headers);
            e.bound = null;
        }
    }

    @Override
    public String getCallId()
    {
        return headers.get(HeaderName.CALL_ID);
    }

    @Override
    public String getMethod()
    {
        final String cseq = headers.get(HeaderName.CSEQ);
        if (null == cseq)
        {
            return null;
        }
        final int sp = cseq.indexOf(' ');
        return sp < 0 ? cseq : cseq.substring(sp + 1).strip();
    }

    /** The CSeq number; -1 when missing or not a number (read from the bytes, no String). */
    public long cseqNumber()
    {
        final int i = headers.find(HeaderName.CSEQ, 0);
        return i < 0 ? -1 : headers.leadingNumber(i);
    }

    @Override
    public int getExpires()
    {
        return intHeader(HeaderName.EXPIRES);
    }

    /** A header whose value is a whole number (Expires, Max-Forwards); -1 when absent or not a number. */
    protected final int intHeader(final HeaderName k)
    {
        final int i = headers.find(k, 0);
        final long n = i < 0 ? -1 : headers.leadingNumber(i);
        return n > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int)n;
    }

    @Override
    public void setExpires(final int seconds)
    {
        checkWritable();
        if (seconds < 0)
        {
            headers.remove("Expires");
        }
        else
        {
            headers.set("Expires", Integer.toString(seconds));
        }
    }

    @Override
    public HeaderForm getHeaderForm()
    {
        final MessageExtras x = extrasIfAny();
        return null == x ? HeaderForm.DEFAULT : x.headerForm;
    }

    @Override
    public void setHeaderForm(final HeaderForm form)
    {
        if (null != form && HeaderForm.DEFAULT != form || null != extrasIfAny())
        {
            extras().headerForm = null == form ? HeaderForm.DEFAULT : form;
        }
    }

    // ================================================================================================================
    // Content
    // ================================================================================================================

    @Override
    public int getContentLength()
    {
        return bodyLength();
    }

    /**
     * Accepted on a message the application builds and has not sent (JSR 289 allows IllegalStateException only for
     * incoming or sent messages); the value is not kept: the Content-Length written is always the length of the
     * content sent (RFC 3261 §20.14; on a stream transport a wrong one would break the framing, §18.3), so a length
     * set before {@link #setContent} is overridden by the content, and {@link #getContentLength} reports the content.
     *
     * @throws IllegalStateException when the message is incoming or committed.
     * @throws IllegalArgumentException when {@code len} is negative.
     */
    @Override
    public void setContentLength(final int len)
    {
        if (incoming)
        {
            throw new IllegalStateException("Content-Length of a received message cannot be changed");
        }
        checkWritable();
        if (len < 0)
        {
            throw new IllegalArgumentException("Content-Length must not be negative: " + len);
        }
    }

    @Override
    public String getContentType()
    {
        return headers.get(HeaderName.CONTENT_TYPE);
    }

    @Override
    public void setContentType(final String type)
    {
        checkWritable();
        if (null == type)
        {
            headers.remove("Content-Type");
        }
        else
        {
            headers.set("Content-Type", type);
        }
    }

    /**
     * The content as bytes, null when there is none. The JSR 289 javadoc of {@code getRawContent}: "The reference is
     * returned"; as in the JAIN-SIP reference container, the array is the message's own body (the received body's
     * copy, or the array given to {@link #setContent}), shared with the messages made from this one (a proxied
     * request, a relayed response) and with any message it is set on: writing into it changes all their content.
     * The container never writes into it.
     */
    @Override
    public byte[] getRawContent() throws IOException
    {
        return 0 == bodyLength() ? null : body;
    }

    /**
     * The content (JSR 289 §5.6): a String for {@code text/*} types (decoded with the charset parameter, else the
     * character encoding set, else UTF-8), {@link #getRawContent} for anything else; null when there is none.
     */
    @Override
    public Object getContent() throws IOException
    {
        if (0 == bodyLength())
        {
            return null;
        }
        final String type = getContentType();
        if (ContentText.isText(type))
        {
            return new String(body, ContentText.charset(type, characterEncodingSet()));
        }
        return getRawContent();
    }

    @Override
    public void setContent(final Object content, final String contentType) throws UnsupportedEncodingException
    {
        checkWritable();
        if (null == content)
        {
            body = null;
            setContentType(null);
            return;
        }
        body = ContentText.bytesOf(content, contentType, characterEncodingSet());
        if (null != contentType)
        {
            headers.set("Content-Type", contentType);
        }
    }

    @Override
    public String getCharacterEncoding()
    {
        return ContentText.characterEncoding(getContentType(), characterEncodingSet());
    }

    /** The character encoding the application set, or null. */
    private String characterEncodingSet()
    {
        final MessageExtras x = extrasIfAny();
        return null == x ? null : x.characterEncoding;
    }

    /** The Servlet API's locale: {@code locale}, else the JVM's default (ServletRequest/ServletResponse.getLocale). */
    static Locale localeOrDefault(final Locale locale)
    {
        return null == locale ? Locale.getDefault() : locale;
    }

    /** Sets the encoding of text content without a charset parameter; false when the JDK does not know it. */
    protected final boolean applyCharacterEncoding(final String enc)
    {
        if (null != enc && !Charset.isSupported(enc))
        {
            return false;
        }
        if (null != enc || null != extrasIfAny())
        {
            extras().characterEncoding = enc;
        }
        return true;
    }

    @Override
    public Locale getContentLanguage()
    {
        final String v = headers.get(HeaderName.CONTENT_LANGUAGE);
        return null == v ? null : Locale.forLanguageTag(v.strip());
    }

    @Override
    public void setContentLanguage(final Locale locale)
    {
        checkWritable();
        if (null == locale)
        {
            headers.remove("Content-Language"); // the javadoc is silent on null: it removes, as for Accept-Language
            return;
        }
        headers.set("Content-Language", locale.toLanguageTag());
    }

    /** The first Accept-Language; without one, the server's default locale (JSR 289 javadoc). */
    @Override
    public Locale getAcceptLanguage()
    {
        return getAcceptLanguages().next();
    }

    /** The Accept-Language locales in order; without any, only the server's default locale (JSR 289 javadoc). */
    @Override
    public Iterator<Locale> getAcceptLanguages()
    {
        final List<Locale> languages = ContentText.languages(headers.getAll("Accept-Language"));
        return (languages.isEmpty() ? List.of(Locale.getDefault()) : languages).iterator();
    }

    /** Sets the only Accept-Language; null removes every Accept-Language (JSR 289 javadoc: null is valid). */
    @Override
    public void setAcceptLanguage(final Locale locale)
    {
        checkWritable();
        if (null == locale)
        {
            headers.remove("Accept-Language");
            return;
        }
        headers.set("Accept-Language", locale.toLanguageTag());
    }

    @Override
    public void addAcceptLanguage(final Locale locale)
    {
        checkWritable();
        headers.add("Accept-Language", locale.toLanguageTag());
    }

    // ================================================================================================================
    // Attributes, session, transport
    // ================================================================================================================

    @Override
    public Object getAttribute(final String name)
    {
        if (null == name)
        {
            throw new NullPointerException("name");
        }
        final MessageExtras x = extrasIfAny();
        return null == x || null == x.attributes ? null : x.attributes.get(name);
    }

    @Override
    public Enumeration<String> getAttributeNames()
    {
        final MessageExtras x = extrasIfAny();
        return null == x || null == x.attributes ? Collections.emptyEnumeration()
            : Collections.enumeration(new ArrayList<>(x.attributes.keySet()));
    }

    @Override
    public void setAttribute(final String name, final Object o)
    {
        if (null == name || null == o)
        {
            throw new NullPointerException(null == name ? "name" : "value");
        }
        final MessageExtras x = extras();
        if (null == x.attributes)
        {
            x.attributes = new HashMap<>(4);
        }
        x.attributes.put(name, o);
    }

    @Override
    public void removeAttribute(final String name)
    {
        final MessageExtras x = extrasIfAny();
        if (null != x && null != x.attributes)
        {
            x.attributes.remove(name);
        }
    }

    @Override
    public SipSession getSession()
    {
        return session;
    }

    @Override
    public SipSession getSession(final boolean create)
    {
        return session;
    }

    @Override
    public SipApplicationSession getApplicationSession()
    {
        return null == session ? null : session.getApplicationSession();
    }

    @Override
    public SipApplicationSession getApplicationSession(final boolean create)
    {
        return getApplicationSession();
    }

    @Override
    public boolean isCommitted()
    {
        return committed;
    }

    @Override
    public String getLocalAddr()
    {
        return null == local ? null : local.getAddress().getHostAddress();
    }

    @Override
    public int getLocalPort()
    {
        return null == local ? -1 : local.getPort();
    }

    @Override
    public String getRemoteAddr()
    {
        return null == remote ? null : remote.getAddress().getHostAddress();
    }

    @Override
    public int getRemotePort()
    {
        return null == remote ? -1 : remote.getPort();
    }

    @Override
    public String getInitialRemoteAddr()
    {
        return incoming ? getRemoteAddr() : null;
    }

    @Override
    public int getInitialRemotePort()
    {
        return incoming ? getRemotePort() : -1;
    }

    /**
     * JSR 289: the transport this message was received on, or will be / was sent on: {@code TCP} or {@code TLS} when
     * its peer is a stream connection ({@link io.sipline.sip.transport.tcp.TcpFlow}), else {@code UDP}; null while it
     * has no peer yet. {@link SipServletRequestImpl} and {@link SipServletResponseImpl} refine it for what they send.
     */
    @Override
    public String getTransport()
    {
        return null == remote ? null : transportOf(remote);
    }

    @Override
    public String getInitialTransport()
    {
        return incoming ? transportOf(remote) : null;
    }

    /** The transport name of a peer address: a stream connection's own, else UDP. */
    static String transportOf(final InetSocketAddress peer)
    {
        return peer instanceof io.sipline.sip.transport.tcp.TcpFlow flow ? flow.transport() : "UDP";
    }

    @Override
    public String getProtocol()
    {
        return "SIP/2.0";
    }

    @Override
    public boolean isSecure()
    {
        return false;
    }

    /**
     * Sets the user digest authentication found for this request ({@code null}: not authenticated); dispatch
     * calls it after {@code ApplicationSecurity.check} lets the request through (JSR 289, Security).
     */
    public void principal(final SipPrincipal value)
    {
        // most requests have no user: setting none makes no extras
        if (null != value || null != extrasIfAny())
        {
            extras().principal = value;
        }
    }

    /** @return the authenticated user, or {@code null}. */
    public SipPrincipal principal()
    {
        final MessageExtras x = extrasIfAny();
        return null == x ? null : x.principal;
    }

    @Override
    public String getRemoteUser()
    {
        return null == principal() ? null : principal().getName();
    }

    @Override
    public boolean isUserInRole(final String role)
    {
        return null != principal() && principal().isInRole(role);
    }

    @Override
    public Principal getUserPrincipal()
    {
        return principal();
    }

    @Override
    public Object clone()
    {
        throw new UnsupportedOperationException("SIP messages are not cloned; create a new request or response");
    }
}
