package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.sipline.sip.message.ParseResult;
import io.sipline.sip.stack.demo.DemoUas;
import io.sipline.sip.transport.ShardCounters;
import org.junit.jupiter.api.Test;

/**
 * Malformed datagrams reaching the full stack (2 shards, one loopback port): a request that can be addressed is
 * answered statelessly with its parse result's status and reason (RFC 3261 §8.2), its top Via stamped with
 * {@code received}/{@code rport} (RFC 3261 §18.2.1, RFC 3581 §4); a malformed ACK and garbage get nothing and are
 * counted. None of them reaches the listener.
 */
class StackMalformedTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    /** How long a receive waits for an answer that must not come. */
    private static final int SILENCE_MS = 300;

    @Test
    void shouldAnswerMalformedRequestsStatelesslyAndDropTheRest() throws Exception
    {
        final DemoUas.Stats stats = new DemoUas.Stats();
        try (SipStack stack = SipStack.start(
                new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0).shards(2), DemoUas.factory(stats));
            DatagramSocket socket = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            final InetSocketAddress server = stack.localAddresses().get(0);
            final int port = socket.getLocalPort();
            socket.setSoTimeout(5_000);

            send(socket, server, request("INVITE", "SIP/2.0", "BYE", port, "mm", ""));
            final String mismatch = receive(socket);
            assertEquals("SIP/2.0 400 CSeq Method Does Not Match Request Method", statusLine(mismatch), mismatch);
            assertTrue(mismatch.contains("\r\nVia: SIP/2.0/UDP 127.0.0.1:" + port + ";branch=z9hG4bKmm;rport=" + port
                + ";received=127.0.0.1\r\n"), mismatch);
            assertTrue(mismatch.contains("\r\nCall-ID: mm@127.0.0.1\r\n"), mismatch);
            assertTrue(mismatch.contains("\r\nCSeq: 1 BYE\r\n"), mismatch);
            assertTrue(mismatch.contains("\r\nTo: <sip:uas@127.0.0.1>;tag="), mismatch);

            send(socket, server, request("OPTIONS", "SIP/7.0", "OPTIONS", port, "v7", ""));
            final String version = receive(socket);
            assertEquals("SIP/2.0 505 Version Not Supported", statusLine(version), version);
            assertTrue(version.contains("\r\nCall-ID: v7@127.0.0.1\r\n"), version);

            // Never answered: a malformed ACK (RFC 3261 §17.1.1.3), and bytes that are not SIP at all.
            send(socket, server, request("ACK", "SIP/2.0", "ACK", port, "ack", "Content-Length: 100\r\n"));
            send(socket, server, "hello, is this SIP?\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.setSoTimeout(SILENCE_MS);
            assertNull(receiveOrNull(socket), "a malformed ACK and garbage must get no answer");

            final ShardCounters totals = awaitParseErrors(stack, 4);
            assertEquals(4, totals.parseErrorsTotal(), totals.toString());
            assertEquals(1, totals.parseErrors(ParseResult.CSEQ_METHOD_MISMATCH), totals.toString());
            assertEquals(1, totals.parseErrors(ParseResult.UNSUPPORTED_VERSION), totals.toString());
            assertEquals(1, totals.parseErrors(ParseResult.BODY_TOO_SHORT), totals.toString());
            assertEquals(2, totals.responsesSent(), totals.toString());
            assertEquals(2, totals.dropped(), totals.toString());
            assertEquals(4, stack.malformed());
            assertEquals(0, stats.invites.get() + stats.acks.get() + stats.others.get(), "listener saw none");
        }
    }

    /** A request whose request line carries {@code version} and whose CSeq names {@code cseqMethod}. */
    private static byte[] request(final String method, final String version, final String cseqMethod,
        final int localPort, final String id, final String contentLength)
    {
        return (method + " sip:uas@127.0.0.1 " + version + "\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:" + localPort + ";branch=z9hG4bK" + id + ";rport\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:uac@127.0.0.1>;tag=f" + id + "\r\nTo: <sip:uas@127.0.0.1>\r\n"
            + "Call-ID: " + id + "@127.0.0.1\r\nCSeq: 1 " + cseqMethod + "\r\n"
            + (contentLength.isEmpty() ? "Content-Length: 0\r\n" : contentLength) + "\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    }

    private static void send(final DatagramSocket socket, final InetSocketAddress to, final byte[] bytes)
        throws Exception
    {
        socket.send(new DatagramPacket(bytes, bytes.length, to));
    }

    private static String receive(final DatagramSocket socket) throws Exception
    {
        final String text = receiveOrNull(socket);
        assertTrue(null != text, "no answer within the receive timeout");
        return text;
    }

    /** One datagram as text, or null when none came within the socket's timeout. */
    private static String receiveOrNull(final DatagramSocket socket) throws Exception
    {
        final byte[] rx = new byte[4096];
        final DatagramPacket in = new DatagramPacket(rx, rx.length);
        try
        {
            socket.receive(in);
        }
        catch (final SocketTimeoutException e)
        {
            return null;
        }
        return new String(rx, 0, in.getLength(), StandardCharsets.US_ASCII);
    }

    private static String statusLine(final String response)
    {
        final int end = response.indexOf("\r\n");
        return end < 0 ? response : response.substring(0, end);
    }

    /**
     * The transport's totals once they show {@code expected} parse errors and every one of them answered or dropped
     * (the shards count on their own threads; the drop is counted after the handler returns).
     */
    private static ShardCounters awaitParseErrors(final SipStack stack, final long expected) throws Exception
    {
        final long deadline = System.nanoTime() + 5_000_000_000L;
        ShardCounters totals = stack.transportTotals();
        while ((totals.parseErrorsTotal() < expected || totals.responsesSent() + totals.dropped() < expected)
            && System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
            totals = stack.transportTotals();
        }
        return totals;
    }
}
