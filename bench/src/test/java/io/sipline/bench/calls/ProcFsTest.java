package io.sipline.bench.calls;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The kernel's UDP drop counters as the harness reads them: per socket, so that a socket closed during a step never
 * lowers the step's count.
 */
class ProcFsTest
{
    @Test
    void shouldCountTheGrowthOfEachSocketAndEveryDropOfANewOne()
    {
        final Map<Long, Long> before = Map.of(11L, 5L, 12L, 3L);
        final Map<Long, Long> after = Map.of(11L, 7L, 13L, 4L); // 12 closed in between, 13 opened

        assertEquals(2 + 4, ProcFs.dropsBetween(before, after));
        assertEquals(0, ProcFs.dropsBetween(before, Map.of()), "sockets closed: nothing counted, never below 0");
    }

    @Test
    void shouldFindTheSocketsOfAPortByInode() throws IOException
    {
        assumeTrue(Files.isReadable(Path.of("/proc/net/udp")));
        try (DatagramSocket a = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
        {
            final Map<Long, Long> drops = ProcFs.udpDrops(a.getLocalPort());

            assertEquals(1, drops.size(), drops.toString());
            assertEquals(0L, drops.values().iterator().next());
            assertEquals(1, ProcFs.udpSockets(a.getLocalPort())[0]);
        }
    }
}
