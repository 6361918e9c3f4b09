package io.sipline.media.service;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One UDP socket of a test phone on loopback, and the RTP/RTCP packets the relay tests send through it.
 */
final class TestPhone implements AutoCloseable
{
    final DatagramSocket socket;

    TestPhone() throws IOException
    {
        socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        socket.setSoTimeout(3000);
    }

    int port()
    {
        return socket.getLocalPort();
    }

    void send(final byte[] packet, final int length, final int toPort) throws IOException
    {
        socket.send(new DatagramPacket(packet, length, InetAddress.getLoopbackAddress(), toPort));
    }

    /** @return the next datagram, or null when none comes within the timeout. */
    byte[] receive(final int timeoutMs) throws IOException
    {
        socket.setSoTimeout(timeoutMs);
        final byte[] buffer = new byte[2048];
        final DatagramPacket p = new DatagramPacket(buffer, buffer.length);
        try
        {
            socket.receive(p);
        }
        catch (final SocketTimeoutException e)
        {
            return null;
        }
        return Arrays.copyOf(buffer, p.getLength());
    }

    @Override
    public void close()
    {
        socket.close();
    }

    /**
     * An RTP packet (RFC 3550 §5.1) with room behind it for an SRTP tag.
     *
     * @return a buffer of which the first {@code 12 + payload} octets are the packet.
     */
    static byte[] rtp(final int payloadType, final int seq, final int ssrc, final int payload)
    {
        final byte[] p = new byte[12 + payload + 64];
        p[0] = (byte)0x80;
        p[1] = (byte)payloadType;
        p[2] = (byte)(seq >>> 8);
        p[3] = (byte)seq;
        final int ts = seq * 160;
        p[4] = (byte)(ts >>> 24);
        p[5] = (byte)(ts >>> 16);
        p[6] = (byte)(ts >>> 8);
        p[7] = (byte)ts;
        p[8] = (byte)(ssrc >>> 24);
        p[9] = (byte)(ssrc >>> 16);
        p[10] = (byte)(ssrc >>> 8);
        p[11] = (byte)ssrc;
        for (int i = 0; i < payload; i++)
        {
            p[12 + i] = (byte)(seq + i);
        }
        return p;
    }

    /**
     * An RTCP receiver report with no report block (RFC 3550 §6.4.2): 8 octets, then room for SRTCP.
     */
    static byte[] rtcp(final int ssrc)
    {
        final byte[] p = new byte[8 + 64];
        p[0] = (byte)0x80;
        p[1] = (byte)201;
        p[3] = 1;
        p[4] = (byte)(ssrc >>> 24);
        p[5] = (byte)(ssrc >>> 16);
        p[6] = (byte)(ssrc >>> 8);
        p[7] = (byte)ssrc;
        return p;
    }

    static void await(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 5_000_000_000L;
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for: " + what);
            Thread.sleep(5);
        }
    }
}
