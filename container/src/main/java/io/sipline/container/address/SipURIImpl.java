package io.sipline.container.address;

import java.nio.charset.StandardCharsets;
import java.util.Iterator;

import javax.servlet.sip.SipURI;

import io.sipline.sip.message.SipUriFlyweight;
import io.sipline.sip.message.UriComparison;
import io.sipline.sip.stack.SipStackConfig;

/**
 * A {@code sip:} or {@code sips:} URI (RFC 3261 §19.1) as a JSR 289 {@link SipURI}, kept as its wire bytes (see
 * {@link BaseUri}). Getters return components unescaped; setters escape what they are given (RFC 3261 §19.1.2).
 * The host of an IPv6 reference is returned with its brackets ({@code [2001:db8::10]}); {@link #setHost(String)}
 * adds them when missing.
 *
 * <p>{@link #equals(Object)} is RFC 3261 §19.1.4 (through {@code UriComparison.sipEquals}); {@link #hashCode()}
 * hashes only what that rule compares without exception: the scheme, the user (escapes decoded as the rule decodes
 * them), the host (names ignoring case, IPv4 by value, IPv6 only as "an IPv6 address") and the port; so a table of
 * addresses of record under one domain does not pile into one bucket.
 *
 * <p>Threading: not thread-safe; one application thread at a time. Read-only copies are immutable.
 */
public final class SipURIImpl extends BaseUri implements SipURI
{
    /**
     * What the owner ({@link BaseUri#owner}) of a URI in the Contact header of a message the container writes the
     * Contact of is: its user part and other parameters may change, its scheme, host, port, {@code transport},
     * {@code maddr}, {@code lr}, the node parameter and headers may not (JSR 289 §4.1.3: they are where the dialog's
     * requests come back to).
     *
     * @param header the Contact header, as named in refusals.
     */
    record ContactGuard(String header) implements java.io.Serializable
    {
    }

    SipURIImpl(final byte[] wire, final String systemHeader)
    {
        this(wire, (Object)systemHeader);
    }

    /** @param owner null, a system header's name or a {@link ContactGuard} ({@link BaseUri#owner}). */
    private SipURIImpl(final byte[] wire, final Object owner)
    {
        super(wire, owner);
    }

    /** A URI of {@code text} (ASCII, validated as a {@code sip:} or {@code sips:} URI): see {@link BaseUri}. */
    SipURIImpl(final String text, final String systemHeader)
    {
        super(text, systemHeader);
    }

    /** A copy of {@code other} sharing its bytes and text; {@code owner} as above. */
    private SipURIImpl(final SipURIImpl other, final Object owner)
    {
        super(other, owner);
    }

    /** A copy (sharing its bytes) for the container's Contact {@code header}: see {@link ContactGuard}. */
    public SipURIImpl containerContact(final String header)
    {
        return new SipURIImpl(this, new ContactGuard(null == header ? "Contact" : header));
    }

    /** The URI of {@code wire} (kept, never written) as the container's Contact {@code header}'s. */
    static SipURIImpl ofContainerContact(final byte[] wire, final String header)
    {
        return new SipURIImpl(wire, new ContactGuard(null == header ? "Contact" : header));
    }

    /** The Contact header this URI is the container's of, or null (see {@link ContactGuard}). */
    private String containerContact()
    {
        return owner instanceof ContactGuard guard ? guard.header() : null;
    }

    private void checkAddressWritable(final String what)
    {
        checkWritable();
        final String containerContact = containerContact();
        if (null != containerContact)
        {
            throw new IllegalStateException("the " + what + " of the " + containerContact
                + " URI is the container's; only its user part and parameters may change (JSR 289 §4.1.3)");
        }
    }

    @Override
    void checkParameterWritable(final String name)
    {
        checkWritable();
        if (null != containerContact() && isContainerContactParameter(name))
        {
            checkAddressWritable(name + " parameter");
        }
    }

    /** Whether a URI parameter of the container's Contact is the container's own (transport, maddr, lr, node). */
    public static boolean isContainerContactParameter(final String name)
    {
        return null != name && ("transport".equalsIgnoreCase(name) || "maddr".equalsIgnoreCase(name)
            || "lr".equalsIgnoreCase(name) || SipStackConfig.NODE_URI_PARAMETER.equalsIgnoreCase(name));
    }

    @Override
    public SipURIImpl readOnly(final String header)
    {
        return new SipURIImpl(this, null == header ? "this header" : header);
    }

