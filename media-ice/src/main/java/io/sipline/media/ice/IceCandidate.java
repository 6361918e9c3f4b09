package io.sipline.media.ice;

/**
 * One ICE candidate (RFC 8445 §5.1), local or remote, for UDP. Addresses are held inline as primitive fields — an
 * IPv4 address in the low 32 bits of {@code lo}, an IPv6 address as two longs — so a candidate is one object plus
 * its foundation string; no {@link java.net.InetAddress}. A remote candidate may carry an FQDN (an mDNS
 * {@code .local} name, RFC 8839 §5.1) instead, which must be resolved before it can be paired.
 *
 * <p>Three addresses: the transport address itself; the related address of SDP ({@code raddr}/{@code rport},
 * RFC 8839 §5.1); and, for local candidates, the base (RFC 8445 §5.1.1: the host address a reflexive candidate was
 * learnt from; a host or relayed candidate is its own base). Remote candidates have their base set to themselves.
 *
 * <p>Not thread-safe; owned by one media thread. Mutable so that an agent can reuse instances.
 */
public final class IceCandidate
{
    /** No address. */
    public static final byte FAMILY_NONE = 0;
    /** A fully qualified domain name held in a string (e.g. mDNS {@code .local}). */
    public static final byte FAMILY_FQDN = 1;
    /** IPv4, in the low 32 bits of the low word. */
    public static final byte FAMILY_IPV4 = 4;
    /** IPv6, as high and low 64-bit words. */
    public static final byte FAMILY_IPV6 = 6;

    private String foundation;
    private IceCandidateType type;
    private String fqdn;
    private String relatedFqdn;
    /** Raw {@code cand-extension} text after the known fields (e.g. Chrome's {@code generation 0 ufrag x}), or null. */
    private String extensions;
    private long addressHi;
    private long addressLo;
    private long relatedHi;
    private long relatedLo;
    private long baseHi;
    private long baseLo;
    private int priority;
    private short componentId;
    private char port;
    private char relatedPort;
    private char basePort;
    private byte family;
    private byte relatedFamily;
    private byte baseFamily;
    private boolean lowerCaseTransport;

    /**
     * Clears every field (for reuse).
     *
     * @return this.
     */
    public IceCandidate clear()
    {
        foundation = null;
        type = null;
        fqdn = null;
        relatedFqdn = null;
        extensions = null;
        addressHi = addressLo = relatedHi = relatedLo = baseHi = baseLo = 0;
        priority = 0;
        componentId = 0;
        port = relatedPort = basePort = 0;
        family = relatedFamily = baseFamily = FAMILY_NONE;
        lowerCaseTransport = false;
        return this;
    }

    /**
     * Sets the identity fields.
     *
     * @param type        the candidate type.
     * @param componentId 1 (RTP) to 256 (RFC 8445 §5.1.2.1); 2 is RTCP.
     * @param priority    1 to 2^31-1 (RFC 8445 §5.1.2), e.g. from {@link IcePriority#candidate}.
     * @param foundation  1 to 32 ice-chars (RFC 8839 §5.1).
     * @return this.
     */
    public IceCandidate set(final IceCandidateType type, final int componentId, final int priority,
        final String foundation)
    {
        if (componentId < 1 || componentId > 256)
        {
            throw new IllegalArgumentException("component id out of 1..256: " + componentId);
        }
        this.type = type;
        this.componentId = (short) componentId;
        this.priority = priority;
        this.foundation = foundation;
        return this;
    }

    /**
     * Sets the transport address to an IPv4 address; the base is set to the same address (change it with
     * {@link #base}).
     *
     * @param ipv4 the address, network order in an int.
     * @param port 0 to 65535.
     * @return this.
     */
    public IceCandidate ipv4(final int ipv4, final int port)
    {
        return address(FAMILY_IPV4, 0, ipv4 & 0xFFFF_FFFFL, port);
    }

    /**
     * Sets the transport address; the base is set to the same address (change it with {@link #base}).
     *
     * @param family {@link #FAMILY_IPV4} or {@link #FAMILY_IPV6}.
     * @param hi     high 64 bits of an IPv6 address, 0 for IPv4.
     * @param lo     low 64 bits of an IPv6 address, or the IPv4 address in the low 32 bits.
     * @param port   0 to 65535.
     * @return this.
     */
    public IceCandidate address(final byte family, final long hi, final long lo, final int port)
    {
        this.family = family;
        this.addressHi = hi;
        this.addressLo = lo;
        this.port = (char) port;
        this.fqdn = null;
        return base(family, hi, lo, port);
    }

    /**
     * Sets the transport address to a host name (an mDNS name from a browser); such a candidate is not paired until
     * resolved.
     *
     * @param name the name.
     * @param port 0 to 65535.
     * @return this.
     */
    public IceCandidate fqdn(final String name, final int port)
    {
        this.family = FAMILY_FQDN;
        this.addressHi = 0;
        this.addressLo = 0;
        this.port = (char) port;
        this.fqdn = name;
        return base(FAMILY_FQDN, 0, 0, port);
    }

