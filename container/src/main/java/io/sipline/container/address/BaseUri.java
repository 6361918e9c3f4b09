package io.sipline.container.address;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

import javax.servlet.sip.URI;

import io.sipline.sip.message.ParamsComparison;
import io.sipline.sip.message.SipUriFlyweight;

/**
 * The common part of the URI objects an application sees ({@link SipURIImpl}, {@link TelURLImpl},
 * {@link GenericURIImpl}): the URI is kept as one compact ASCII byte array, exactly as it goes on the wire, and
 * its text once {@link #toString()} made it (the two are the same characters). A URI read from a received header
 * may start as its text alone ({@link #BaseUri(String, Object)}): the array is made from it when a getter first needs
 * it, so that reading such a URI's text costs one String and no copy of its bytes. Every getter reads that array
 * through the stack's
 * {@link SipUriFlyweight} (borrowed from the thread's {@link Scratch}) and makes the string it returns; every setter
 * builds a new array by splicing the escaped component in, validates it with the same flyweight, and swaps it in.
 * The array is never written in place, so clones and read-only copies share it.
 *
 * <p>Equality follows RFC 3261 §19.1.4 and RFC 3966 §4 by calling {@code io.sipline.sip.message.UriComparison}
 * over the two arrays (no copy of those rules here).
 *
 * <p>Threading: not thread-safe, like every JSR 289 object; one application thread at a time. Read-only instances
 * (see {@link #readOnly(String)}) are immutable and may be shared.
 */
public abstract sealed class BaseUri implements URI permits SipURIImpl, TelURLImpl, GenericURIImpl
{
    /** RFC 3261 §25.1 {@code reserved}, for {@link #hashDecoded}. */
    private static final String RESERVED = ";/?:@&=+$,";

    /**
     * The URI on the wire: ASCII, validated; replaced, never modified; null until first needed when this URI was made
     * from its {@link #text}. Read it through {@link #wire()}.
     */
    private byte[] wire;
    /** The characters of {@link #wire}, made once asked for; null until then and after an edit. */
    private String text;
    /**
     * Null when the application may modify this URI; a String, the header that owns it (for the error message), when
     * it is read-only; or a {@link SipURIImpl.ContactGuard} when it is the container's Contact's, of which only some
     * parts may change. One field for both, so that a URI object is 16 bytes with compact object headers.
     */
    final Object owner;

    BaseUri(final byte[] wire, final Object owner)
    {
        this.wire = wire;
        this.owner = owner;
    }

    /** A URI of {@code text}, ASCII and validated, whose bytes are made from it when first needed. */
    BaseUri(final String text, final Object owner)
    {
        this.text = text;
        this.owner = owner;
    }

    /** A URI with the bytes and text of {@code other} (both shared: neither is ever modified). */
    BaseUri(final BaseUri other, final Object owner)
    {
        this.wire = other.wire;
        this.text = other.text;
        this.owner = owner;
    }

    /** The wire form: made from the text on first use (a benign race on a shared read-only copy: the same bytes). */
    final byte[] wire()
    {
        byte[] w = wire;
        if (null == w)
        {
            w = text.getBytes(StandardCharsets.ISO_8859_1);
            wire = w;
        }
        return w;
    }

    /**
     * A copy of this URI (sharing its bytes) whose setters throw {@link IllegalStateException}, for the URI of a
     * system header such as Route, Record-Route, Via or the From/To of a sent request.
     *
     * @param header the header named in the error message.
     */
    public abstract BaseUri readOnly(String header);

    /** {@link #readOnly(String)} with a generic name in the error message. */
    public final BaseUri readOnly()
    {
        return readOnly("this header");
    }

    /** True when the setters of this URI throw {@link IllegalStateException}. */
    public final boolean isReadOnly()
    {
        return owner instanceof String;
    }

    @Override
    public abstract BaseUri clone();

    /** The wire form, for the message writer: borrowed, never to be modified. */
    public final byte[] wireBytes()
    {
        return wire();
    }

    /** The wire form as text: made once and kept until an edit (a benign race on a shared read-only copy). */
    @Override
    public final String toString()
    {
        String t = text;
        if (null == t)
        {
            t = new String(wire, StandardCharsets.ISO_8859_1);
            text = t;
        }
        return t;
    }

    @Override
    public String getScheme()
    {
        final byte[] wire = wire();
        int colon = 0;
        while (wire[colon] != ':')
        {
            colon++;
        }
        return new String(wire, 0, colon, StandardCharsets.ISO_8859_1);
    }

