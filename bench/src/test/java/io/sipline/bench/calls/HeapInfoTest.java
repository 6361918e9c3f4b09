package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The heap in use read from {@code jcmd PID GC.heap_info} as JDK 25 prints it for each collector of the profiles. */
class HeapInfoTest
{
    @Test
    void shouldReadEpsilonToTheByteFromItsAddresses()
    {
        assertEquals(0x17f7810L, HeapInfo.usedBytes("""
            4185:
            Epsilon Heap
             Allocation space:
              space 12582912K,   0% used [0x0000000500000000, 0x00000005017f7810, 0x0000000800000000)
            """));
    }

    @Test
    void shouldSumParallelGenerations()
    {
        assertEquals((125845L + 1166L) * 1024, HeapInfo.usedBytes("""
            4226:
            PSYoungGen      total 1223168K, used 125845K [0x00000007aab00000, 0x0000000800000000, 0x0000000800000000)
             eden space 1048576K, 12% used [0x00000007aab00000,0x00000007b25e5538,0x00000007eab00000)
             from space 174592K, 0% used [0x00000007f5580000,0x00000007f5580000,0x0000000800000000)
            ParOldGen       total 2796544K, used 1166K [0x0000000700000000, 0x00000007aab00000, 0x00000007aab00000)
             object space 2796544K, 0% used [0x0000000700000000,0x0000000700123ab8,0x00000007aab00000)
            """));
    }

    @Test
    void shouldReadG1ZgcAndShenandoah()
    {
        assertEquals(26766L * 1024, HeapInfo.usedBytes("""
            garbage-first heap   total reserved 4194304K, committed 4194304K, used 26766K [0x0000000700000000, \
            0x0000000800000000)
             region size 2048K, 13 young (26624K), 0 survivors (0K)
            """));
        assertEquals(60L << 20, HeapInfo.usedBytes("""
            ZHeap            used 60M, capacity 4096M, max capacity 4096M
             Cache           4036M (1)
            """));
        assertEquals(30720L * 1024, HeapInfo.usedBytes("""
            Shenandoah Heap
             4096M max, 4096M soft max, 4096M committed, 30720K used
             2048 x 2048 K regions
            """));
    }

    @Test
    void shouldReadTheLiveBytesOfAClassHistogram()
    {
        assertEquals(7_890_123L, HeapInfo.liveBytes("""
            4242:
             num     #instances         #bytes  class name (module)
            -------------------------------------------------------
               1:         12345        1234567  [B (java.base@25.0.3)
               2:          2345         234567  java.lang.String (java.base@25.0.3)
            Total        123456        7890123
            """));
        assertThrows(IllegalArgumentException.class, () -> HeapInfo.liveBytes("4242:\nnothing\n"));
    }

    @Test
    void shouldRefuseAnUnknownLayout()
    {
        assertThrows(IllegalArgumentException.class, () -> HeapInfo.usedBytes("4242:\nNo such heap\n"));
    }
}
