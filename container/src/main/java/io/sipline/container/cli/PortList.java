package io.sipline.container.cli;

import java.util.Arrays;
import java.util.BitSet;

/**
 * A list of UDP ports as a user writes it on the command line: ports and ascending ranges separated by commas, e.g.
 * {@code 5062,5070-5079}. Every port is 1 to 65535 and appears once.
 *
 * <p>Immutable; thread-safe.
 */
public final class PortList
{
    /** The empty list (no {@code --udp-ports}). */
    public static final PortList EMPTY = new PortList(new int[0]);

    private final int[] ports;

    private PortList(final int[] ports)
    {
        this.ports = ports;
    }

    /**
     * Parses a port list.
     *
     * @throws IllegalArgumentException with a one-line message saying what is wrong and where.
     */
    public static PortList parse(final String text)
    {
        if (null == text || text.isBlank())
        {
            throw new IllegalArgumentException("the list is empty (give ports like 5062,5070-5079)");
        }
        final BitSet seen = new BitSet(65536);
        final String[] items = text.split(",", -1);
        int[] ports = new int[Math.max(8, items.length)];
        int count = 0;
        for (final String raw : items)
        {
            final String item = raw.strip();
            if (item.isEmpty())
            {
                throw new IllegalArgumentException("empty item in '" + text + "'");
            }
            final int dash = item.indexOf('-');
            final int low;
            final int high;
            if (dash < 0)
            {
                low = port(item, item);
                high = low;
            }
            else
            {
                low = port(item.substring(0, dash).strip(), item);
                high = port(item.substring(dash + 1).strip(), item);
                if (low > high)
                {
                    throw new IllegalArgumentException("range '" + item + "' is not ascending (write " + high + "-"
                        + low + ")");
                }
            }
            for (int p = low; p <= high; p++)
            {
                if (seen.get(p))
                {
                    throw new IllegalArgumentException("port " + p + " is listed twice in '" + text + "'");
                }
                seen.set(p);
                if (count == ports.length)
                {
                    ports = Arrays.copyOf(ports, ports.length * 2);
                }
                ports[count++] = p;
            }
        }
        return new PortList(Arrays.copyOf(ports, count));
    }

    /**
     * Parses one port number, 1 to 65535.
     *
     * @param item the list item it comes from, for the message.
     */
    static int port(final String digits, final String item)
    {
        if (digits.isEmpty() || digits.length() > 5 || !digits.chars().allMatch(Character::isDigit))
        {
            throw new IllegalArgumentException(digits.equals(item) ?
                "'" + item + "' is not a port number (1-65535)" :
                "'" + item + "' is not a port or a range of ports (like 5062 or 5070-5079)");
        }
        final int port = Integer.parseInt(digits);
        if (port < 1 || port > 65535)
        {
            throw new IllegalArgumentException("port " + port + " is out of range (1-65535)");
        }
        return port;
    }

    /** The ports, in the order given, ranges expanded; a copy. */
    public int[] ports()
    {
        return ports.clone();
    }

    public int size()
    {
        return ports.length;
    }

    public boolean contains(final int port)
    {
        for (final int p : ports)
        {
            if (p == port)
            {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString()
    {
        return Arrays.toString(ports);
    }
}
