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
 * @param messageTimeoutMillis a message must be whole (headers and body) within this long of its first byte, and an
 *                             accepted connection must have sent its first whole message (after any TLS handshake)
 *                             within this long of its accept; else the connection closes; 0 never.
 * @param maxConnections       accepted TCP and TLS connections open at once over all listeners; 0: no limit.
 * @param maxPerAddress        accepted TCP and TLS connections open at once from one IP address; 0: no limit.
 */
public record StreamSettings(long idleMillis, int maxMessageBytes, long connectTimeoutMillis, boolean epoll,
    SslContext serverTls, SslContext clientTls, long messageTimeoutMillis, int maxConnections, int maxPerAddress)
{
    /**
     * Slowloris and headers that never end: 10 s for a message (at most 69 KB) to arrive whole, as long as a
     * WebSocket client has for its handshake ({@link WsSettings#DEFAULT_HANDSHAKE_MILLIS}).
     */
    public static final long DEFAULT_MESSAGE_TIMEOUT_MILLIS = 10_000;
    /** Accepted TCP and TLS connections in all: a large registrar's clients, far below the descriptor limit. */
    public static final int DEFAULT_MAX_CONNECTIONS = 20_000;
    /** As WebSocket's ({@link WsSettings#DEFAULT_MAX_PER_ADDRESS}): a NAT'ed office, not a host opening thousands. */
    public static final int DEFAULT_MAX_PER_ADDRESS = WsSettings.DEFAULT_MAX_PER_ADDRESS;

    /** Validates. */
    public StreamSettings
    {
        if (idleMillis < 0 || connectTimeoutMillis <= 0 || maxMessageBytes < 64 || messageTimeoutMillis < 0
            || maxConnections < 0 || maxPerAddress < 0)
        {
            throw new IllegalArgumentException("invalid stream settings: idle " + idleMillis + " ms, connect timeout "
                + connectTimeoutMillis + " ms, max message " + maxMessageBytes + " bytes, message timeout "
                + messageTimeoutMillis + " ms, connections " + maxConnections + "/" + maxPerAddress + " per address");
        }
    }

    /** With the default message timeout and connection limits. */
    public StreamSettings(final long idleMillis, final int maxMessageBytes, final long connectTimeoutMillis,
        final boolean epoll, final SslContext serverTls, final SslContext clientTls)
    {
        this(idleMillis, maxMessageBytes, connectTimeoutMillis, epoll, serverTls, clientTls,
            DEFAULT_MESSAGE_TIMEOUT_MILLIS, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_PER_ADDRESS);
    }
}
