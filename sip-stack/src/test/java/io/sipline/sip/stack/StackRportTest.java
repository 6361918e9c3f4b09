package io.sipline.sip.stack;

import static io.sipline.sip.stack.Datagrams.receive;
import static io.sipline.sip.stack.Datagrams.send;
import static io.sipline.sip.stack.StackTcpTest.header;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import org.junit.jupiter.api.Test;

/**
 * Where stateful responses go and how their top Via is stamped (RFC 3261 §18.2.1, §18.2.2; RFC 3581 §4), through the
 * whole stack on loopback: with {@code rport} the response goes to the source port and carries
 * {@code rport=<port>;received=<address>}; without it, to the sent-by port, with {@code received} when the sent-by
 * host is not the source address; over TCP, {@code received} is stamped too and the response stays on the
 * connection. The 100 Trying of an INVITE is stamped like the final response.
 */
class StackRportTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");

    @Test
    void shouldAnswerToTheSourcePortWithRportAndToTheSentByPortWithout() throws Exception
    {
        final StreamTestListener.Record record = new StreamTestListener.Record();
        try (SipStack stack = SipStack.start(StackTcpTest.config(2), StreamTestListener.factory(record));
            DatagramSocket client = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0));
            DatagramSocket sentBy = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
        {
            client.setSoTimeout(5_000);
            sentBy.setSoTimeout(5_000);
            final InetSocketAddress server = stack.localAddresses().get(0);

            // RFC 3581 §4: rport asked for, sent-by names another host and port: back to the source address:port.
            send(client, server, options("rport-1", "192.0.2.1:5099;rport"));
            final String withRport = receive(client);
            assertEquals("SIP/2.0/UDP 192.0.2.1:5099;rport=" + client.getLocalPort() + ";branch=z9hG4bK-rport-1"
                + ";received=127.0.0.1", header(withRport, "Via"), withRport);

            // RFC 3261 §18.2.2: no rport: the source address with the sent-by port; received as sent-by differs.
            send(client, server, options("sentby-1", "localhost:" + sentBy.getLocalPort()));
            final String toSentBy = receive(sentBy);
            assertEquals("SIP/2.0/UDP localhost:" + sentBy.getLocalPort() + ";branch=z9hG4bK-sentby-1"
                + ";received=127.0.0.1", header(toSentBy, "Via"), toSentBy);

            // Sent-by is the source address already: no received (RFC 3261 §18.2.1).
            send(client, server, options("same-1", "127.0.0.1:" + client.getLocalPort()));
            final String same = receive(client);
            assertEquals("SIP/2.0/UDP 127.0.0.1:" + client.getLocalPort() + ";branch=z9hG4bK-same-1",
                header(same, "Via"), same);
        }
    }

    @Test
    void shouldStampTheViaOfResponsesOnAConnectionAndOfOneHundredTrying() throws Exception
    {
        final StreamTestListener.Record record = new StreamTestListener.Record();
        try (SipStack stack = SipStack.start(StackTcpTest.config(1), StreamTestListener.factory(record));
            StreamClient client = StreamClient.connect(stack.tcpAddresses().get(0)))
        {
            client.write(StackTcpTest.request("INVITE", "tcp-rport", client.localPort(), "TCP")
                .replace("127.0.0.1:" + client.localPort() + ";", "client.invalid:5060;rport;"));
            final String trying = client.readMessage();
            assertTrue(trying.startsWith("SIP/2.0 100 Trying\r\n"), trying);
            final String expected = "SIP/2.0/TCP client.invalid:5060;rport=" + client.localPort()
                + ";branch=z9hG4bK-tcp-rport;received=127.0.0.1";
            assertEquals(expected, header(trying, "Via"), trying);
            final String busy = client.readMessage();
            assertTrue(busy.startsWith("SIP/2.0 486 Busy Here\r\n"), busy);
            assertEquals(expected, header(busy, "Via"), busy);
        }
    }

    private static String options(final String callId, final String sentBy)
    {
        return "OPTIONS sip:uas@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP " + sentBy.replace(";rport", "")
            + (sentBy.endsWith(";rport") ? ";rport" : "") + ";branch=z9hG4bK-" + callId + "\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:uac@127.0.0.1>;tag=u1\r\nTo: <sip:uas@127.0.0.1>\r\nCall-ID: " + callId
            + "\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n";
    }
}
