package io.sipline.container.dispatch;

/**
 * The transports the container sends on, as indexes into its per-transport Via, Contact and port
 * ({@link ShardAddresses}), and the transport a next-hop URI asks for (RFC 3261 §19.1.4, RFC 3263 §4.1).
 * <p>
 * Threading: constants and pure functions; any thread.
 */
final class Transports
{
    static final int UDP = 0;
    static final int TCP = 1;
    static final int TLS = 2;
    /** SIP over WebSocket (RFC 7118 §5.2): only on a connection a client opened, never dialled. */
    static final int WS = 3;
    /** SIP over secure WebSocket (RFC 7118 §5.2). */
    static final int WSS = 4;
    /** No transport asked for by the next-hop URI. */
    static final int NONE = -1;
    /** A transport parameter this container cannot send on (SCTP, ...). */
    static final int UNSUPPORTED = -2;
    /** Transport names as in a Via (RFC 3261 §20.42), by index. */
    static final String[] NAMES = {"UDP", "TCP", "TLS", "WS", "WSS"};
    /**
     * RFC 3261 §18.1.1: with no known path MTU, a request larger than 1300 bytes MUST go on a congestion-controlled
     * transport (TCP), unless the next-hop URI named its transport.
     */
    static final int UDP_SIZE_LIMIT = 1300;

    private Transports()
    {
    }

    /**
     * The transport the next-hop URI asks for (RFC 3261 §19.1.4, RFC 3263 §4.1): its {@code transport} parameter,
     * TLS for a SIPS URI (over TCP: {@code sips:...;transport=tcp} is TLS too; {@code transport=ws} is WSS then),
     * else {@link #NONE}.
     */
    static int asked(final NextHop.Hop hop)
    {
        if (null == hop.transport())
        {
            return hop.sips() ? TLS : NONE;
        }
        final int named = index(hop.transport());
        if (named < 0)
        {
            return UNSUPPORTED;
        }
        if (isWebSocket(named))
        {
            return hop.sips() ? WSS : named; // RFC 7118 §5.2: transport=ws names WS and WSS alike
        }
        return hop.sips() ? TLS : named;
    }

    /** Whether {@code transport} is WebSocket's (WS or WSS): reachable only on the client's own connection. */
    static boolean isWebSocket(final int transport)
    {
        return WS == transport || WSS == transport;
    }

    /**
     * A URI of ours reachable on {@code transport} (our Contact, Record-Route, Path, route back): {@code sip:} with
     * {@code ;transport=tcp} for TCP, {@code sips:} for TLS, {@code sip:} with {@code ;transport=ws} for WS and WSS
     * (RFC 7118 §5.2: one URI parameter value for both), with {@code user@} when given.
     */
    static StringBuilder uri(final StringBuilder b, final int transport, final String user, final String host,
        final int port)
    {
        b.append(TLS == transport ? "sips:" : "sip:");
        if (null != user)
        {
            b.append(user).append('@');
        }
        b.append(host).append(':').append(port);
        if (TCP == transport)
        {
            b.append(";transport=tcp");
        }
        else if (isWebSocket(transport))
        {
            b.append(";transport=ws");
        }
        return b;
    }

    /** {@code udp}, {@code tcp}, {@code tls}, {@code ws}, {@code wss} (any case) as an index; -1 otherwise. */
    static int index(final String name)
    {
        for (int i = 0; i < NAMES.length; i++)
        {
            if (NAMES[i].equalsIgnoreCase(name))
            {
                return i;
            }
        }
        return -1;
    }
}
