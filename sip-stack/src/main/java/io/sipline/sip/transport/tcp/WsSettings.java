package io.sipline.sip.transport.tcp;

import java.util.Set;

/**
 * How the SIP-over-WebSocket listeners behave (RFC 7118 over RFC 6455): read once by {@link TcpShards}.
 *
 * @param path             the only request-target served (e.g. {@code "/"} or {@code "/sip"}), or null: any path.
 * @param origins          the {@code Origin} values allowed (RFC 6455 §10.2), exact and case-sensitive, or null: any
 *                         origin, and none. A handshake whose Origin is not listed is refused with 403.
 * @param maxMessageBytes  the largest SIP message, after fragments are joined; beyond it close code 1009.
 * @param maxFrameBytes    the largest payload of one frame; beyond it close code 1009.
 * @param maxConnections   open WebSocket connections (handshaking or upgraded) over all listeners; 0: no limit.
 * @param maxPerAddress    open connections from one IP address; 0: no limit.
 * @param pingMillis       a Ping is sent after this long without a frame from the client; 0: never.
 * @param idleMillis       a connection without a frame from the client for this long is closed; 0: never.
 * @param handshakeMillis  a connection not upgraded after this long (from its accept) is closed.
 */
public record WsSettings(String path, Set<String> origins, int maxMessageBytes, int maxFrameBytes,
    int maxConnections, int maxPerAddress, long pingMillis, long idleMillis, long handshakeMillis)
{
    /** RFC 7118 §5 sets no size; 64 KiB is what Kamailio and browsers' SIP stacks stay under. */
    public static final int DEFAULT_MAX_BYTES = 65_536;
    /** RFC 5626 §4.4.1 keep-alive periods are 95-120 s for connections; a Ping at 30 s keeps NAT bindings open. */
    public static final long DEFAULT_PING_MILLIS = 30_000;
    /** Two missed keep-alive rounds of an RFC 5626 client. */
    public static final long DEFAULT_IDLE_MILLIS = 300_000;
    /** Time a client has, from its TCP (or TLS) accept, to complete the HTTP upgrade. */
    public static final long DEFAULT_HANDSHAKE_MILLIS = 10_000;
    /** Per-address default: generous for a NAT in front of an office, small against one host opening thousands. */
    public static final int DEFAULT_MAX_PER_ADDRESS = 1_000;
    /** As TCP's total (StreamSettings): a flood of idle connections meets a bound before the file descriptors. */
    public static final int DEFAULT_MAX_CONNECTIONS = 20_000;

    /** Validates; the origin set is copied. */
    public WsSettings
    {
        if (null != path && !path.startsWith("/"))
        {
            throw new IllegalArgumentException("WebSocket path must start with '/': " + path);
        }
        if (maxMessageBytes < 64 || maxFrameBytes < 64 || maxConnections < 0 || maxPerAddress < 0 || pingMillis < 0
            || idleMillis < 0 || handshakeMillis <= 0)
        {
            throw new IllegalArgumentException("invalid WebSocket settings: max message " + maxMessageBytes
                + ", max frame " + maxFrameBytes + ", connections " + maxConnections + "/" + maxPerAddress
                + " per address, ping " + pingMillis + " ms, idle " + idleMillis + " ms, handshake "
                + handshakeMillis + " ms");
        }
        origins = null == origins ? null : Set.copyOf(origins);
    }

    /** Any path, any origin, 64 KiB, no connection limit but the per-address default, default timers. */
    public static WsSettings defaults()
    {
        return new WsSettings(null, null, DEFAULT_MAX_BYTES, DEFAULT_MAX_BYTES, DEFAULT_MAX_CONNECTIONS,
            DEFAULT_MAX_PER_ADDRESS, DEFAULT_PING_MILLIS, DEFAULT_IDLE_MILLIS, DEFAULT_HANDSHAKE_MILLIS);
    }
}
