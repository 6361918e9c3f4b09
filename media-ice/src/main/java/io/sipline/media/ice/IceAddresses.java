package io.sipline.media.ice;

import io.sipline.media.stun.StunAddress;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * Conversions between the three address forms ICE code meets: {@link IceCandidate}'s inline (family, hi, lo, port),
 * {@link StunAddress} (the STUN codec's holder) and the JDK's {@link InetSocketAddress} (the socket API). Conversions
 * to JDK objects allocate and belong on setup paths; comparisons allocate nothing.
 *
 * <p>Stateless; thread-safe.
 */
final class IceAddresses
{
    private IceAddresses()
    {
    }

    /** Sets a candidate's transport address from a JDK address (allocates the address bytes). */
    static IceCandidate setAddress(final IceCandidate candidate, final InetSocketAddress address)
    {
        final byte[] raw = address.getAddress().getAddress();
        return candidate.address(family(raw), hi(raw), lo(raw), address.getPort());
    }

    /** Sets a candidate's transport address from a STUN address holder. */
    static IceCandidate setAddress(final IceCandidate candidate, final StunAddress address)
    {
        return candidate.address(family(address), hi(address), lo(address), address.port());
    }

    /** Sets a candidate's base from a JDK address. */
    static IceCandidate setBase(final IceCandidate candidate, final InetSocketAddress address)
    {
        final byte[] raw = address.getAddress().getAddress();
        return candidate.base(family(raw), hi(raw), lo(raw), address.getPort());
    }

    /** Sets a candidate's related address from a JDK address. */
    static IceCandidate setRelated(final IceCandidate candidate, final InetSocketAddress address)
    {
        final byte[] raw = address.getAddress().getAddress();
        return candidate.related(family(raw), hi(raw), lo(raw), address.getPort());
    }

    /** Sets a candidate's related address from a STUN address holder. */
    static IceCandidate setRelated(final IceCandidate candidate, final StunAddress address)
    {
        return candidate.related(family(address), hi(address), lo(address), address.port());
    }

    /** The candidate's transport address as a JDK address (allocates), or null for an FQDN candidate. */
    static InetSocketAddress toInet(final IceCandidate candidate)
    {
        final byte[] raw;
        if (IceCandidate.FAMILY_IPV4 == candidate.family())
        {
            raw = new byte[4];
            putLong(raw, 0, candidate.addressLo() << 32, 4);
        }
        else if (IceCandidate.FAMILY_IPV6 == candidate.family())
        {
            raw = new byte[16];
            putLong(raw, 0, candidate.addressHi(), 8);
            putLong(raw, 8, candidate.addressLo(), 8);
        }
        else
        {
            return null;
        }
        try
        {
            return new InetSocketAddress(InetAddress.getByAddress(raw), candidate.port());
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException(ex); // unreachable: 4 or 16 bytes
        }
    }

    /** Whether a STUN address holder and a candidate name the same transport address (no allocation). */
    static boolean same(final StunAddress address, final IceCandidate candidate)
    {
        return address.port() == candidate.port() && family(address) == candidate.family()
            && hi(address) == candidate.addressHi() && lo(address) == candidate.addressLo();
    }

    /** Whether a JDK address (IPv4 only without allocation) and a candidate name the same transport address. */
    static boolean same(final InetSocketAddress address, final IceCandidate candidate)
    {
        if (address.getPort() != candidate.port())
        {
            return false;
        }
        if (address.getAddress() instanceof Inet4Address v4)
        {
            return IceCandidate.FAMILY_IPV4 == candidate.family() && 0 == candidate.addressHi()
                && (v4.hashCode() & 0xFFFF_FFFFL) == candidate.addressLo(); // Inet4Address.hashCode is the address
        }
        final byte[] raw = address.getAddress().getAddress();
        return IceCandidate.FAMILY_IPV6 == candidate.family() && hi(raw) == candidate.addressHi()
            && lo(raw) == candidate.addressLo();
    }

    private static byte family(final byte[] raw)
    {
        return 4 == raw.length ? IceCandidate.FAMILY_IPV4 : IceCandidate.FAMILY_IPV6;
    }

    private static byte family(final StunAddress address)
    {
        return StunAddress.FAMILY_IPV4 == address.family() ? IceCandidate.FAMILY_IPV4 : IceCandidate.FAMILY_IPV6;
    }

    private static long hi(final byte[] raw)
    {
        return 4 == raw.length ? 0 : getLong(raw, 0, 8);
    }

    private static long lo(final byte[] raw)
    {
        return 4 == raw.length ? getLong(raw, 0, 4) : getLong(raw, 8, 8);
    }

    private static long hi(final StunAddress address)
    {
        if (StunAddress.FAMILY_IPV4 == address.family())
        {
            return 0;
        }
        long v = 0;
        for (int i = 0; i < 8; i++)
        {
            v = (v << 8) | address.addressByte(i);
        }
        return v;
    }

    private static long lo(final StunAddress address)
    {
        if (StunAddress.FAMILY_IPV4 == address.family())
        {
            return address.ipv4() & 0xFFFF_FFFFL;
        }
        long v = 0;
        for (int i = 8; i < 16; i++)
        {
            v = (v << 8) | address.addressByte(i);
        }
        return v;
    }

    private static long getLong(final byte[] raw, final int from, final int count)
    {
        long v = 0;
        for (int i = from; i < from + count; i++)
        {
            v = (v << 8) | (raw[i] & 0xFF);
        }
        return v;
    }

    private static void putLong(final byte[] raw, final int at, final long value, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            raw[at + i] = (byte) (value >>> (56 - 8 * i));
        }
    }
}
