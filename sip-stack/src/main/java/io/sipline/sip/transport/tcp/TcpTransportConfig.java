package io.sipline.sip.transport.tcp;

import java.net.InetSocketAddress;

/**
 * How to run one TCP listener.
 *
 * @param bind            the address:port to listen on; port 0 lets the kernel pick
 *                        ({@link TcpTransport#localAddress()}).
 * @param threads         event-loop threads serving the accepted connections (at least 1).
 * @param idleMillis      a connection with neither reads nor writes for this long is closed; 0 disables.
 * @param maxMessageBytes the largest message (headers and body) a connection may hold unframed; beyond it the
 *                        connection is closed.
 * @param nativeTransport use native epoll when available (NIO otherwise).
 */
public record TcpTransportConfig(InetSocketAddress bind, int threads, long idleMillis, int maxMessageBytes,
    boolean nativeTransport)
{
    /** 64 KiB + 4 KiB: the parser's own ceiling ({@code SipMessageParser.MAX_MESSAGE_BYTES}). */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 65_535 + 4096;
    /** RFC 5626 §4.4.1 suggests keep-alives every 95-120 s; give clients two rounds. */
    public static final long DEFAULT_IDLE_MILLIS = 300_000;

    /** Validates. */
    public TcpTransportConfig
    {
        if (null == bind)
        {
            throw new IllegalArgumentException("bind address required");
        }
        if (threads < 1)
        {
            throw new IllegalArgumentException("threads must be at least 1: " + threads);
        }
        if (idleMillis < 0)
        {
            throw new IllegalArgumentException("idleMillis must not be negative: " + idleMillis);
        }
        if (maxMessageBytes < 64)
        {
            throw new IllegalArgumentException("maxMessageBytes too small: " + maxMessageBytes);
        }
    }

    /** One thread, default idle time and size, epoll when available. */
    public static TcpTransportConfig of(final InetSocketAddress bind)
    {
        return new TcpTransportConfig(bind, 1, DEFAULT_IDLE_MILLIS, DEFAULT_MAX_MESSAGE_BYTES, true);
    }
}
