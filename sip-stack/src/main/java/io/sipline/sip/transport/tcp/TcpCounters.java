package io.sipline.sip.transport.tcp;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Counters of one TCP listener, shared by its connections. Slots are {@code int} constants so that counting neither
 * allocates nor branches on an enum.
 *
 * <p>Thread-safe: every loop increments with an atomic add (connections of one listener may live on several loops);
 * any thread reads.
 */
public final class TcpCounters
{
    /** Connections accepted. */
    public static final int ACCEPTED = 0;
    /** Connections closed, for any reason. */
    public static final int CLOSED = 1;
    /** Well-formed requests and responses passed to the handler. */
    public static final int MESSAGES_IN = 2;
    /** Malformed messages (passed to the handler all the same). */
    public static final int PARSE_ERRORS = 3;
    /** RFC 5626 §4.4.1 CRLFCRLF pings answered with a CRLF pong. */
    public static final int PINGS = 4;
    /** Connections closed because a message could not be framed (no Content-Length, unreadable start line). */
    public static final int FRAMING_ERRORS = 5;
    /** Connections closed because an unframed message grew past the maximum message size. */
    public static final int OVERSIZE = 6;
    /** Connections closed after the idle time. */
    public static final int IDLE_CLOSED = 7;
    /** Exceptions caught on a connection (each closes that connection only). */
    public static final int ERRORS = 8;
    /** Messages the handler discarded. */
    public static final int DROPPED = 9;
    /** Buffers released unsent (connection closed or not writable). */
    public static final int SEND_FAILURES = 10;
    /** Buffers handed to a connection to write. */
    public static final int SENT = 11;
    /** Outbound connections established (TCP connected; TLS handshakes are counted by their failures only). */
    public static final int CONNECTED = 12;
    /** Outbound connects that failed (refused, unreachable, timed out). */
    public static final int CONNECT_FAILURES = 13;
    /** STUN messages read where a SIP message would start (Binding requests answered, RFC 5626 §4.4.2). */
    public static final int STUN = 14;
    /** TLS handshakes that failed (each closes its connection). */
    public static final int TLS_FAILURES = 15;
    /**
     * Connections closed because a message was not whole within the message timeout of its first byte, or an
     * accepted connection sent no whole first message (TLS handshake included) within it of its accept.
     */
    public static final int MESSAGE_TIMEOUTS = 16;
    /** Accepted connections closed at once: the listeners' total of open connections was reached. */
    public static final int OVER_MAX_CONNECTIONS = 17;
    /** Accepted connections closed at once: their IP address had the most open connections allowed. */
    public static final int OVER_MAX_PER_ADDRESS = 18;
    /** Connections closed because a message declared a Content-Length beyond the maximum message size. */
    public static final int TOO_LARGE = 19;
    /** The number of slots. */
    public static final int SLOTS = 20;

    private static final String[] NAMES = {"accepted", "closed", "messages_in", "parse_errors", "pings",
        "framing_errors", "oversize", "idle_closed", "errors", "dropped", "send_failures", "sent", "connected",
        "connect_failures", "stun", "tls_failures", "message_timeouts", "over_max_connections",
        "over_max_per_address", "too_large"};

    private final AtomicLongArray counts = new AtomicLongArray(SLOTS);
    /** The first exception counted in {@link #ERRORS}: the count alone does not say what went wrong. */
    private final AtomicReference<Throwable> firstError = new AtomicReference<>();

    TcpCounters()
    {
    }

    void increment(final int slot)
    {
        counts.getAndIncrement(slot);
    }

    /** Counts an exception in {@link #ERRORS}, keeping the first one for {@link #firstError}. */
    void error(final Throwable cause)
    {
        counts.getAndIncrement(ERRORS);
        firstError.compareAndSet(null, cause);
    }

    /** The first exception counted in {@link #ERRORS}, with its stack; null when none. Any thread. */
    public Throwable firstError()
    {
        return firstError.get();
    }

    /** The name of a slot in metrics: lower case with underscores ({@code "message_timeouts"}). */
    public static String name(final int slot)
    {
        return NAMES[slot];
    }

    /** The current value of one slot; any thread. */
    public long get(final int slot)
    {
        return counts.get(slot);
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
