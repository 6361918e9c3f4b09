package io.sipline.sip.stack;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * Plain-JDK UDP peers for the stack tests: send a SIP message as one datagram, receive one (within the socket's
 * timeout, which the test sets), read it as text. Stateless; the sockets are the caller's.
 */
final class Datagrams
{
    private Datagrams()
    {
    }

    static void send(final DatagramSocket socket, final InetSocketAddress to, final String text) throws Exception
    {
        final byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        socket.send(new DatagramPacket(b, b.length, to));
    }

    /** The next datagram (its source is {@link DatagramPacket#getSocketAddress()}). */
    static DatagramPacket receivePacket(final DatagramSocket socket) throws Exception
    {
        final DatagramPacket p = new DatagramPacket(new byte[8192], 8192);
        socket.receive(p);
        return p;
    }

    /** The next datagram as text. */
    static String receive(final DatagramSocket socket) throws Exception
    {
        return text(receivePacket(socket));
    }

    static String text(final DatagramPacket p)
    {
        return new String(p.getData(), p.getOffset(), p.getLength(), StandardCharsets.US_ASCII);
    }
}
