package io.sipline.container.dispatch;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * A raw SIP peer for the dispatch tests: one UDP socket on loopback that sends message texts ({@code PORT} replaced by
 * its own port) and waits, up to a deadline, for the first message that matches, keeping the others it read.
 * <p>
 * Threading: the test's thread only.
 */
final class SipPeer implements AutoCloseable
{
    private static final long WAIT_MS = 10_000;

    private final DatagramSocket socket;
    private final byte[] buffer = new byte[8192];
    /** Every message read, in order of arrival. */
    private final List<String> received = new ArrayList<>();
    private InetSocketAddress target;

    SipPeer(final InetSocketAddress target) throws IOException
    {
        this.socket = new DatagramSocket(new InetSocketAddress(TestApps.LOOPBACK, 0));
        this.socket.setSoTimeout(100);
        this.target = target;
    }

    /** Sends to {@code where} from now on (a peer made before the server it talks to, whose port it needs). */
    void target(final InetSocketAddress where)
    {
        this.target = where;
    }

    int port()
    {
        return socket.getLocalPort();
    }

    void send(final String text) throws IOException
    {
        final byte[] bytes = text.replace("PORT", Integer.toString(port())).getBytes(StandardCharsets.US_ASCII);
        socket.send(new DatagramPacket(bytes, bytes.length, target));
    }

    /** The first message read from now on that matches; fails (AssertionError) after the deadline. */
    String await(final Predicate<String> wanted, final String what) throws IOException
    {
        final String found = within(wanted, WAIT_MS);
        if (null == found)
        {
            throw new AssertionError("no " + what + " within " + WAIT_MS + " ms; read: " + firstLines());
        }
        return found;
    }

    /**
     * The first message read from now on, for up to {@code millis}, that matches, or null: for a message that must
     * not come, the wait is the time in which it would have (a retransmission timer's).
     */
    String within(final Predicate<String> wanted, final long millis) throws IOException
    {
        final long deadline = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() - deadline < 0)
        {
            final DatagramPacket p = new DatagramPacket(buffer, buffer.length);
            try
            {
                socket.receive(p);
            }
            catch (final SocketTimeoutException e)
            {
                continue;
            }
            final String text = new String(buffer, 0, p.getLength(), StandardCharsets.US_ASCII);
            received.add(text);
            if (wanted.test(text))
            {
                return text;
            }
        }
        return null;
    }

    /** The first line of every message read so far. */
    List<String> firstLines()
    {
        return received.stream().map(m -> m.substring(0, Math.max(0, m.indexOf('\r')))).toList();
    }

    /** Every message read so far. */
    List<String> received()
    {
        return received;
    }

    /** The first value of a header in a message's text, or null. */
    static String header(final String message, final String name)
    {
        final String prefix = name.toLowerCase(Locale.ROOT) + ":";
        for (final String line : message.split("\r\n"))
        {
            if (line.toLowerCase(Locale.ROOT).startsWith(prefix))
            {
                return line.substring(prefix.length()).strip();
            }
            if (line.isEmpty())
            {
                break;
            }
        }
        return null;
    }

    /** Whether a message is a response with that status to that CSeq method. */
    static Predicate<String> response(final int status, final String method)
    {
        return m -> m.startsWith("SIP/2.0 " + status + " ") && null != header(m, "CSeq")
            && header(m, "CSeq").endsWith(" " + method);
    }

    /**
     * A request of the peer (From tag a1, Call-ID {@code callId}) in the dialog {@code to} names, on Via branch
     * {@code z9hG4bK-branch}, with {@code extra} header lines before Content-Length.
     */
    static String inDialog(final String method, final String callId, final String to, final int cseq,
        final String branch, final String extra)
    {
        return method + " sip:service@127.0.0.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:PORT;branch=z9hG4bK-" + branch + "\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:alice@127.0.0.1>;tag=a1\r\n"
            + "To: " + to + "\r\n"
            + "Call-ID: " + callId + "\r\n"
            + "CSeq: " + cseq + " " + method + "\r\n"
            + extra
            + "Content-Length: 0\r\n\r\n";
    }

    /** A 200 to a request of the container, with its Via, From, To (tagged when in a dialog), Call-ID and CSeq. */
    static String okTo(final String request)
    {
        final StringBuilder b = new StringBuilder("SIP/2.0 200 OK\r\n");
        copyHeaders(request, b, "Via", "From", "To", "Call-ID", "CSeq");
        return b.append("Content-Length: 0\r\n\r\n").toString();
    }

    /** A 2xx to the container's INVITE with To tag {@code tag} and the Contact of the peer on {@code port}. */
    static String answer(final String invite, final String tag, final int port)
    {
        final StringBuilder b = new StringBuilder("SIP/2.0 200 OK\r\n");
        copyHeaders(invite, b, "Via", "From", "Call-ID", "CSeq");
        b.append("To: ").append(header(invite, "To")).append(";tag=").append(tag).append("\r\n");
        b.append("Contact: <sip:").append(tag).append("@127.0.0.1:").append(port).append(">\r\n");
        return b.append("Content-Length: 0\r\n\r\n").toString();
    }

    /** Appends the first value of each named header of {@code from} as a header line. */
    static void copyHeaders(final String from, final StringBuilder to, final String... names)
    {
        for (final String name : names)
        {
            to.append(name).append(": ").append(header(from, name)).append("\r\n");
        }
    }

    @Override
    public void close()
    {
        socket.close();
    }
}