    @Override
    public boolean isSipURI()
    {
        return false;
    }

    // -------------------------------------------------------------------------------------------------------------
    // Parameters (sip, sips and tel share the flyweight's parameter table; other schemes override)
    // -------------------------------------------------------------------------------------------------------------

    @Override
    public String getParameter(final String name)
    {
        if (null == name)
        {
            return null;
        }
        final SipUriFlyweight f = view(Scratch.get().first);
        final int i = f.paramIndex(UriText.escape(name, UriText.PARAM));
        if (i < 0)
        {
            return null;
        }
        return f.paramHasValue(i) ? UriText.unescape(wire(), f.paramValueStart(i), f.paramValueEnd(i)) : "";
    }

    @Override
    public Iterator<String> getParameterNames()
    {
        final SipUriFlyweight f = view(Scratch.get().first);
        return names(f.paramTable(), f.paramCount());
    }

    /** The unescaped names of a flyweight table (parameters or headers) over this URI's bytes, in order. */
    final Iterator<String> names(final int[] table, final int count)
    {
        if (count == 0)
        {
            return Collections.emptyIterator();
        }
        final List<String> names = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            final int base = i * ParamsComparison.STRIDE;
            names.add(UriText.unescape(wire(), table[base + ParamsComparison.NAME_START],
                table[base + ParamsComparison.NAME_END]));
        }
        return Collections.unmodifiableList(names).iterator();
    }

    /**
     * Equality by the rules of the scheme ({@link #rulesEqual}), for two URIs of the same class; URIs with the same
     * bytes are equal without asking the rules.
     */
    @Override
    public final boolean equals(final Object o)
    {
        if (this == o)
        {
            return true;
        }
        if (!(o instanceof BaseUri other) || other.getClass() != getClass())
        {
            return false;
        }
        if (sameBytes(other))
        {
            return true;
        }
        final Scratch s = Scratch.get();
        return rulesEqual(view(s.first), other.view(s.second));
    }

    @Override
    public abstract int hashCode();

    /** The equality rule of the scheme over two wrapped views, through {@code UriComparison}. */
    abstract boolean rulesEqual(SipUriFlyweight a, SipUriFlyweight b);

    /**
     * Sets a URI parameter: replaced in place when present (first occurrence, name ignoring case), else appended
     * after the last one (an existing name keeps its spelling). Name and value are escaped as RFC 3261 §25.1
     * {@code paramchar} requires. An empty value
     * writes a flag parameter ({@code ;lr}); a null value removes the parameter.
     *
     * @throws IllegalStateException    when this URI belongs to a system header.
     * @throws IllegalArgumentException when the name is null or empty, or the result is not a valid URI.
     */
    @Override
    public void setParameter(final String name, final String value)
    {
        checkParameterWritable(name);
        if (null == name || name.isEmpty())
        {
            throw new IllegalArgumentException("URI parameter name must not be null or empty");
        }
        if (null == value)
        {
            removeParameter(name);
            return;
        }
        final SipUriFlyweight f = view(Scratch.get().first);
        final String escapedName = UriText.escape(name, UriText.PARAM);
        final String assignment = value.isEmpty() ? "" : '=' + UriText.escape(value, UriText.PARAM);
        final int i = f.paramIndex(escapedName);
        if (i >= 0)
        {
            // the name stays as it was written
            replace(f.paramNameEnd(i), paramEntryEnd(f, i), assignment);
        }
        else
        {
            final int at = paramsEnd(f);
            replace(at, at, ';' + escapedName + assignment);
        }
    }

    @Override
    public void removeParameter(final String name)
    {
        checkParameterWritable(name);
        if (null == name)
        {
            return;
        }
        final SipUriFlyweight f = view(Scratch.get().first);
        final int i = f.paramIndex(UriText.escape(name, UriText.PARAM));
        if (i >= 0)
        {
            replace(f.paramNameStart(i) - 1, paramEntryEnd(f, i), "");
        }
    }

    /** Index just after the last parameter: where a new one is inserted. */
    int paramsEnd(final SipUriFlyweight f)
    {
        return wire().length;
    }

    static int paramEntryEnd(final SipUriFlyweight f, final int i)
    {
        return f.paramHasValue(i) ? f.paramValueEnd(i) : f.paramNameEnd(i);
    }

    // -------------------------------------------------------------------------------------------------------------
    // Plumbing for the subclasses
    // -------------------------------------------------------------------------------------------------------------

    /** Wraps {@code f} (one of the thread's scratch views) on this URI; the bytes were validated when set. */
    final SipUriFlyweight view(final SipUriFlyweight f)
    {
        final byte[] wire = wire();
        if (!f.wrap(wire, 0, wire.length))
        {
            throw new IllegalStateException("URI bytes no longer parse: " + f.errorReason());
        }
        return f;
    }

    /**
     * The same bytes: equal without asking the comparison rules. Besides being the fast path, this keeps equality
     * reflexive for a URI that repeats a parameter name (forbidden by RFC 3261 §19.1.1 but accepted by the parser),
     * which {@code ParamsComparison.commonEqual} compares occurrence by occurrence against the first one.
     */
    final boolean sameBytes(final BaseUri other)
    {
        final String t = text;
        final String o = other.text;
        return null != t && null != o ? t.equals(o) : Arrays.equals(wire(), other.wire());
    }

    final void checkWritable()
    {
        if (owner instanceof String systemHeader)
        {
            throw new IllegalStateException(systemHeader + " is a system header and cannot be modified");
        }
    }

    /** {@link #checkWritable}, and what a subclass also refuses of the parameter {@code name}. */
    void checkParameterWritable(final String name)
    {
        checkWritable();
    }

    /**
     * Replaces {@code [start, end)} of the wire form with {@code text} (ASCII, already escaped) and installs the
     * result once it parses as a URI of the same scheme.
     *
     * @throws IllegalArgumentException when the result is not valid; this URI is then unchanged.
     */
    final void replace(final int start, final int end, final String text)
    {
        final byte[] wire = wire();
        final byte[] next = new byte[wire.length - (end - start) + text.length()];
        System.arraycopy(wire, 0, next, 0, start);
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c > 0x7E || c < 0x21)
            {
                throw new IllegalArgumentException("character U+" + Integer.toHexString(c) + " not allowed in a URI");
            }
            next[start + i] = (byte)c;
        }
        System.arraycopy(wire, end, next, start + text.length(), wire.length - end);
        install(next);
    }

    /** Installs a complete new wire form once it parses as a URI of the same scheme. */
    final void install(final byte[] next)
    {
        final SipUriFlyweight check = Scratch.get().second;
        final int scheme = view(Scratch.get().first).scheme();
        if (!check.wrap(next, 0, next.length))
        {
            throw new IllegalArgumentException("not a valid URI: " + check.errorReason() + " at index " +
                check.errorOffset() + " of \"" + new String(next, StandardCharsets.ISO_8859_1) + '"');
        }
        final boolean sip = scheme == SipUriFlyweight.SCHEME_SIP || scheme == SipUriFlyweight.SCHEME_SIPS;
        final boolean nowSip = check.scheme() == SipUriFlyweight.SCHEME_SIP ||
            check.scheme() == SipUriFlyweight.SCHEME_SIPS;
        if (sip != nowSip || (!sip && scheme != check.scheme()))
        {
            throw new IllegalArgumentException("edit would change the URI scheme");
        }
        wire = next;
        text = null;
    }

    /** Bytes of a string known to be ASCII. */
    static byte[] ascii(final String s)
    {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /**
     * Hash of {@code [start, end)} as {@code ParamsComparison.textEquals(..., ignoreCase false, decodeEscapes true)}
     * compares it: an escape {@code %HH} hashes as the character it encodes, except an escaped RFC 3261 §25.1
     * {@code reserved} character, which never equals the bare one and hashes apart. (That rule compares; this only
     * hashes consistently with it.)
     */
    static int hashDecoded(final byte[] b, final int start, final int end, final int seed)
    {
        int h = seed;
        for (int i = start; i < end; i++)
        {
            int c = b[i] & 0xFF;
            if (c == '%' && i + 2 < end)
            {
                final int hi = Character.digit(b[i + 1], 16);
                final int lo = Character.digit(b[i + 2], 16);
                if (hi >= 0 && lo >= 0)
                {
                    c = (hi << 4) | lo;
                    c = RESERVED.indexOf(c) >= 0 ? c | 0x100 : c;
                    i += 2;
                }
            }
            h = 31 * h + c;
        }
        return h;
    }

    /** Hash of {@code [start, end)} ignoring ASCII case. */
    static int hashIgnoreCase(final byte[] b, final int start, final int end, final int seed)
    {
        int h = seed;
        for (int i = start; i < end; i++)
        {
            final int c = b[i];
            h = 31 * h + (c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
        return h;
    }
}