    @Override
    public SipURIImpl clone()
    {
        return new SipURIImpl(this, null);
    }

    @Override
    public boolean isSipURI()
    {
        return true;
    }

    @Override
    public String getScheme()
    {
        return isSecure() ? "sips" : "sip";
    }

    @Override
    public boolean isSecure()
    {
        // "sips:" is the only scheme of this class with an 's' before the colon.
        return wire()[3] != ':';
    }

    @Override
    public void setSecure(final boolean secure)
    {
        checkAddressWritable("scheme");
        if (secure != isSecure())
        {
            replace(0, secure ? 3 : 4, secure ? "sips" : "sip");
        }
    }

    @Override
    public String getUser()
    {
        final SipUriFlyweight f = view(Scratch.get().first);
        return f.hasUser() ? UriText.unescape(wire(), f.userStart(), f.userEnd()) : null;
    }

    /** Sets the user part, escaping it; null or "" removes user and password. */
    @Override
    public void setUser(final String user)
    {
        checkWritable();
        final SipUriFlyweight f = view(Scratch.get().first);
        if (null == user || user.isEmpty())
        {
            if (f.hasUser())
            {
                replace(f.userStart(), f.hostStart(), "");
            }
            return;
        }
        final String escaped = UriText.escape(user, UriText.USER);
        if (f.hasUser())
        {
            replace(f.userStart(), f.userEnd(), escaped);
        }
        else
        {
            replace(f.hostStart(), f.hostStart(), escaped + '@');
        }
    }

    @Override
    public String getUserPassword()
    {
        final SipUriFlyweight f = view(Scratch.get().first);
        return f.hasPassword() ? UriText.unescape(wire(), f.passwordStart(), f.passwordEnd()) : null;
    }

    /**
     * Sets the password, escaping it; null removes it.
     *
     * @throws IllegalStateException when the URI has no user part (RFC 3261 §25.1: userinfo = user [":" password]).
     */
    @Override
    public void setUserPassword(final String password)
    {
        checkWritable();
        final SipUriFlyweight f = view(Scratch.get().first);
        if (null == password)
        {
            if (f.hasPassword())
            {
                replace(f.userEnd(), f.passwordEnd(), "");
            }
            return;
        }
        if (!f.hasUser())
        {
            throw new IllegalStateException("a password needs a user part: " + this);
        }
        final String escaped = UriText.escape(password, UriText.PASSWORD);
        if (f.hasPassword())
        {
            replace(f.passwordStart(), f.passwordEnd(), escaped);
        }
        else
        {
            replace(f.userEnd(), f.userEnd(), ":" + escaped);
        }
    }

    @Override
    public String getHost()
    {
        final SipUriFlyweight f = view(Scratch.get().first);
        return new String(wire(), f.hostStart(), f.hostEnd() - f.hostStart(), StandardCharsets.ISO_8859_1);
    }

    /**
     * Sets the host: a host name, an IPv4 address, or an IPv6 address with or without its brackets.
     *
     * @throws IllegalArgumentException when it is none of those.
     */
    @Override
    public void setHost(final String host)
    {
        checkAddressWritable("host");
        if (null == host || host.isEmpty())
        {
            throw new IllegalArgumentException("host must not be null or empty");
        }
        final SipUriFlyweight f = view(Scratch.get().first);
        replace(f.hostStart(), f.hostEnd(), hostReference(host));
    }

    @Override
    public int getPort()
    {
        return view(Scratch.get().first).port();
    }

