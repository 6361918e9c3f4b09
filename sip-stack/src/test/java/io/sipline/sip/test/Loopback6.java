package io.sipline.sip.test;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.junit.jupiter.api.Assumptions;

/** The IPv6 loopback for tests that need it: aborts (skips) the calling test on a machine without one. Stateless. */
public final class Loopback6
{
    private Loopback6()
    {
    }

    /** {@code ::1}, once a UDP socket could bind it; otherwise the calling test is aborted, saying why. */
    public static InetAddress orAbort()
    {
        final InetAddress v6 = InetAddress.ofLiteral("::1");
        try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(v6, 0)))
        {
            probe.getLocalPort();
        }
        catch (final IOException noIpv6)
        {
            Assumptions.abort("no IPv6 loopback here: " + noIpv6);
        }
        return v6;
    }
}
