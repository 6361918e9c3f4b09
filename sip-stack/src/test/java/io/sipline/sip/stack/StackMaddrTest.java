package io.sipline.sip.stack;

import static io.sipline.sip.stack.Datagrams.receive;
import static io.sipline.sip.stack.Datagrams.send;
import static io.sipline.sip.stack.StackTcpTest.awaitTrue;
import static io.sipline.sip.stack.StackTcpTest.header;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.util.List;

import io.netty.handler.codec.dns.DnsRecordType;
import io.sipline.sip.transport.dns.TinyDnsServer;
import org.junit.jupiter.api.Test;

/**
 * A request whose top Via carries {@code maddr} naming a host (RFC 3261 §18.2.2: the response goes to the maddr, at
 * the sent-by port or 5060): the stack locates the name through its own RFC 3263 {@link io.sipline.sip.transport.dns
 * .SipLocator} (here against a {@link TinyDnsServer} on loopback), sends the response and its retransmissions there,
 * asks DNS once per name within the record's TTL, and reports a transport error when the name has no address.
 */
class StackMaddrTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");

    @Test
    void shouldSendResponsesToTheAddressOfAMaddrHostName() throws Exception
    {
        final StreamTestListener.Record record = new StreamTestListener.Record();
        try (TinyDnsServer dns = new TinyDnsServer();
            SipStack stack = SipStack.start(StackTcpTest.config(2).dnsServers(List.of(dns.address())),
                StreamTestListener.factory(record));
            DatagramSocket client = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0));
            DatagramSocket maddr = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            client.setSoTimeout(5_000);
            maddr.setSoTimeout(5_000);
            dns.a("responses.maddr.test", 300, "127.0.0.1");
            final InetSocketAddress server = stack.localAddresses().get(0);
            for (int i = 0; i < 3; i++)
            {
                // The sent-by host is not ours; maddr names the host, the sent-by port the port; rport is ignored
                // when maddr is present (RFC 3581 §4).
                final String callId = "maddr-" + i;
                send(client, server, options(callId, "client.invalid:" + maddr.getLocalPort()
                    + ";rport;maddr=responses.maddr.test"));
                final String response = receive(maddr);
                assertTrue(response.startsWith("SIP/2.0 200 OK\r\n"), response);
                assertEquals(callId, header(response, "Call-ID"));
            }
            final int asked = dns.asked("responses.maddr.test", DnsRecordType.A);
            assertTrue(asked >= 1 && asked <= 2, "once per shard at most within the TTL, asked " + asked);
            assertEquals(0, record.transportErrors.get());
            client.setSoTimeout(200);
            assertTrue(nothing(client), "nothing went to the source address");
        }
    }

    @Test
    void shouldReportATransportErrorWhenTheMaddrHostHasNoAddress() throws Exception
    {
        final StreamTestListener.Record record = new StreamTestListener.Record();
        try (TinyDnsServer dns = new TinyDnsServer();
            SipStack stack = SipStack.start(StackTcpTest.config(1).dnsServers(List.of(dns.address())),
                StreamTestListener.factory(record));
            DatagramSocket client = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            send(client, stack.localAddresses().get(0), options("nowhere", "127.0.0.1:" + client.getLocalPort()
                + ";maddr=nowhere.maddr.test"));
            awaitTrue(() -> record.requests.contains("nowhere"), "the request reached the listener");
            awaitTrue(() -> 1 == record.transportErrors.get(), "no address for the maddr: transport error (§17.2.4)");
            client.setSoTimeout(200);
            assertTrue(nothing(client), "the response did not fall back to the source");
        }
    }

    private static String options(final String callId, final String sentBy)
    {
        return "OPTIONS sip:uas@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP " + sentBy + ";branch=z9hG4bK-" + callId + "\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:uac@127.0.0.1>;tag=u1\r\nTo: <sip:uas@127.0.0.1>\r\nCall-ID: " + callId
            + "\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n";
    }

    /** True when no datagram arrives within the socket's (short) timeout. */
    private static boolean nothing(final DatagramSocket socket) throws Exception
    {
        try
        {
            receive(socket);
            return false;
        }
        catch (final SocketTimeoutException expected)
        {
            return true;
        }
    }
}
