package io.sipline.container.api;

import java.net.InetSocketAddress;

/**
 * Where and how a request the container sends went (RFC 3261 §18.1.1): the branch of its Via, the transport and the
 * destination. All that an ACK needs (it is resent as it went when the 2xx comes again, RFC 3261 §13.2.2.4), so an
 * ACK keeps this alone; any other request keeps a {@link ClientLeg}, which adds the transaction's links. The
 * transport is a number beside the branch's origin, not a reference, so that the object ends on an 8-byte step
 * (24 B with compact object headers).
 * <p>
 * Threading: owned by its request (see {@link SipServletMessageImpl}).
 */
class SentLeg
{
    /** The transports a request goes on, by the number {@link #sentTransport} keeps (less one). */
    private static final String[] TRANSPORTS = {"UDP", "TCP", "TLS", "WS", "WSS"};

    /**
     * The branch of our Via once sent (a CANCEL reuses it, RFC 3261 §9.1), as the random part of its id
     * ({@code ShardIds.nextRandom}), -1 before it is sent, and the shard and node it encodes.
     */
    long branchRandom = -1;
    char branchOrigin;
    /** The transport the request was sent on (RFC 3261 §18.1.1): 1 + its index in {@link #TRANSPORTS}, 0 before. */
    byte sentTransport;
    InetSocketAddress destination;

    /** The transport's name as {@link #sentTransport(String)} took it, or null before the request was sent. */
    final String sentTransport()
    {
        return 0 == sentTransport ? null : TRANSPORTS[sentTransport - 1];
    }

    /**
     * Keeps the transport the request was sent on.
     *
     * @param name one of UDP, TCP, TLS, WS, WSS (any case), or null (not sent).
     * @throws IllegalArgumentException for any other name.
     */
    final void sentTransport(final String name)
    {
        if (null == name)
        {
            sentTransport = 0;
            return;
        }
        for (int i = 0; i < TRANSPORTS.length; i++)
        {
            if (TRANSPORTS[i].equalsIgnoreCase(name))
            {
                sentTransport = (byte)(i + 1);
                return;
            }
        }
        throw new IllegalArgumentException("not a transport a request is sent on: " + name);
    }

    /** The same branch, transport and destination in {@code to}. */
    final void copyTo(final SentLeg to)
    {
        to.branchRandom = branchRandom;
        to.branchOrigin = branchOrigin;
        to.sentTransport = sentTransport;
        to.destination = destination;
    }
}
