package io.sipline.sip.transport.tcp;

import java.io.Serial;
import java.net.InetSocketAddress;

/**
 * The far end of one SIP connection (a "flow", RFC 5626 §3): the peer's address and port, plus the
 * {@link TcpConnection} that reaches it. It is an {@link InetSocketAddress} so that the layers above — transactions
 * keep their peer as an address, listeners get the source of a message — need no second notion of "where a message
 * came from": a request read on a connection has its flow as source, the server transaction keeps it as the
 * destination of its responses, and a response sent there goes back on that connection (RFC 3261 §18.2.2). A plain
 * address means UDP.
 *
 * <p>Equality is the address's ({@link InetSocketAddress#equals} and {@code hashCode} are final), so a flow finds the
 * map entries of its peer's address and the other way round; the connection is not part of it. Code that needs "this
 * very connection" compares flows by identity.
 *
 * <p><b>Ownership and threading.</b> Made once per connection (when the peer's address is known) and immutable; it
 * may be kept and shared by any thread (it is handed between shards with the message it came with). The connection
 * it names may have closed since: {@link TcpConnection#isActive()} says so, and a send on it then fails and is counted.
 */
public final class TcpFlow extends InetSocketAddress
{
    @Serial
    private static final long serialVersionUID = 1L;

    /** Not serialised: a flow names a live connection of this process. */
    private final transient TcpConnection connection;

    TcpFlow(final InetSocketAddress remote, final TcpConnection connection)
    {
        super(remote.getAddress(), remote.getPort());
        this.connection = connection;
    }

    /** The connection this flow runs over (possibly closed by now). */
    public TcpConnection connection()
    {
        return connection;
    }

    /** True when the connection runs TLS (RFC 3261 §26.2: the {@code TLS} transport, {@code sips}). */
    public boolean isTls()
    {
        return connection.isTls();
    }

    /** True when the connection carries SIP over WebSocket (RFC 7118); it can never be opened again from here. */
    public boolean isWebSocket()
    {
        return connection.isWebSocket();
    }

    /** "TCP", "TLS", "WS" or "WSS": the Via transport of this flow (RFC 3261 §18.1.1, RFC 7118 §5.2). */
    public String transport()
    {
        if (connection.isWebSocket())
        {
            return connection.isTls() ? "WSS" : "WS";
        }
        return connection.isTls() ? "TLS" : "TCP";
    }
}
