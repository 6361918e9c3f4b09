package io.sipline.media.stun;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * A reusable holder for the transport address carried by MAPPED-ADDRESS and the XOR-*-ADDRESS attributes: family,
 * port and the 4 or 16 address bytes, already un-XORed. One instance per owner, filled again and again by
 * {@link StunMessageFlyweight#readAddress(int, StunAddress)}; nothing here is allocated per message except by
 * {@link #toInetSocketAddress()} and by {@link #set(InetSocketAddress)} when the {@link InetAddress} changes.
 *
 * <p>Not thread-safe; owned by one media thread.
 */
public final class StunAddress
{
    /** Address family 0x01 (RFC 8489 §14.1). */
    public static final int FAMILY_IPV4 = 0x01;
    /** Address family 0x02 (RFC 8489 §14.1). */
    public static final int FAMILY_IPV6 = 0x02;

    private final byte[] address = new byte[16];
    private int family;
    private int port;
    private InetAddress cachedInetAddress;

    /**
     * @return {@link #FAMILY_IPV4}, {@link #FAMILY_IPV6}, or 0 when empty.
     */
    public int family()
    {
        return family;
    }

    /**
     * @return the port, 0-65535.
     */
    public int port()
    {
        return port;
    }

    /**
     * @return 4 or 16, or 0 when empty.
     */
    public int addressLength()
    {
        return FAMILY_IPV4 == family ? 4 : FAMILY_IPV6 == family ? 16 : 0;
    }

    /**
     * @param index 0 to {@link #addressLength()} - 1.
     * @return that address byte, 0-255.
     */
    public int addressByte(final int index)
    {
        return address[index] & 0xFF;
    }

    /**
     * @return the IPv4 address as a big-endian int (meaningful for {@link #FAMILY_IPV4}).
     */
    public int ipv4()
    {
        return ((address[0] & 0xFF) << 24) | ((address[1] & 0xFF) << 16) | ((address[2] & 0xFF) << 8)
            | (address[3] & 0xFF);
    }

    /**
     * Empties the holder.
     *
     * @return this.
     */
    public StunAddress clear()
    {
        family = 0;
        port = 0;
        cachedInetAddress = null;
        return this;
    }

    /**
     * @param ipv4 big-endian address.
     * @param port 0-65535.
     * @return this.
     */
    public StunAddress setIpv4(final int ipv4, final int port)
    {
        family = FAMILY_IPV4;
        this.port = port & 0xFFFF;
        address[0] = (byte)(ipv4 >>> 24);
        address[1] = (byte)(ipv4 >>> 16);
        address[2] = (byte)(ipv4 >>> 8);
        address[3] = (byte)ipv4;
        cachedInetAddress = null;
        return this;
    }

    /**
     * @param bytes  array holding 16 address bytes (borrowed, copied).
     * @param offset where they start.
     * @param port   0-65535.
     * @return this.
     */
    public StunAddress setIpv6(final byte[] bytes, final int offset, final int port)
    {
        family = FAMILY_IPV6;
        this.port = port & 0xFFFF;
        System.arraycopy(bytes, offset, address, 0, 16);
        cachedInetAddress = null;
        return this;
    }

    /**
     * Copies a socket address in. {@link InetAddress#getAddress()} clones its bytes, so this allocates once per
     * distinct {@link InetAddress} instance; the same instance again (the JDK's {@code DatagramChannel} hands back
     * its cached sender while the peer stays the same) costs nothing.
     *
     * @param socketAddress resolved address (borrowed).
     * @return this.
     */
    public StunAddress set(final InetSocketAddress socketAddress)
    {
        final InetAddress inetAddress = socketAddress.getAddress();
        port = socketAddress.getPort();
        if (inetAddress != cachedInetAddress)
        {
            final byte[] raw = inetAddress.getAddress();
            family = 4 == raw.length ? FAMILY_IPV4 : FAMILY_IPV6;
            System.arraycopy(raw, 0, address, 0, raw.length);
            cachedInetAddress = inetAddress;
        }
        return this;
    }

    /**
     * Copies another holder's value.
     *
     * @param other the source.
     * @return this.
     */
    public StunAddress copyFrom(final StunAddress other)
    {
        family = other.family;
        port = other.port;
        System.arraycopy(other.address, 0, address, 0, 16);
        cachedInetAddress = other.cachedInetAddress;
        return this;
    }

    /**
     * @param other another holder.
     * @return true when family, port and address are equal.
     */
    public boolean sameAs(final StunAddress other)
    {
        if (family != other.family || port != other.port)
        {
            return false;
        }
        for (int i = 0, n = addressLength(); i < n; i++)
        {
            if (address[i] != other.address[i])
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Builds a JDK socket address (allocates; for setup and tests, not the per-packet path).
     *
     * @return the address, or null when empty.
     */
    public InetSocketAddress toInetSocketAddress()
    {
        if (0 == family)
        {
            return null;
        }
        try
        {
            final byte[] raw = new byte[addressLength()];
            System.arraycopy(address, 0, raw, 0, raw.length);
            return new InetSocketAddress(InetAddress.getByAddress(raw), port);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException(ex); // unreachable: 4 or 16 bytes
        }
    }

    void put(final int index, final int value)
    {
        address[index] = (byte)value;
    }

    void setFamilyAndPort(final int family, final int port)
    {
        this.family = family;
        this.port = port;
        cachedInetAddress = null;
    }

    @Override
    public String toString()
    {
        final InetSocketAddress a = toInetSocketAddress();
        return null == a ? "(empty)" : a.toString();
    }
}
