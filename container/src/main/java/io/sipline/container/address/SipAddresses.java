package io.sipline.container.address;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import javax.servlet.sip.Address;
import javax.servlet.sip.Parameterable;
import javax.servlet.sip.ServletParseException;
import javax.servlet.sip.SipURI;
import javax.servlet.sip.URI;

import io.sipline.sip.message.Ascii;
import io.sipline.sip.message.NameAddrFlyweight;
import io.sipline.sip.message.SipUriFlyweight;

/**
 * The one entry point for making the address objects of JSR 289 from text: {@link URI} ({@link SipURIImpl},
 * {@link TelURLImpl}, {@link GenericURIImpl}), {@link Address} ({@link AddressImpl}) and {@link Parameterable}
 * ({@link ParameterableImpl}). Used by {@code SipFactory} and by the message layer for header values.
 *
 * <p>Parsing is total: any string either parses or the call throws {@link ServletParseException} whose message says
 * what is wrong and at which index of the string, e.g. {@code bad SIP URI "sip:@x": empty user part before '@' at
 * index 4}; never another exception. URIs and addresses are read by the stack's single-pass byte scanners
 * ({@link SipUriFlyweight}, {@link NameAddrFlyweight}: RFC 3261 §25.1, RFC 3966 §3, RFC 5118), over a per-thread
 * buffer the string is encoded into, so that the container accepts exactly what the stack accepts and a parse leaves
 * no garbage beyond the objects returned. Surrounding spaces and tabs are ignored.
 *
 * <p>Stateless and thread-safe (each thread uses its own scratch).
 */
public final class SipAddresses
{
    private static final String TAG = "tag";
    private static final String EXPIRES = "expires";
    private static final String Q = "q";

    private SipAddresses()
    {
    }

    /**
     * Parses a URI of any scheme: {@code sip:}/{@code sips:} into a {@link SipURI}, {@code tel:} into a
     * {@link javax.servlet.sip.TelURL}, anything else ({@code mailto:}, {@code urn:}, {@code http:} ...) into a
     * generic {@link URI}.
     *
     * @throws ServletParseException when the text is not a URI.
     */
    public static URI parseUri(final String text) throws ServletParseException
    {
        if (null == text)
        {
            throw new ServletParseException("bad URI: null");
        }
        final Scratch scratch = Scratch.get();
        final byte[] buf = scratch.encode(text);
        int start = 0;
        int end = scratch.encodedLength;
        while (start < end && isWs(buf[start]))
        {
            start++;
        }
        while (end > start && isWs(buf[end - 1]))
        {
            end--;
        }
        final SipUriFlyweight f = scratch.first;
        if (!f.wrap(buf, start, end))
        {
            throw error(uriKind(text), text, f.errorReason(), Scratch.charIndex(text, f.errorOffset()));
        }
        return newUri(text, buf, start, end, f.scheme(), AbstractParameterable.Protection.NONE, null);
    }

    /**
     * Parses an address: {@code name-addr} ({@code "Alice" <sip:alice@atlanta.example.com>}), {@code addr-spec}
     * ({@code sip:alice@atlanta.example.com}, whose {@code ;} parameters are then header parameters, RFC 3261
     * §20.10) or the Contact wildcard {@code *}, each followed by header parameters.
     *
     * @throws ServletParseException when the text is not an address.
     */
    public static Address parseAddress(final String text) throws ServletParseException
    {
        return parseAddress(text, AbstractParameterable.Protection.NONE, null);
    }

    /**
     * Parses an address as {@link #parseAddress(String)} does, made with {@code protection} at once (no modifiable
     * address first and a protected copy of it): {@link AbstractParameterable.Protection#READ_ONLY} with a read-only
     * URI, {@link AbstractParameterable.Protection#CONTACT} with the URI of {@link AddressImpl#containerContact},
     * {@link AbstractParameterable.Protection#TAG} and {@code NONE} with a URI of its own the application may change.
     *
     * @param header the header named in refusals (null: "this header"); unused for {@code NONE}.
     * @throws ServletParseException when the text is not an address.
     */
    public static Address parseAddress(final String text, final AbstractParameterable.Protection protection,
        final String header) throws ServletParseException
    {
        if (null == text)
        {
            throw new ServletParseException("bad address: null");
        }
        final Scratch scratch = Scratch.get();
        final byte[] buf = scratch.encode(text);
        final NameAddrFlyweight na = scratch.nameAddr;
        if (!na.wrap(buf, 0, scratch.encodedLength))
        {
            throw error("address", text, na.errorReason(), Scratch.charIndex(text, na.errorOffset()));
        }
        return address(text, buf, na, protection, header);
    }