    /** Sets the port; a negative value removes it. */
    @Override
    public void setPort(final int port)
    {
        checkAddressWritable("port");
        if (port > 65535)
        {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        final SipUriFlyweight f = view(Scratch.get().first);
        replace(f.hostEnd(), f.hostPortEnd(), port < 0 ? "" : ":" + port);
    }

    @Override
    public String getTransportParam()
    {
        return getParameter("transport");
    }

    @Override
    public void setTransportParam(final String transport)
    {
        setParameter("transport", transport);
    }

    @Override
    public String getMAddrParam()
    {
        return getParameter("maddr");
    }

    @Override
    public void setMAddrParam(final String maddr)
    {
        setParameter("maddr", maddr);
    }

    @Override
    public String getMethodParam()
    {
        return getParameter("method");
    }

    @Override
    public void setMethodParam(final String method)
    {
        setParameter("method", method);
    }

    @Override
    public int getTTLParam()
    {
        return view(Scratch.get().first).ttl();
    }

    /** Sets the ttl parameter (0..255); a negative value removes it. */
    @Override
    public void setTTLParam(final int ttl)
    {
        if (ttl > 255)
        {
            throw new IllegalArgumentException("ttl out of range 0..255: " + ttl);
        }
        setParameter("ttl", ttl < 0 ? null : Integer.toString(ttl));
    }

    @Override
    public String getUserParam()
    {
        return getParameter("user");
    }

    @Override
    public void setUserParam(final String user)
    {
        setParameter("user", user);
    }

    @Override
    public boolean getLrParam()
    {
        return view(Scratch.get().first).hasLr();
    }

    @Override
    public void setLrParam(final boolean lr)
    {
        setParameter("lr", lr ? "" : null);
    }

    @Override
    public String getHeader(final String name)
    {
        if (null == name)
        {
            return null;
        }
        final SipUriFlyweight f = view(Scratch.get().first);
        final int i = f.headerIndex(UriText.escape(name, UriText.HEADER));
        return i < 0 ? null : UriText.unescape(wire(), f.headerValueStart(i), f.headerValueEnd(i));
    }

    @Override
    public Iterator<String> getHeaderNames()
    {
        final SipUriFlyweight f = view(Scratch.get().first);
        return names(f.headerTable(), f.headerCount());
    }

    /** Sets a URI header (RFC 3261 §19.1.1), escaping name and value; a null value removes it. */
    @Override
    public void setHeader(final String name, final String value)
    {
        checkAddressWritable("headers");
        if (null == name || name.isEmpty())
        {
            throw new IllegalArgumentException("URI header name must not be null or empty");
        }
        if (null == value)
        {
            removeHeader(name);
            return;
        }
        final SipUriFlyweight f = view(Scratch.get().first);
        final String escapedName = UriText.escape(name, UriText.HEADER);
        final String escapedValue = UriText.escape(value, UriText.HEADER);
        final int i = f.headerIndex(escapedName);
        if (i >= 0)
        {
            replace(f.headerValueStart(i), f.headerValueEnd(i), escapedValue);
        }
        else
        {
            final int end = wire().length;
            replace(end, end, (f.headerCount() == 0 ? "?" : "&") + escapedName + '=' + escapedValue);
        }
    }

    @Override
    public void removeHeader(final String name)
    {
        checkAddressWritable("headers");
        if (null == name)
        {
            return;
        }
        final SipUriFlyweight f = view(Scratch.get().first);
        final int i = f.headerIndex(UriText.escape(name, UriText.HEADER));
        if (i < 0)
        {
            return;
        }
        if (i == 0 && f.headerCount() > 1)
        {
            // keep the '?' and drop "name=value&"
            replace(f.headerNameStart(0), f.headerNameStart(1), "");
        }
        else
        {
            replace(f.headerNameStart(i) - 1, f.headerValueEnd(i), "");
        }
    }

    @Override
    int paramsEnd(final SipUriFlyweight f)
    {
        return f.headersStart();
    }

    /** RFC 3261 §19.1.4. */
    @Override
    boolean rulesEqual(final SipUriFlyweight a, final SipUriFlyweight b)
    {
        return UriComparison.sipEquals(a, b);
    }

    @Override
    public int hashCode()
    {
        final SipUriFlyweight f = view(Scratch.get().first);
        final byte[] wire = wire();
        int h = 31 * f.scheme() + f.port();
        if (f.hasUser())
        {
            h = hashDecoded(wire, f.userStart(), f.userEnd(), h);
        }
        switch (f.hostType())
        {
            case SipUriFlyweight.HOST_IPV4:
                return 31 * h + Long.hashCode(SipUriFlyweight.ipv4Value(wire, f.hostStart(), f.hostEnd()));
            case SipUriFlyweight.HOST_IPV6:
                // [2001:db8::1] equals [2001:DB8:0:0:0:0:0:1]: only the host type is hashed, not the spelling.
                return 31 * h + SipUriFlyweight.HOST_IPV6;
            default:
                return hashIgnoreCase(wire, f.hostStart(), f.hostEnd(), h);
        }
    }

    /** A host as it is written in a URI: IPv6 addresses get their brackets. */
    static String hostReference(final String host)
    {
        return host.indexOf(':') >= 0 && host.charAt(0) != '[' ? '[' + host + ']' : host;
    }
}
