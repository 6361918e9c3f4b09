package io.sipline.sip.transport;

import java.io.IOException;
import java.net.InetSocketAddress;

import io.netty.util.NetUtil;

/**
 * A listening address:port could not be bound (in use, not an address of this host, no permission): UDP, and for
 * {@code SipStack} also its TCP and TLS listeners (the message names the transport). Its message is one
 * line naming the address and the cause, fit to show a user as it is:
 * {@code cannot listen on udp 127.0.0.1:5060: Address already in use}.
 *
 * <p>Immutable once thrown.
 */
public final class UdpBindException extends IOException
{
    private static final long serialVersionUID = 1L;

    private final transient InetSocketAddress endpoint;

    UdpBindException(final InetSocketAddress endpoint, final Throwable cause)
    {
        this("udp", endpoint, cause);
    }

    /**
     * The same failure on another transport of the stack: {@code SipStack} listens on TCP and TLS too (RFC 3261 §18:
     * a port is UDP and TCP) and reports their bind failures through this type, so that one {@code catch} covers
     * every listener.
     *
     * @param transport "udp", "tcp" or "tls", as the message shows it.
     */
    public UdpBindException(final String transport, final InetSocketAddress endpoint, final Throwable cause)
    {
        super("cannot listen on " + transport + " " + NetUtil.toSocketAddressString(endpoint) + ": "
            + describe(cause), cause);
        this.endpoint = endpoint;
    }

    /** The address and port that could not be bound. */
    public InetSocketAddress endpoint()
    {
        return endpoint;
    }

    /** The OS's reason without the syscall noise ("bind(..) failed: Address already in use" → the reason). */
    private static String describe(final Throwable cause)
    {
        if (null == cause)
        {
            return "unknown cause";
        }
        String text = cause.getMessage();
        if (null == text || text.isBlank())
        {
            return cause.getClass().getSimpleName();
        }
        final int failed = text.indexOf("failed: ");
        if (failed >= 0)
        {
            text = text.substring(failed + "failed: ".length());
        }
        final int paren = text.indexOf(" (Bind failed)");
        return paren >= 0 ? text.substring(0, paren) : text;
    }
}
