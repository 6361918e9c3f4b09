package io.sipline.sip.transport.tcp;

import io.netty.handler.ssl.SslContext;

/**
 * How the stack's connections behave (RFC 3261 §18.3 over TCP and TLS): read once by {@link TcpShards}.
 *
 * @param idleMillis           a connection with neither reads nor sends for this long is closed; 0 never.
 * @param maxMessageBytes      the largest message a connection may hold unframed; beyond it the connection closes.
 * @param connectTimeoutMillis how long an outbound connect may take before it fails.
 * @param epoll                native epoll channels (with {@code SO_REUSEPORT} listeners) rather than NIO.
 * @param serverTls            the TLS context of the TLS listeners (certificate and key), or null: no TLS listener.
 * @param clientTls            the TLS context of outbound TLS connections (trust), or null: outbound TLS refused.
 */
public record StreamSettings(long idleMillis, int maxMessageBytes, long connectTimeoutMillis, boolean epoll,
    SslContext serverTls, SslContext clientTls)
{
    /** Validates. */
    public StreamSettings
    {
        if (idleMillis < 0 || connectTimeoutMillis <= 0 || maxMessageBytes < 64)
        {
            throw new IllegalArgumentException("invalid stream settings: idle " + idleMillis + " ms, connect timeout "
                + connectTimeoutMillis + " ms, max message " + maxMessageBytes + " bytes");
        }
    }
}
