package io.sipline.sip.transport.tcp;

import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The connections of WebSocket clients by the host of their Contact. RFC 7118 §5 clients register a Contact such as
 * {@code sip:k4t9@df7jal23ls0d.invalid;transport=ws}: a host that resolves nowhere, reachable only through the
 * connection the client opened. A request to such a URI (a call to a registered WS user, an in-dialog request to
 * its remote target) finds that connection here, on whichever shard holds it; when it is gone there is none, and
 * the sender answers 430 Flow Failed (RFC 5626 §5.3).
 *
 * <p>Learned from the Contact of each request read on a WebSocket connection whose host ends in {@code .invalid}
 * ({@link TcpShardConnections#learnWebSocketContact}); forgotten when the connection closes.
 *
 * <p><b>Threading.</b> One per stack, shared by its shards: a {@link ConcurrentHashMap}, written when a client's
 * Contact host first appears on a connection or the connection closes, read per request routed to such a host.
 */
public final class WsContacts
{
    private final ConcurrentHashMap<String, TcpConnection> byHost = new ConcurrentHashMap<>();
    private final FlowTokens tokens;

    WsContacts()
    {
        this(1);
    }

    WsContacts(final int shards)
    {
        tokens = new FlowTokens(shards);
    }

    /** The RFC 5626 flow tokens of the same connections, for the Record-Route and Path of an edge proxy. */
    public FlowTokens flowTokens()
    {
        return tokens;
    }

    /** Binds a lower-case Contact host to a connection; the connection's earlier host, if another, is dropped. */
    void bind(final String host, final TcpConnection connection)
    {
        final String old = connection.contactHost();
        if (null != old && !old.equals(host))
        {
            byHost.remove(old, connection);
        }
        connection.contactHost(host);
        byHost.put(host, connection);
    }

    /** A connection closed: its host leaves, unless another connection of the client took it meanwhile. */
    void forget(final TcpConnection connection)
    {
        final String host = connection.contactHost();
        if (null != host)
        {
            byHost.remove(host, connection);
        }
    }

    /**
     * The flow to reach a WebSocket client by its Contact host (case-insensitive), or null when no open connection
     * has that host. Any thread.
     */
    public TcpFlow flowFor(final String host)
    {
        final TcpConnection connection = byHost.get(host.toLowerCase(Locale.ROOT));
        return null == connection || !connection.isActive() ? null : connection.flow();
    }

    /** Contact hosts known now (racy; for metrics and tests). */
    public int size()
    {
        return byHost.size();
    }
}
