package io.sipline.container.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** {@code --udp-ports}: ports and ascending ranges, 1 to 65535, each once. */
class PortListTest
{
    private static String error(final String text)
    {
        return assertThrows(IllegalArgumentException.class, () -> PortList.parse(text)).getMessage();
    }

    @Test
    void shouldParsePortsAndRanges()
    {
        assertArrayEquals(new int[] {5062, 5070, 5071, 5072, 5079}, PortList.parse("5062,5070-5072,5079").ports());
        assertArrayEquals(new int[] {1, 65535}, PortList.parse("1,65535").ports());
        assertArrayEquals(new int[] {5070}, PortList.parse("5070-5070").ports());
        assertArrayEquals(new int[] {5062, 5063}, PortList.parse(" 5062 , 5063 ").ports());
    }

    @Test
    void shouldParseAThousandPorts()
    {
        final PortList ports = PortList.parse("20000-20999");
        assertEquals(1000, ports.size());
        assertEquals(20999, ports.ports()[999]);
    }

    @Test
    void shouldRejectPortsOutOfRange()
    {
        assertEquals("port 70000 is out of range (1-65535)", error("5062,70000"));
        assertEquals("port 0 is out of range (1-65535)", error("0"));
        assertEquals("port 65536 is out of range (1-65535)", error("65530-65536"));
    }

    @Test
    void shouldRejectDescendingRanges()
    {
        assertEquals("range '5079-5070' is not ascending (write 5070-5079)", error("5079-5070"));
    }

    @Test
    void shouldRejectDuplicates()
    {
        assertEquals("port 5071 is listed twice in '5070-5072,5071'", error("5070-5072,5071"));
    }

    @Test
    void shouldRejectMalformedItems()
    {
        assertEquals("empty item in '5062,,5063'", error("5062,,5063"));
        assertEquals("empty item in '5062,'", error("5062,"));
        assertEquals("'abc' is not a port number (1-65535)", error("abc"));
        assertEquals("'5070-' is not a port or a range of ports (like 5062 or 5070-5079)", error("5070-"));
        assertEquals("'1-2-3' is not a port or a range of ports (like 5062 or 5070-5079)", error("1-2-3"));
        assertEquals("'-5' is not a port or a range of ports (like 5062 or 5070-5079)", error("-5"));
        error("");
    }
}
