package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sipline.test.Sipp;

/**
 * Starting a system on a port another process takes between the harness's probe and the server's bind: the start is
 * made again on a new port, a few times at most, and any other failure is reported at once. The JAIN-SIP baseline
 * plays the server (a child JVM, no far end needed to start); the taken port is a UDP socket this test holds.
 */
class SystemUnderTestTest
{
    private static SystemUnderTest.Layout layout()
    {
        return new SystemUnderTest.Layout(Path.of("..").toAbsolutePath().normalize(),
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), System.getProperty("java.class.path"));
    }

    @Test
    void shouldStartAgainOnANewPortWhenTheProbedOneWasTaken(@TempDir final Path dir) throws Exception
    {
        final int uasPort = Sipp.freeUdpPort();
        try (DatagramSocket squatter = new DatagramSocket(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0)))
        {
            final int taken = squatter.getLocalPort();
            final int free = SystemUnderTest.freeServerPort(uasPort);
            final List<Integer> offered = new ArrayList<>(List.of(taken, free));
            final List<Integer> tried = new ArrayList<>();
            try (ServerProcess server = SystemUnderTest.JAINSIP.startOnFreePort(layout(), dir, "b2bua", "g1-lowpause",
                uasPort, List.of(), List.of(), false, () ->
                {
                    tried.add(offered.getFirst());
                    return offered.removeFirst();
                }))
            {
                assertEquals(List.of(taken, free), tried, "the taken port first, then a new one");
                assertEquals(free, server.port());
            }
        }
    }

    @Test
    void shouldGiveUpAfterAFewStartsAndReportAnyOtherFailureAtOnce(@TempDir final Path dir) throws Exception
    {
        final int uasPort = Sipp.freeUdpPort();
        try (DatagramSocket squatter = new DatagramSocket(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), 0)))
        {
            final int taken = squatter.getLocalPort();
            final int[] starts = {0};
            final IOException e = assertThrows(IOException.class, () -> SystemUnderTest.JAINSIP.startOnFreePort(
                layout(), dir, "b2bua", "g1-lowpause", uasPort, List.of(), List.of(), false, () ->
                {
                    starts[0]++;
                    return taken;
                }));
            assertEquals(SystemUnderTest.START_ATTEMPTS, starts[0]);
            assertTrue(e.getMessage().startsWith("jainsip found its ports taken in 3 starts; the last: "),
                e.getMessage());
            assertTrue(SystemUnderTest.portTaken(e));
        }
        final int[] starts = {0};
        final IllegalArgumentException wrongApp = assertThrows(IllegalArgumentException.class,
            () -> SystemUnderTest.JAINSIP.startOnFreePort(layout(), dir, "proxy", "g1-lowpause", uasPort, List.of(),
                List.of(), false, () -> ++starts[0]));
        assertEquals("jainsip cannot run the application 'proxy'", wrongApp.getMessage());
        assertEquals(1, starts[0], "a failure that is not a taken port is not retried");
        assertFalse(SystemUnderTest.portTaken(new IOException("sipline exited with 1 before it was ready")));
    }

    @Test
    void shouldProbeAPortFreeForBothUdpAndTcp() throws Exception
    {
        final int avoid = Sipp.freeUdpPort();
        for (int i = 0; i < 5; i++)
        {
            final int p = SystemUnderTest.freeServerPort(avoid);
            assertNotEquals(avoid, p);
            try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), p));
                ServerSocket tcp = new ServerSocket(p, 1, InetAddress.ofLiteral("127.0.0.1")))
            {
                assertEquals(p, udp.getLocalPort());
                assertEquals(p, tcp.getLocalPort());
            }
        }
    }
}