    /**
     * Parses the address at {@code [start, end)} of a header's bytes as {@link #parseAddress(String,
     * AbstractParameterable.Protection, String)} parses its text, without making that text, when the value is ASCII
     * on one line (its text is then its bytes); null for any other value (folded, UTF-8) and for one that is not an
     * address: the caller parses its text (the same address, or the exception that says what is wrong).
     *
     * @param bytes never written (a received message's copy); read through a copy, which the parse compacts.
     */
    public static Address parsePlainAddress(final byte[] bytes, final int start, final int end,
        final AbstractParameterable.Protection protection, final String header) throws ServletParseException
    {
        if (!plainAscii(bytes, start, end))
        {
            return null;
        }
        final Scratch scratch = Scratch.get();
        final byte[] buf = scratch.copy(bytes, start, end);
        final NameAddrFlyweight na = scratch.nameAddr;
        return na.wrap(buf, 0, scratch.encodedLength) ? address(null, buf, na, protection, header) : null;
    }

    /**
     * The read-only From or To of a received message, its value at {@code [start, end)} of the message's bytes,
     * parsed when first used ({@link ReceivedParty}) once checked here (allocating nothing but the address) when the
     * value is ASCII on one line within the first 64 KiB: null for any other value (folded, UTF-8, further), the
     * wildcard, and one that is not an address; the caller parses its text (the same address, or the exception that
     * says what is wrong).
     *
     * @param bytes never written (a received message's copy), and kept by the address until it is parsed.
     * @param header the header named in refusals (null: "this header").
     */
    public static Address parseReceivedParty(final byte[] bytes, final int start, final int end, final String header)
    {
        final NameAddrFlyweight na = Scratch.get().nameAddr;
        if (end > ReceivedParty.MAX_POSITION || !plainAscii(bytes, start, end) || !na.wrap(bytes, start, end)
            || na.isWildcard())
        {
            return null;
        }
        return new ReceivedParty(bytes, start, end, header);
    }

    /**
     * The URI of the address {@link #parseReceivedParty} checked at {@code [start, end)} of {@code bytes}, read-only:
     * a {@code sip:}/{@code sips:} URI made of its text alone (no copy of its bytes until a getter needs them).
     */
    static URI receivedUri(final byte[] bytes, final int start, final int end, final String systemHeader)
    {
        final NameAddrFlyweight na = Scratch.get().nameAddr;
        if (!na.wrap(bytes, start, end))
        {
            throw new IllegalStateException("received address no longer parses: " + na.errorReason());
        }
        final int scheme = na.uri().scheme();
        if (SipUriFlyweight.SCHEME_SIP == scheme || SipUriFlyweight.SCHEME_SIPS == scheme)
        {
            return new SipURIImpl(new String(bytes, na.uriStart(), na.uriEnd() - na.uriStart(),
                StandardCharsets.ISO_8859_1), systemHeader);
        }
        return uriOf(Arrays.copyOfRange(bytes, na.uriStart(), na.uriEnd()), scheme,
            AbstractParameterable.Protection.READ_ONLY, systemHeader);
    }

    /**
     * Sets the header parameters of {@code address} to those of the address {@link #parseReceivedParty} checked at
     * {@code [start, end)} of {@code bytes} (read through a copy, which the parse compacts) and returns its display
     * name as {@link #displayName} makes it.
     */
    static byte[] loadParts(final AddressImpl address, final byte[] bytes, final int start, final int end)
    {
        final Scratch scratch = Scratch.get();
        final byte[] buf = scratch.copy(bytes, start, end);
        final NameAddrFlyweight na = scratch.nameAddr;
        if (!na.wrap(buf, 0, scratch.encodedLength))
        {
            throw new IllegalStateException("received address no longer parses: " + na.errorReason());
        }
        address.setParams(params(buf, na), na.paramCount());
        return na.hasDisplayName() ?
            displayName(buf, na.displayNameStart(), na.displayNameEnd(), na.isDisplayNameQuoted()) : null;
    }

    /**
     * Where the value {@code [start, end)} of a From or To is without its tag parameter, as {@code
     * HeaderText.withTag(value, null)} cuts its text (before the {@code ;} of the tag, RFC 3261 §20.20): packed
     * {@code start << 32 | end}, the whole value when it has no tag; -1 when the value is not ASCII on one line, not
     * an address, or has parameters after its tag (its text is then cut instead). Allocates nothing.
     */
    public static long withoutTag(final byte[] bytes, final int start, final int end)
    {
        final NameAddrFlyweight na = Scratch.get().nameAddr;
        if (!plainAscii(bytes, start, end) || !na.wrap(bytes, start, end) || na.isWildcard())
        {
            return -1;
        }
        final int n = na.paramCount();
        for (int i = 0; i < n; i++)
        {
            if (Ascii.equalsIgnoreCase(bytes, na.paramNameStart(i), na.paramNameEnd(i), TAG))
            {
                if (i != n - 1)
                {
                    return -1;
                }
                int semicolon = na.paramNameStart(i) - 1;
                while (semicolon > start && bytes[semicolon] != ';')
                {
                    semicolon--;
                }
                return (long)start << 32 | semicolon;
            }
        }
        return (long)start << 32 | end;
    }

