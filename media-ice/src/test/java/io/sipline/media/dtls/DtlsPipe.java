package io.sipline.media.dtls;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * An in-memory one-way link between two {@link DtlsEndpoint}s for tests: records every datagram sent, drops the
 * ones a rule picks, and delivers the rest to the far endpoint (holding them until that endpoint exists).
 *
 * <p>Thread-safe: the sending endpoint's handshake thread sends while the test reads.
 */
final class DtlsPipe implements DtlsSender
{
    private final List<byte[]> sent = new ArrayList<>();
    private final List<byte[]> held = new ArrayList<>();
    private Predicate<byte[]> dropRule = datagram -> false;
    private DtlsEndpoint target;
    private int dropped;

    /** The rule that picks datagrams to lose; it sees every datagram, in order. */
    synchronized DtlsPipe drop(final Predicate<byte[]> rule)
    {
        dropRule = rule;
        return this;
    }

    synchronized void connect(final DtlsEndpoint endpoint)
    {
        target = endpoint;
        for (final byte[] datagram : held)
        {
            endpoint.onDatagram(datagram, 0, datagram.length);
        }
        held.clear();
    }

    @Override
    public synchronized void sendDtls(final byte[] datagram, final int offset, final int length)
    {
        final byte[] copy = java.util.Arrays.copyOfRange(datagram, offset, offset + length);
        sent.add(copy);
        if (dropRule.test(copy))
        {
            dropped++;
        }
        else if (null == target)
        {
            held.add(copy);
        }
        else
        {
            target.onDatagram(copy, 0, copy.length);
        }
    }

    synchronized int dropped()
    {
        return dropped;
    }

    synchronized int largestSent()
    {
        int largest = 0;
        for (final byte[] datagram : sent)
        {
            largest = Math.max(largest, datagram.length);
        }
        return largest;
    }

    synchronized int count(final Predicate<byte[]> which)
    {
        int count = 0;
        for (final byte[] datagram : sent)
        {
            count += which.test(datagram) ? 1 : 0;
        }
        return count;
    }

    /** @return whether the datagram starts with a handshake record of epoch 0 carrying one of {@code types}. */
    static boolean isPlainHandshake(final byte[] datagram, final int... types)
    {
        if (datagram.length < 25 || 22 != datagram[0] || 0 != epoch(datagram))
        {
            return false;
        }
        for (final int type : types)
        {
            if ((datagram[13] & 0xFF) == type)
            {
                return true;
            }
        }
        return false;
    }

    /** @return whether the datagram starts with an encrypted handshake record (epoch 1: Finished). */
    static boolean isEncryptedHandshake(final byte[] datagram)
    {
        return datagram.length >= 13 && 22 == datagram[0] && 1 == epoch(datagram);
    }

    private static int epoch(final byte[] datagram)
    {
        return ((datagram[3] & 0xFF) << 8) | (datagram[4] & 0xFF);
    }

    /**
     * Loses the first sending of every fragment of the plain handshake messages of {@code types}, and none of
     * their resends: a fragment is known by its message type, message_seq and fragment_offset (RFC 6347 §4.2.2).
     */
    static Predicate<byte[]> firstSendingOf(final int... types)
    {
        final Set<Long> seen = new HashSet<>();
        return datagram ->
        {
            if (!isPlainHandshake(datagram, types))
            {
                return false;
            }
            final long key = ((long)(datagram[13] & 0xFF) << 40) | ((long)(datagram[17] & 0xFF) << 32) |
                ((long)(datagram[18] & 0xFF) << 24) | ((datagram[19] & 0xFF) << 16) | ((datagram[20] & 0xFF) << 8) |
                (datagram[21] & 0xFF);
            return seen.add(key);
        };
    }

    /** Loses the first encrypted handshake record (the Finished message) and none after it. */
    static Predicate<byte[]> firstFinished()
    {
        final boolean[] done = {false};
        return datagram ->
        {
            if (!done[0] && isEncryptedHandshake(datagram))
            {
                done[0] = true;
                return true;
            }
            return false;
        };
    }
}
