package io.sipline.media.sdp;

/**
 * A {@code c=} line (RFC 8866 §5.7): {@code c=IN IP4 192.0.2.1}. Multicast TTL and address counts are kept in the
 * address text as written.
 *
 * @param addressType {@code IP4} or {@code IP6}.
 * @param address     the unicast address (or, for a multicast one, the address with its {@code /ttl} suffix).
 */
public record SdpConnection(String addressType, String address)
{
    /**
     * Parses the value of a {@code c=} line.
     *
     * @param value for example {@code IN IP4 192.0.2.1}.
     * @return the connection.
     * @throws SdpException when it is not {@code IN IP4|IP6 address}.
     */
    public static SdpConnection parse(final String value)
    {
        final String[] f = value.trim().split(" +");
        if (3 != f.length || !"IN".equals(f[0]) || !("IP4".equals(f[1]) || "IP6".equals(f[1])) || f[2].isEmpty())
        {
            throw new SdpException("c=" + value + ": not 'IN IP4|IP6 address'");
        }
        return new SdpConnection(f[1], f[2]);
    }

    /**
     * @return whether the address is the null address that RFC 3264 §8.4 (hold) and RFC 8839 use.
     */
    public boolean isUnspecified()
    {
        return "0.0.0.0".equals(address) || "::".equals(address);
    }

    /**
     * @param out receives {@code c=IN type address} and CRLF.
     */
    void appendTo(final StringBuilder out)
    {
        out.append("c=IN ").append(addressType).append(' ').append(address).append("\r\n");
    }
}