    /** Whether {@code [start, end)} is ASCII without a line break (a header value's text reads as its bytes). */
    private static boolean plainAscii(final byte[] bytes, final int start, final int end)
    {
        for (int i = start; i < end; i++)
        {
            if (bytes[i] < 0 || bytes[i] == '\r' || bytes[i] == '\n')
            {
                return false;
            }
        }
        return true;
    }

    /**
     * The address {@code na} wrapped over {@code buf} (which the parse compacts in place) holds, with {@code
     * protection}; {@code text} is the parsed text for error messages, null when it was read from a header's bytes
     * (which are ASCII, so the URI check cannot fail).
     */
    private static Address address(final String text, final byte[] buf, final NameAddrFlyweight na,
        final AbstractParameterable.Protection protection, final String header) throws ServletParseException
    {
        if (na.isWildcard())
        {
            return AbstractParameterable.Protection.NONE == protection ? AddressImpl.wildcard()
                : new AddressImpl(null, null, null, 0, protection, header);
        }
        final URI uri = newUri(text, buf, na.uriStart(), na.uriEnd(), na.uri().scheme(), protection, header);
        final String[] params = params(buf, na);
        final byte[] displayName = na.hasDisplayName() ?
            displayName(buf, na.displayNameStart(), na.displayNameEnd(), na.isDisplayNameQuoted()) : null;
        return AddressImpl.parsed(displayName, uri, params, na.paramCount(), protection, header);
    }

    /** The header parameters of {@code na} over {@code buf}, names and values alternately; null when none. */
    private static String[] params(final byte[] buf, final NameAddrFlyweight na)
    {
        final int count = na.paramCount();
        final String[] params = count == 0 ? null : new String[2 * count];
        for (int i = 0; i < count; i++)
        {
            params[2 * i] = name(buf, na.paramNameStart(i), na.paramNameEnd(i));
            params[2 * i + 1] =
                na.paramHasValue(i) ? unfolded(buf, na.paramValueStart(i), na.paramValueEnd(i)) : "";
        }
        return params;
    }

    /**
     * Parses a header value with parameters, {@code value *( ";" generic-param )}.
     *
     * @throws ServletParseException when the text is not one.
     */
    public static Parameterable parseParameterable(final String text) throws ServletParseException
    {
        return ParameterableImpl.parse(text);
    }

