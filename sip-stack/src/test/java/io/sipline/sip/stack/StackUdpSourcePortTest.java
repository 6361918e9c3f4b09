package io.sipline.sip.stack;

import static io.sipline.sip.stack.Datagrams.send;
import static io.sipline.sip.stack.Datagrams.text;
import static io.sipline.sip.stack.StackTcpTest.header;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMethod;
import io.sipline.sip.stack.RelayAttachments.HeldAnswer;
import io.sipline.sip.stack.RelayAttachments.RelayedFor;
import io.sipline.sip.transaction.ClientTransaction;
import io.sipline.sip.transaction.ServerTransaction;
import org.junit.jupiter.api.Test;

/**
 * RFC 3261 §18.2.2 with two UDP ports on one address: everything a transaction sends leaves from the socket its
 * request arrived on, also when it is sent outside the read (a timer's retransmission, an answer given on a later
 * tick); a client transaction started while handling a request keeps the socket of its first send for its
 * retransmissions. The stack runs two shards, so some requests are handed over between them (Call-ID hash), and every
 * scenario is run for several Call-IDs. The second port is the one used: the first is what the stack fell back to.
 */
class StackUdpSourcePortTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final int CALLS = 4;

    @Test
    void shouldSendEveryMessageOfATransactionFromThePortItsRequestArrivedOn() throws Exception
    {
        final AtomicReference<InetSocketAddress> forwardTo = new AtomicReference<>();
        final SipStackConfig config = new SipStackConfig().addresses(List.of(LOOPBACK)).ports(0, 0).shards(2)
            .t1Ns(20_000_000L);
        try (SipStack stack = SipStack.start(config, shard -> new Listener(forwardTo));
            DatagramSocket client = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0));
            DatagramSocket upstream = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            client.setSoTimeout(5_000);
            upstream.setSoTimeout(5_000);
            forwardTo.set((InetSocketAddress)upstream.getLocalSocketAddress());
            assertEquals(2, stack.localAddresses().size());
            final InetSocketAddress first = stack.localAddresses().get(0);
            final InetSocketAddress second = stack.localAddresses().get(1);
            assertTrue(first.getPort() != second.getPort());

            for (int i = 0; i < CALLS; i++)
            {
                // A 486 to INVITE is retransmitted by Timer G (§17.2.1) from the timer wheel, outside any read.
                final String busyId = "busy-" + i;
                send(client, second, request("INVITE", busyId, client.getLocalPort()));
                final DatagramPacket busy = receiveCall(client, busyId, "SIP/2.0 486");
                final DatagramPacket busyAgain = receiveCall(client, busyId, "SIP/2.0 486");
                assertEquals(second.getPort(), busy.getPort(), "the 486 left from the other port");
                assertEquals(second.getPort(), busyAgain.getPort(), "its Timer G retransmission too");
                send(client, second, ack(text(busy))); // stops Timer G

                // An answer given on a later tick, outside the read of its request.
                final String lateId = "late-" + i;
                send(client, second, request("OPTIONS", lateId, client.getLocalPort()));
                final DatagramPacket late = receiveCall(client, lateId, "SIP/2.0 200");
                assertEquals(second.getPort(), late.getPort(), "a later answer left from the other port");

                // A client transaction made while handling a request: its Timer E retransmissions (§17.1.2.2).
                final String forwardId = "forward-" + i;
                send(client, second, request("MESSAGE", forwardId, client.getLocalPort()));
                final DatagramPacket forwarded = receiveCall(upstream, "up-" + forwardId, "OPTIONS ");
                final DatagramPacket again = receiveCall(upstream, "up-" + forwardId, "OPTIONS ");
                assertEquals(text(forwarded), text(again), "a retransmission of the same request");
                assertEquals(second.getPort(), forwarded.getPort(), "the client transaction's first send");
                assertEquals(second.getPort(), again.getPort(), "its retransmission, from the timer wheel");
                answer(upstream, forwarded);
                final DatagramPacket done = receiveCall(client, forwardId, "SIP/2.0 200");
                assertEquals(second.getPort(), done.getPort());
            }
        }
    }

    /**
     * INVITE: 486 at once. OPTIONS: 200 on the next tick. MESSAGE: an OPTIONS to {@code forwardTo} through a client
     * transaction, and the MESSAGE answered 200 when that transaction gets its 200. One per shard.
     */
    private static final class Listener implements SipListener
    {
        private final AtomicReference<InetSocketAddress> forwardTo;
        private final List<ServerTransaction> late = new ArrayList<>();
        private final List<ByteBuf> lateAnswers = new ArrayList<>();

        Listener(final AtomicReference<InetSocketAddress> forwardTo)
        {
            this.forwardTo = forwardTo;
        }

        @Override
        public void onRequest(final StackShard shard, final ServerTransaction tx, final SipMessage request)
        {
            final boolean invite = request.method() == SipMethod.INVITE;
            final ByteBuf out = shard.allocate(256 + request.length());
            shard.builder().startResponse(out, request, invite ? 486 : 200, invite ? "Busy Here" : "OK",
                shard.ids().appendId(new StringBuilder()), tx.peer()).end(null, 0, 0);
            if (request.method() == SipMethod.OPTIONS)
            {
                late.add(tx);
                lateAnswers.add(out);
                return;
            }
            if (request.method() == SipMethod.MESSAGE)
            {
                tx.attachment(new HeldAnswer(out)); // answered when the forwarded request gets its 200
                final String branch = shard.ids().appendBranch(new StringBuilder()).toString();
                final InetSocketAddress to = forwardTo.get();
                final String text = "OPTIONS sip:up@127.0.0.1:" + to.getPort() + " SIP/2.0\r\n"
                    + "Via: SIP/2.0/UDP 127.0.0.1:" + shard.stack().localAddresses().get(1).getPort()
                    + ";branch=" + branch + "\r\nMax-Forwards: 70\r\nFrom: <sip:stack@127.0.0.1>;tag=s1\r\n"
                    + "To: <sip:up@127.0.0.1>\r\nCall-ID: up-" + request.callId() + "\r\nCSeq: 1 OPTIONS\r\n"
                    + "Content-Length: 0\r\n\r\n";
                final ByteBuf forward = shard.allocate(text.length());
                forward.writeCharSequence(text, StandardCharsets.US_ASCII);
                final ClientTransaction sent = shard.sendRequest(forward, to);
                if (null != sent)
                {
                    sent.attachment(new RelayedFor(tx));
                }
                return;
            }
            shard.respond(tx, out, invite ? 486 : 200);
        }

        @Override
        public void onTick(final StackShard shard, final long nowNs)
        {
            for (int i = 0; i < late.size(); i++)
            {
                shard.respond(late.get(i), lateAnswers.get(i), 200); // ownership passes to respond
            }
            late.clear();
            lateAnswers.clear();
        }

        @Override
        public void onResponse(final StackShard shard, final ClientTransaction tx, final SipMessage response)
        {
            if (response.statusCode() >= 200 && tx.attachment() instanceof RelayedFor(ServerTransaction server)
                && server.attachment() instanceof HeldAnswer(ByteBuf answer))
            {
                server.attachment(null);
                shard.respond(server, answer, 200);
            }
        }

        @Override
        public void onTerminated(final StackShard shard, final io.sipline.sip.transaction.Transaction tx)
        {
            if (tx.attachment() instanceof HeldAnswer(ByteBuf unsent))
            {
                unsent.release(); // a MESSAGE whose forwarded request never got its 200
            }
        }

        @Override
        public void onStop(final StackShard shard)
        {
            lateAnswers.forEach(ByteBuf::release);
            lateAnswers.clear();
            late.clear();
        }
    }

    /** The upstream peer's 200 to a forwarded request. */
    static void answer(final DatagramSocket upstream, final DatagramPacket request) throws Exception
    {
        final String r = text(request);
        final String ok = "SIP/2.0 200 OK\r\nVia: " + header(r, "Via") + "\r\nFrom: " + header(r, "From")
            + "\r\nTo: " + header(r, "To") + ";tag=up\r\nCall-ID: " + header(r, "Call-ID") + "\r\nCSeq: "
            + header(r, "CSeq") + "\r\nContent-Length: 0\r\n\r\n";
        send(upstream, (InetSocketAddress)request.getSocketAddress(), ok);
    }

    private static String request(final String method, final String callId, final int localPort)
    {
        return method + " sip:uas@127.0.0.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:" + localPort + ";rport;branch=z9hG4bK-" + callId + "\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:uac@127.0.0.1>;tag=u1\r\nTo: <sip:uas@127.0.0.1>\r\n"
            + "Call-ID: " + callId + "\r\nCSeq: 1 " + method + "\r\nContent-Length: 0\r\n\r\n";
    }

    /**
     * The next datagram of a call whose first line starts with {@code start}, skipping the rest (late retransmissions
     * of earlier steps, a 100 Trying); at most 100 datagrams, each within the socket's timeout.
     */
    private static DatagramPacket receiveCall(final DatagramSocket socket, final String callId, final String start)
        throws Exception
    {
        for (int i = 0; i < 100; i++)
        {
            final DatagramPacket p = Datagrams.receivePacket(socket);
            if (callId.equals(header(text(p), "Call-ID")) && firstLine(p).startsWith(start))
            {
                return p;
            }
        }
        throw new AssertionError("no " + start + " for " + callId + " in 100 datagrams");
    }

    /** The ACK for a non-2xx final response (RFC 3261 §17.1.1.3): same branch, the response's To. */
    private static String ack(final String response)
    {
        return "ACK sip:uas@127.0.0.1 SIP/2.0\r\nVia: " + header(response, "Via") + "\r\nMax-Forwards: 70\r\nFrom: "
            + header(response, "From") + "\r\nTo: " + header(response, "To") + "\r\nCall-ID: "
            + header(response, "Call-ID") + "\r\nCSeq: 1 ACK\r\nContent-Length: 0\r\n\r\n";
    }

    static String firstLine(final DatagramPacket p)
    {
        final String t = text(p);
        return t.substring(0, t.indexOf('\r'));
    }
}
