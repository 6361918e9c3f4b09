package io.sipline.container.address;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import io.sipline.sip.message.SipUriFlyweight;
import io.sipline.sip.message.UriComparison;

/**
 * A URI of any scheme other than sip, sips and tel ({@code mailto:}, {@code urn:}, {@code http:} ...), kept as its
 * wire bytes (see {@link BaseUri}). Only the scheme and the opaque rest are known (RFC 3261 §25.1
 * {@code absoluteURI}); such a URI has no parameters in its text. Parameters the application sets are kept on this
 * object (read back by {@link #getParameter(String)}) but are neither written nor compared, as in the reference
 * container: the JSR 289 {@code URI} javadoc does not let {@code setParameter} refuse.
 *
 * <p>{@link #equals(Object)}: the scheme ignoring case, the rest exactly once escapes of unreserved characters are
 * decoded (RFC 3986 §6.2.2, through {@code UriComparison}); {@link #hashCode()} hashes both the same way.
 *
 * <p>Threading: not thread-safe; one application thread at a time. Read-only copies are immutable.
 */
public final class GenericURIImpl extends BaseUri
{
    /** Parameters set by the application, by name as given; null until the first one. */
    private Map<String, String> parameters;

    GenericURIImpl(final byte[] wire, final String systemHeader)
    {
        super(wire, systemHeader);
    }

    private GenericURIImpl(final byte[] wire, final String systemHeader, final Map<String, String> parameters)
    {
        super(wire, systemHeader);
        this.parameters = null == parameters ? null : new LinkedHashMap<>(parameters);
    }

    @Override
    public GenericURIImpl readOnly(final String header)
    {
        return new GenericURIImpl(wire(), null == header ? "this header" : header, parameters);
    }

    @Override
    public GenericURIImpl clone()
    {
        return new GenericURIImpl(wire(), null, parameters);
    }

    /** A parameter the application set on this object (name ignoring case), or null. */
    @Override
    public String getParameter(final String name)
    {
        final String key = keyOf(name);
        return null == key ? null : parameters.get(key);
    }

    @Override
    public Iterator<String> getParameterNames()
    {
        return null == parameters ? Collections.emptyIterator()
            : Collections.unmodifiableList(new ArrayList<>(parameters.keySet())).iterator();
    }

    /**
     * Keeps the parameter on this object; the URI's text does not change (a generic URI has no parameter syntax).
     * A null value removes it.
     *
     * @throws IllegalStateException when this URI belongs to a system header.
     * @throws NullPointerException  when the name is null.
     */
    @Override
    public void setParameter(final String name, final String value)
    {
        checkWritable();
        if (null == name)
        {
            throw new NullPointerException("name");
        }
        if (null == value)
        {
            removeParameter(name);
            return;
        }
        final String key = keyOf(name);
        if (null == parameters)
        {
            parameters = new LinkedHashMap<>(4);
        }
        parameters.put(null == key ? name : key, value);
    }

    @Override
    public void removeParameter(final String name)
    {
        checkWritable();
        final String key = keyOf(name);
        if (null != key)
        {
            parameters.remove(key);
        }
    }

    /** The name a parameter is kept under, matching {@code name} ignoring case, or null when none does. */
    private String keyOf(final String name)
    {
        if (null == parameters || null == name)
        {
            return null;
        }
        for (final String k : parameters.keySet())
        {
            if (k.equalsIgnoreCase(name))
            {
                return k;
            }
        }
        return null;
    }

    /** Scheme ignoring case, the rest exactly once unreserved escapes are decoded. */
    @Override
    boolean rulesEqual(final SipUriFlyweight a, final SipUriFlyweight b)
    {
        return UriComparison.equals(a, b);
    }

    @Override
    public int hashCode()
    {
        final SipUriFlyweight f = view(Scratch.get().first);
        return hashDecoded(wire(), f.opaqueStart(), f.opaqueEnd(), hashIgnoreCase(wire(), 0, f.schemeEnd(), 7));
    }
}