    /**
     * A {@code sip:} URI for {@code user@host}: the user escaped as needed (RFC 3261 §19.1.2). The host may carry a
     * port, as {@code SipFactory.createSipURI} accepts in the reference container: {@code host:port},
     * {@code [v6]:port}; an IPv6 address without brackets (two colons or more) is a host and gets its brackets.
     *
     * @param user the user part, or null for none.
     * @throws IllegalArgumentException when the host is null or not a host (with an optional port).
     */
    public static SipURI sipUri(final String user, final String host)
    {
        if (null == host || host.isEmpty())
        {
            throw new IllegalArgumentException("host must not be null or empty");
        }
        final String text = "sip:" + (null == user || user.isEmpty() ? "" : UriText.escape(user, UriText.USER) + '@') +
            hostPort(host);
        try
        {
            final URI uri = parseUri(text);
            if (uri instanceof SipURIImpl sip && text.length() == sip.wireBytes().length)
            {
                return sip;
            }
        }
        catch (final ServletParseException e)
        {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        throw new IllegalArgumentException("not a SIP URI: " + text);
    }

    /** {@code host} as written in a URI after {@code sip:}: as given, unless a bare IPv6 address (brackets added). */
    private static String hostPort(final String host)
    {
        final int colon = host.indexOf(':');
        final boolean bareIpv6 = colon >= 0 && '[' != host.charAt(0) && host.indexOf(':', colon + 1) >= 0;
        return bareIpv6 ? '[' + host + ']' : host;
    }

    /**
     * An address of {@code uri} (kept by reference) with an optional display name and no parameters.
     *
     * @throws IllegalArgumentException when the URI is null or the display name holds a line break.
     */
    public static Address address(final URI uri, final String displayName)
    {
        if (null == uri)
        {
            throw new IllegalArgumentException("URI must not be null");
        }
        return new AddressImpl(displayName, uri, null, 0, AbstractParameterable.Protection.NONE, null);
    }

    /**
     * The URI object of {@code [start, end)} of {@code buf}: read-only for an address of {@code READ_ONLY}, the
     * container's Contact's for {@code CONTACT} (a SIP URI; any other read-only), else modifiable.
     */
    private static URI newUri(final String text, final byte[] buf, final int start, final int end, final int scheme,
        final AbstractParameterable.Protection protection, final String header) throws ServletParseException
    {
        for (int i = start; i < end; i++)
        {
            if (buf[i] < 0)
            {
                throw error(uriKind(text), text, "non-ASCII character in URI (escape it as %HH)",
                    Scratch.charIndex(text, i));
            }
        }
        return uriOf(Arrays.copyOfRange(buf, start, end), scheme, protection, header);
    }

    /** The URI object of {@code wire} (kept) as {@link #newUri} makes it. */
    private static URI uriOf(final byte[] wire, final int scheme, final AbstractParameterable.Protection protection,
        final String header)
    {
        final boolean sip = SipUriFlyweight.SCHEME_SIP == scheme || SipUriFlyweight.SCHEME_SIPS == scheme;
        if (AbstractParameterable.Protection.CONTACT == protection && sip)
        {
            return SipURIImpl.ofContainerContact(wire, header);
        }
        final boolean readOnly = AbstractParameterable.Protection.READ_ONLY == protection
            || AbstractParameterable.Protection.CONTACT == protection;
        final String systemHeader = !readOnly ? null : null == header ? "this header" : header;
        if (sip)
        {
            return new SipURIImpl(wire, systemHeader);
        }
        return SipUriFlyweight.SCHEME_TEL == scheme ? new TelURLImpl(wire, systemHeader)
            : new GenericURIImpl(wire, systemHeader);
    }

    /** A parameter name; the common ones as constants, so that a parse makes no string for them. */
    private static String name(final byte[] buf, final int start, final int end)
    {
        if (equalsAscii(buf, start, end, TAG))
        {
            return TAG;
        }
        if (equalsAscii(buf, start, end, EXPIRES))
        {
            return EXPIRES;
        }
        if (equalsAscii(buf, start, end, Q))
        {
            return Q;
        }
        return new String(buf, start, end - start, StandardCharsets.ISO_8859_1);
    }

    /**
     * A quoted or bare parameter value as UTF-8 text; the CR LF of a folded line inside a quoted-string is dropped
     * (RFC 3261 §7.3.1: folding is equivalent to the white space that follows it), compacting the span in place.
     */
    private static String unfolded(final byte[] buf, final int start, final int end)
    {
        int n = start;
        for (int i = start; i < end; i++)
        {
            if (buf[i] != '\r' && buf[i] != '\n')
            {
                buf[n++] = buf[i];
            }
        }
        return new String(buf, start, n - start, StandardCharsets.UTF_8);
    }

    /**
     * The display name as the application reads it (RFC 3261 §25.1): a quoted-string without its quotes, with
     * quoted-pairs unescaped and the CR LF of folded lines dropped; a token run with each run of white space turned
     * into one space; its UTF-8 bytes, null when it is empty. Compacts the span in place (the scratch buffer is the
     * parse's own), so nothing but the result is allocated.
     */
    private static byte[] displayName(final byte[] buf, final int start, final int end, final boolean quoted)
    {
        final int from = quoted ? start + 1 : start;
        final int to = quoted ? end - 1 : end;
        int n = from;
        boolean space = false;
        for (int i = from; i < to; i++)
        {
            final byte b = buf[i];
            if (quoted && b == '\\' && i + 1 < to)
            {
                buf[n++] = buf[++i];
                space = false;
            }
            else if (quoted && (b == '\r' || b == '\n'))
            {
                continue;
            }
            else if (!quoted && (b == ' ' || b == '\t' || b == '\r' || b == '\n'))
            {
                if (!space)
                {
                    buf[n++] = ' ';
                    space = true;
                }
            }
            else
            {
                buf[n++] = b;
                space = false;
            }
        }
        return n == from ? null : Arrays.copyOfRange(buf, from, n);
    }

    private static boolean equalsAscii(final byte[] buf, final int start, final int end, final String s)
    {
        if (end - start != s.length())
        {
            return false;
        }
        for (int i = 0; i < s.length(); i++)
        {
            if (buf[start + i] != s.charAt(i))
            {
                return false;
            }
        }
        return true;
    }

    private static boolean isWs(final byte b)
    {
        return b == ' ' || b == '\t';
    }

    private static String uriKind(final String text)
    {
        final String t = text.stripLeading();
        if (t.regionMatches(true, 0, "sip:", 0, 4) || t.regionMatches(true, 0, "sips:", 0, 5))
        {
            return "SIP URI";
        }
        return t.regionMatches(true, 0, "tel:", 0, 4) ? "tel URL" : "URI";
    }

    private static ServletParseException error(final String kind, final String text, final String reason,
        final int index)
    {
        return new ServletParseException("bad " + kind + " \"" + text + "\": " + reason + " at index " + index);
    }
}
