package io.sipline.media.relay;

import java.net.Inet4Address;
import java.net.InetAddress;

/**
 * How the relay opens its media sockets: the UDP port range, the address they bind, the address written into SDP
 * (for a relay behind NAT, the public one), the number of media threads and the idle time after which a stream with
 * no packet is reported.
 *
 * @param portMin       lowest port, 1024 to 65534; RTP takes even ports and RTCP the odd one above (RFC 3550 §11).
 * @param portMax       highest port, at least {@code portMin + 1}.
 * @param bind          the address the sockets bind (a wildcard binds all).
 * @param advertise     the address given to peers in {@code c=} lines; when null, {@code bind} unless it is a
 *                      wildcard, else the local host's address.
 * @param threads       media threads, each owning its sockets; 1 to 256.
 * @param idleTimeoutMs a stream with no packet either way for this long is reported idle; 0 turns it off.
 */
public record MediaRelaySettings(int portMin, int portMax, InetAddress bind, InetAddress advertise, int threads,
    long idleTimeoutMs)
{
    /** Default lowest port. */
    public static final int PORT_MIN_DEFAULT = 20000;
    /** Default highest port. */
    public static final int PORT_MAX_DEFAULT = 29999;
    /** Default idle time: 30 s, well past a hold's silence suppression but short enough to free a dead call. */
    public static final long IDLE_TIMEOUT_MS_DEFAULT = 30_000;

    /**
     * @param portMin       lowest port.
     * @param portMax       highest port.
     * @param bind          bind address.
     * @param advertise     advertised address or null.
     * @param threads       media threads.
     * @param idleTimeoutMs idle time, 0 for none.
     * @throws IllegalArgumentException naming what is out of range.
     */
    public MediaRelaySettings
    {
        if (portMin < 1024 || portMax > 65535 || portMax < portMin + 1)
        {
            throw new IllegalArgumentException("media ports " + portMin + "-" + portMax +
                ": need a range within 1024-65535 holding at least one even/odd pair");
        }
        if (null == bind)
        {
            throw new IllegalArgumentException("media bind address is missing");
        }
        if (threads < 1 || threads > 256)
        {
            throw new IllegalArgumentException("media threads " + threads + " is not within 1-256");
        }
        if (idleTimeoutMs < 0)
        {
            throw new IllegalArgumentException("media idle timeout must not be negative: " + idleTimeoutMs);
        }
        if (null != advertise && advertise.isAnyLocalAddress())
        {
            throw new IllegalArgumentException("media advertised address " + advertise.getHostAddress() +
                " is a wildcard; peers cannot send to it");
        }
    }

    /**
     * @param bind the bind address.
     * @return settings with the default range, one thread per core and the default idle time.
     */
    public static MediaRelaySettings defaults(final InetAddress bind)
    {
        return new MediaRelaySettings(PORT_MIN_DEFAULT, PORT_MAX_DEFAULT, bind, null,
            Runtime.getRuntime().availableProcessors(), IDLE_TIMEOUT_MS_DEFAULT);
    }

    /**
     * @return the address to write into SDP.
     */
    public InetAddress advertised()
    {
        if (null != advertise)
        {
            return advertise;
        }
        if (!bind.isAnyLocalAddress())
        {
            return bind;
        }
        try
        {
            final InetAddress local = InetAddress.getLocalHost();
            return local.isLoopbackAddress() || bind instanceof Inet4Address != local instanceof Inet4Address
                ? InetAddress.getLoopbackAddress() : local;
        }
        catch (final java.net.UnknownHostException e)
        {
            return InetAddress.getLoopbackAddress();
        }
    }
}
