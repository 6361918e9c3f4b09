package io.sipline.sip.transport.tcp;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counters of the WebSocket layer of every WS and WSS listener: handshakes, refusals by reason, limits, keep-alives
 * and close codes. The SIP messages these connections carry are counted apart, in the WebSocket listeners'
 * {@link TcpCounters} ({@link TcpShards#webSocketMessageCounters()}). Slots are {@code int} constants, as there.
 *
 * <p>Thread-safe: every shard increments with an atomic add; any thread reads.
 */
public final class WsCounters
{
    /** TCP (or TLS) connections accepted on a WebSocket port. */
    public static final int ACCEPTED = 0;
    /** Upgrades completed (101 Switching Protocols sent). */
    public static final int UPGRADED = 1;
    /** Handshakes refused with 400 for lacking the {@code sip} subprotocol (RFC 7118 §4). */
    public static final int NO_SIP_SUBPROTOCOL = 2;
    /** Handshakes refused with 403 for an Origin not on the allow-list. */
    public static final int ORIGIN_REFUSED = 3;
    /** Handshakes refused with 404 for another path. */
    public static final int PATH_REFUSED = 4;
    /** Other refused requests: not a GET upgrade (400), another WebSocket version (426), undecodable HTTP. */
    public static final int BAD_HANDSHAKE = 5;
    /** Connections closed at accept: the maximum number of connections was reached. */
    public static final int OVER_MAX_CONNECTIONS = 6;
    /** Connections closed at accept: the maximum per IP address was reached. */
    public static final int OVER_MAX_PER_ADDRESS = 7;
    /** Connections closed for not completing the upgrade in time. */
    public static final int HANDSHAKE_TIMEOUTS = 8;
    /** Connections closed with 1009: a frame or a joined message over the maximum. */
    public static final int TOO_BIG = 9;
    /** Connections closed with 1002: an unmasked, reserved, misordered or malformed frame (RFC 6455 §5). */
    public static final int PROTOCOL_ERRORS = 10;
    /** Connections closed because a message was not SIP (no SIP start line). */
    public static final int NOT_SIP = 11;
    /** Pings sent by the server. */
    public static final int PINGS_SENT = 12;
    /** Pongs received. */
    public static final int PONGS = 13;
    /** Pings received (answered with a Pong). */
    public static final int PINGS_RECEIVED = 14;
    /** Close frames received from clients. */
    public static final int CLOSES_RECEIVED = 15;
    /** Connections closed for having sent nothing for the idle time. */
    public static final int IDLE_CLOSED = 16;
    /** Connections closed, for any reason (handshaking or upgraded). */
    public static final int CLOSED = 17;
    /** Connections closed with 1008: a data message not whole within the stream message timeout of its first byte. */
    public static final int MESSAGE_TIMEOUTS = 18;
    /** The number of slots. */
    public static final int SLOTS = 19;

    /** Names as the metrics endpoint shows them, by slot. */
    private static final String[] NAMES = {"accepted", "upgraded", "no_sip_subprotocol", "origin_refused",
        "path_refused", "bad_handshake", "over_max_connections", "over_max_per_address", "handshake_timeouts",
        "too_big", "protocol_errors", "not_sip", "pings_sent", "pongs", "pings_received", "closes_received",
        "idle_closed", "closed", "message_timeouts"};

    private final AtomicLongArray counts = new AtomicLongArray(SLOTS);

    WsCounters()
    {
    }

    void increment(final int slot)
    {
        counts.getAndIncrement(slot);
    }

    /** The current value of one slot; any thread. */
    public long get(final int slot)
    {
        return counts.get(slot);
    }

    /** The snake_case name of a slot, for metrics ({@code "too_big"}). */
    public static String name(final int slot)
    {
        return NAMES[slot];
    }

    @Override
    public String toString()
    {
        final StringBuilder s = new StringBuilder();
        for (int i = 0; i < SLOTS; i++)
        {
            s.append(i == 0 ? "" : " ").append(NAMES[i]).append('=').append(get(i));
        }
        return s.toString();
    }
}
