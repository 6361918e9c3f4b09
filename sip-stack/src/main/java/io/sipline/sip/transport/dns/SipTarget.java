package io.sipline.sip.transport.dns;

import java.net.InetSocketAddress;

/**
 * One place to send a request to, as RFC 3263 §4 finds it: a transport ({@code "UDP"}, {@code "TCP"} or
 * {@code "TLS"}) and an IP address and port. {@link SipLocator} returns them in the order to try (§4.3: on a failure
 * the client moves on to the next).
 *
 * @param transport the Via transport to use.
 * @param address   resolved address and port.
 */
public record SipTarget(String transport, InetSocketAddress address)
{
    /** Validates. */
    public SipTarget
    {
        if (null == transport || null == address || address.isUnresolved())
        {
            throw new IllegalArgumentException("a target needs a transport and a resolved address");
        }
    }
}
