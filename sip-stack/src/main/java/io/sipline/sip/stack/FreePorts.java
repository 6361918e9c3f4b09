package io.sipline.sip.stack;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;

/**
 * Turns the "any free port" (0) entries of a port list into port numbers that are free for UDP <em>and</em> TCP on
 * every listening address, because the stack listens on both with one number (RFC 3261 §18). The kernel picks a UDP
 * port; it is kept when the same number can be bound for TCP on every address, else another is picked. A port picked
 * here can still be taken by someone else before the stack binds it: {@link SipStack#start} then tries again.
 *
 * <p>Stateless; any thread. Used at start only (it opens and closes sockets).
 */
final class FreePorts
{
    /** How many kernel picks one 0 entry may take (a collision with a TCP socket on the same number is rare). */
    private static final int PICKS = 64;

    private FreePorts()
    {
    }

    /**
     * @param ports     the configured ports; entries other than 0 are returned as they are.
     * @param addresses the addresses every port is bound on.
     * @param tcp       whether TCP must be free too; when false the 0 entries stay 0 (the kernel picks per bind).
     * @return a new array.
     * @throws IOException when no port could be found (or the first address cannot be bound at all).
     */
    static int[] resolve(final int[] ports, final List<InetAddress> addresses, final boolean tcp) throws IOException
    {
        final int[] resolved = ports.clone();
        if (!tcp || addresses.isEmpty())
        {
            return resolved;
        }
        for (int i = 0; i < resolved.length; i++)
        {
            if (0 == resolved[i])
            {
                resolved[i] = pick(addresses, resolved, i);
            }
        }
        return resolved;
    }

    private static int pick(final List<InetAddress> addresses, final int[] taken, final int upTo) throws IOException
    {
        IOException last = null;
        for (int attempt = 0; attempt < PICKS; attempt++)
        {
            final int port;
            try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(addresses.get(0), 0)))
            {
                port = probe.getLocalPort();
            }
            if (!pickedBefore(taken, upTo, port) && freeEverywhere(addresses, port))
            {
                return port;
            }
            last = new IOException("port " + port + " is taken for TCP or on another address");
        }
        throw new IOException("no port free for both UDP and TCP after " + PICKS + " tries", last);
    }

    private static boolean pickedBefore(final int[] taken, final int upTo, final int port)
    {
        for (int i = 0; i < upTo; i++)
        {
            if (taken[i] == port)
            {
                return true;
            }
        }
        return false;
    }

    private static boolean freeEverywhere(final List<InetAddress> addresses, final int port)
    {
        for (final InetAddress address : addresses)
        {
            final InetSocketAddress endpoint = new InetSocketAddress(address, port);
            try (DatagramSocket udp = new DatagramSocket(null); ServerSocket tcp = new ServerSocket())
            {
                udp.setReuseAddress(false);
                udp.bind(endpoint);
                tcp.setReuseAddress(true);
                tcp.bind(endpoint);
            }
            catch (final IOException e)
            {
                return false;
            }
        }
        return true;
    }
}
