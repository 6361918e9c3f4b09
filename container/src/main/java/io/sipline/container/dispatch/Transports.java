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
    /** No transport asked for by the next-hop URI. */
    static final int NONE = -1;
    /** A transport parameter this container cannot send on (SCTP, WS, ...). */
    static final int UNSUPPORTED = -2;
    /** Transport names as in a Via (RFC 3261 §20.42), by index. */
    static final String[] NAMES = {"UDP", "TCP", "TLS"};
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
     * TLS for a SIPS URI (over TCP: {@code sips:...;transport=tcp} is TLS too), else {@link #NONE}.
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
        return hop.sips() ? TLS : named;
    }

    /** {@code udp}, {@code tcp}, {@code tls} (any case) as an index; -1 for anything else. */
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
