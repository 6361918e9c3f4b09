package io.sipline.sip.transport.tcp;

import java.net.InetSocketAddress;

/** A TCP listener could not bind its address:port; nothing was left running. */
public final class TcpBindException extends Exception
{
    private static final long serialVersionUID = 1L;

    private final transient InetSocketAddress endpoint;

    TcpBindException(final InetSocketAddress endpoint, final Throwable cause)
    {
        super("tcp: cannot bind " + endpoint + ": " + (null == cause ? "unknown" : cause.getMessage()), cause);
        this.endpoint = endpoint;
    }

    /** The address:port that failed. */
    public InetSocketAddress endpoint()
    {
        return endpoint;
    }
}
