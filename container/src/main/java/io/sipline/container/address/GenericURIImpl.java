package io.sipline.container.address;

import java.util.Collections;
import java.util.Iterator;

import io.sipline.sip.message.SipUriFlyweight;
import io.sipline.sip.message.UriComparison;

/**
 * A URI of any scheme other than sip, sips and tel ({@code mailto:}, {@code urn:}, {@code http:} ...), kept as its
 * wire bytes (see {@link BaseUri}). Only the scheme and the opaque rest are known (RFC 3261 §25.1
 * {@code absoluteURI}); such a URI has no parameters in the JSR 289 sense: {@link #getParameter(String)} returns
 * null and {@link #setParameter(String, String)} is refused.
 *
 * <p>{@link #equals(Object)}: the scheme ignoring case, the rest exactly once escapes of unreserved characters are
 * decoded (RFC 3986 §6.2.2, through {@code UriComparison}); {@link #hashCode()} hashes both the same way.
 *
 * <p>Threading: not thread-safe; one application thread at a time. Read-only copies are immutable.
 */
public final class GenericURIImpl extends BaseUri
{
    GenericURIImpl(final byte[] wire, final String systemHeader)
    {
        super(wire, systemHeader);
    }

    @Override
    public GenericURIImpl readOnly(final String header)
    {
        return new GenericURIImpl(wire, null == header ? "this header" : header);
    }

    @Override
    public GenericURIImpl clone()
    {
        return new GenericURIImpl(wire, null);
    }

    @Override
    public String getParameter(final String name)
    {
        return null;
    }

    @Override
    public Iterator<String> getParameterNames()
    {
        return Collections.emptyIterator();
    }

    /** @throws UnsupportedOperationException always: parameters are defined for sip, sips and tel URIs only. */
    @Override
    public void setParameter(final String name, final String value)
    {
        checkWritable();
        throw new UnsupportedOperationException(getScheme() + " URIs have no parameters");
    }

    /** Nothing to remove: parameters are defined for sip, sips and tel URIs only. */
    @Override
    public void removeParameter(final String name)
    {
        checkWritable();
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
        return hashDecoded(wire, f.opaqueStart(), f.opaqueEnd(), hashIgnoreCase(wire, 0, f.schemeEnd(), 7));
    }
}