    /**
     * Sets the base (RFC 8445 §5.1.1): for a server-reflexive or peer-reflexive local candidate, the host address
     * the request was sent from.
     *
     * @return this.
     */
    public IceCandidate base(final byte family, final long hi, final long lo, final int port)
    {
        this.baseFamily = family;
        this.baseHi = hi;
        this.baseLo = lo;
        this.basePort = (char) port;
        return this;
    }

    /**
     * Sets the related address written as {@code raddr}/{@code rport}.
     *
     * @return this.
     */
    public IceCandidate related(final byte family, final long hi, final long lo, final int port)
    {
        this.relatedFamily = family;
        this.relatedHi = hi;
        this.relatedLo = lo;
        this.relatedPort = (char) port;
        this.relatedFqdn = null;
        return this;
    }

    /**
     * Sets the related address to a host name.
     *
     * @return this.
     */
    public IceCandidate relatedFqdn(final String name, final int port)
    {
        this.relatedFamily = FAMILY_FQDN;
        this.relatedHi = 0;
        this.relatedLo = 0;
        this.relatedPort = (char) port;
        this.relatedFqdn = name;
        return this;
    }

    /**
     * @param extensions raw {@code cand-extension} pairs, space separated, or null.
     * @return this.
     */
    public IceCandidate extensions(final String extensions)
    {
        this.extensions = extensions;
        return this;
    }

    IceCandidate lowerCaseTransport(final boolean lowerCase)
    {
        this.lowerCaseTransport = lowerCase;
        return this;
    }

    public String foundation()
    {
        return foundation;
    }

    public IceCandidateType type()
    {
        return type;
    }

    public int componentId()
    {
        return componentId;
    }

    /**
     * @return the priority, 1 to 2^31-1.
     */
    public int priority()
    {
        return priority;
    }

    public byte family()
    {
        return family;
    }

    public long addressHi()
    {
        return addressHi;
    }

    public long addressLo()
    {
        return addressLo;
    }

    /**
     * @return the IPv4 address as an int (meaningful for {@link #FAMILY_IPV4} only).
     */
    public int ipv4()
    {
        return (int) addressLo;
    }

    public int port()
    {
        return port;
    }

    /**
     * @return the host name for {@link #FAMILY_FQDN}, else null.
     */
    public String fqdn()
    {
        return fqdn;
    }

    public byte relatedFamily()
    {
        return relatedFamily;
    }

    public long relatedHi()
    {
        return relatedHi;
    }

    public long relatedLo()
    {
        return relatedLo;
    }

    public int relatedPort()
    {
        return relatedPort;
    }

    public String relatedFqdn()
    {
        return relatedFqdn;
    }

    public byte baseFamily()
    {
        return baseFamily;
    }

    public long baseHi()
    {
        return baseHi;
    }

    public long baseLo()
    {
        return baseLo;
    }

    public int basePort()
    {
        return basePort;
    }

    public String extensions()
    {
        return extensions;
    }

    boolean lowerCaseTransport()
    {
        return lowerCaseTransport;
    }

    /**
     * The value of one {@code cand-extension} (e.g. {@code ufrag}, {@code generation}, {@code network-id}).
     * Allocates the returned string; not for the packet path.
     *
     * @param name the extension attribute name, compared exactly.
     * @return its value, or null if absent.
     */
    public String extension(final String name)
    {
        if (extensions == null)
        {
            return null;
        }
        int position = 0;
        final int length = extensions.length();
        while (position < length)
        {
            final int nameEnd = indexOfSpace(extensions, position);
            final int valueEnd = nameEnd < length ? indexOfSpace(extensions, nameEnd + 1) : length;
            if (IceText.regionEquals(extensions, position, nameEnd, name) && nameEnd < length)
            {
                return extensions.substring(nameEnd + 1, valueEnd);
            }
            position = valueEnd + 1;
        }
        return null;
    }

    /**
     * @return whether the transport address is an IPv6 link-local address (fe80::/10).
     */
    public boolean isLinkLocalIpv6()
    {
        return family == FAMILY_IPV6 && (addressHi >>> 54) == (0xFE80L >>> 6);
    }

    /**
     * @param other another candidate.
     * @return whether both have the same transport address (family, address, port; FQDNs compared ignoring case).
     */
    public boolean sameTransportAddress(final IceCandidate other)
    {
        if (family != other.family || port != other.port)
        {
            return false;
        }
        if (family == FAMILY_FQDN)
        {
            return fqdn.equalsIgnoreCase(other.fqdn);
        }
        return addressHi == other.addressHi && addressLo == other.addressLo;
    }

    /**
     * @param other another candidate.
     * @return whether both have the same base transport address (RFC 8445 §6.1.2.4 redundancy).
     */
    public boolean sameBase(final IceCandidate other)
    {
        return baseFamily == other.baseFamily && baseHi == other.baseHi && baseLo == other.baseLo
            && basePort == other.basePort;
    }

    /**
     * @return the {@code candidate:} attribute value (RFC 8839 §5.1), for diagnostics.
     */
    @Override
    public String toString()
    {
        return IceSdp.appendCandidate(new StringBuilder(96), this).toString();
    }

    private static int indexOfSpace(final String text, final int from)
    {
        final int index = text.indexOf(' ', from);
        return index < 0 ? text.length() : index;
    }
}
