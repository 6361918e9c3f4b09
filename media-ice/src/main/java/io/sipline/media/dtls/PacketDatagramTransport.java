package io.sipline.media.dtls;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.bouncycastle.tls.DatagramTransport;

/**
 * Bouncy Castle's {@link DatagramTransport} fed with packets instead of a socket: the media thread
 * {@link #offer(byte[]) offers} copies of DTLS datagrams into a bounded queue and never waits; the handshake thread
 * blocks in {@link #receive} on that queue, bounded by Bouncy Castle's retransmission timer and by the handshake
 * deadline of our clock; {@link #send} goes to the relay's {@link DtlsSender}. The send limit is the configured
 * largest datagram, so Bouncy Castle fragments handshake messages to fit it (RFC 6347 §4.2.3).
 *
 * <p>Thread-safe where it must be: {@link #offer} and {@link #abort} from any thread; {@link #receive},
 * {@link #send} and {@link #close} on the handshake thread. Offered arrays are owned by the queue, then by the
 * receive that copies them out.
 */
final class PacketDatagramTransport implements DatagramTransport
{
    /** One DTLS record of the largest size, so that no datagram a peer may send is cut (RFC 6347 §4.1). */
    static final int RECEIVE_LIMIT = DtlsRecords.HEADER_LENGTH + DtlsRecords.MAX_FRAGMENT_LENGTH;

    private static final byte[] WAKE_UP = new byte[0];

    private final ArrayBlockingQueue<byte[]> inbound;
    private final DtlsSender sender;
    private final int maxDatagramBytes;
    private final LongSupplier clockMs;
    private final long deadlineMs;
    private final AtomicLong sentDatagrams = new AtomicLong();
    private volatile int largestSent;
    private volatile boolean handshaking = true;
    private volatile boolean closedByTls;
    private volatile DtlsFailure abortReason;

    PacketDatagramTransport(
        final int capacity,
        final DtlsSender sender,
        final int maxDatagramBytes,
        final LongSupplier clockMs,
        final long deadlineMs)
    {
        this.inbound = new ArrayBlockingQueue<>(capacity);
        this.sender = sender;
        this.maxDatagramBytes = maxDatagramBytes;
        this.clockMs = clockMs;
        this.deadlineMs = deadlineMs;
    }

    /**
     * Queues a datagram for the handshake thread without waiting.
     *
     * @param datagram a copy, whose ownership passes to the queue.
     * @return false when the queue is full or the transport is done; the datagram is then dropped.
     */
    boolean offer(final byte[] datagram)
    {
        return !isDone() && inbound.offer(datagram);
    }

    /** @return whether a further datagram would be dropped: closed by the TLS layer or aborted. */
    boolean isDone()
    {
        return closedByTls || null != abortReason;
    }

    /**
     * Ends the next or current {@link #receive} with {@code reason}; the first reason wins.
     *
     * @param reason why.
     */
    void abort(final DtlsFailure reason)
    {
        if (null == abortReason)
        {
            abortReason = reason;
        }
        inbound.clear();
        inbound.offer(WAKE_UP);
    }

    /** The handshake completed: the deadline no longer applies. */
    void handshakeDone()
    {
        handshaking = false;
    }

    /** @return the deadline of the handshake on {@link #clockMs}. */
    long deadlineMs()
    {
        return deadlineMs;
    }

    /** @return whether {@link #abort} was called: a timeout or a local close. */
    boolean aborted()
    {
        return null != abortReason;
    }

    /** @return whether Bouncy Castle closed it (after a {@code close_notify} or a fatal alert). */
    boolean closedByTls()
    {
        return closedByTls;
    }

    /** @return datagrams handed to the sender. */
    long sentDatagrams()
    {
        return sentDatagrams.get();
    }

    /** @return the largest datagram handed to the sender. */
    int largestSent()
    {
        return largestSent;
    }

    @Override
    public int getReceiveLimit()
    {
        return RECEIVE_LIMIT;
    }

    @Override
    public int getSendLimit()
    {
        return maxDatagramBytes;
    }

    @Override
    public int receive(final byte[] buf, final int off, final int len, final int waitMillis) throws IOException
    {
        checkAbort();
        long waitMs = waitMillis <= 0 ? Long.MAX_VALUE : waitMillis;
        if (handshaking)
        {
            final long remainingMs = deadlineMs - clockMs.getAsLong();
            if (remainingMs <= 0)
            {
                throw timeout();
            }
            waitMs = Math.min(waitMs, remainingMs);
        }
        final byte[] datagram;
        try
        {
            datagram = inbound.poll(waitMs, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException e)
        {
            checkAbort();
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("DTLS handshake thread interrupted");
        }
        checkAbort();
        if (null == datagram || WAKE_UP == datagram)
        {
            if (handshaking && clockMs.getAsLong() >= deadlineMs)
            {
                throw timeout();
            }
            return -1;
        }
        // A datagram longer than the buffer is cut, and Bouncy Castle then drops the cut record.
        final int length = Math.min(len, datagram.length);
        System.arraycopy(datagram, 0, buf, off, length);
        return length;
    }

    @Override
    public void send(final byte[] buf, final int off, final int len)
    {
        if (closedByTls)
        {
            return;
        }
        sentDatagrams.incrementAndGet();
        if (len > largestSent)
        {
            largestSent = len;
        }
        try
        {
            sender.sendDtls(buf, off, len);
        }
        catch (final RuntimeException e)
        {
            // The sender must not throw; a datagram it fails to send is lost, as on the network, and resent.
        }
    }

    @Override
    public void close()
    {
        closedByTls = true;
        inbound.offer(WAKE_UP);
    }

    private void checkAbort() throws DtlsAbortException
    {
        final DtlsFailure reason = abortReason;
        if (null != reason)
        {
            throw new DtlsAbortException(reason, DtlsFailure.TIMEOUT == reason ? "DTLS handshake timed out" :
                "DTLS endpoint closed");
        }
        if (closedByTls)
        {
            throw new DtlsAbortException(DtlsFailure.CLOSED, "DTLS connection closed");
        }
    }

    private DtlsAbortException timeout()
    {
        abortReason = DtlsFailure.TIMEOUT;
        return new DtlsAbortException(DtlsFailure.TIMEOUT, "DTLS handshake did not complete within its timeout");
    }
}
