package io.sipline.sip.stack;

import static io.sipline.sip.stack.StackTcpTest.awaitTrue;
import static io.sipline.sip.stack.StackTcpTest.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sipline.sip.test.SelfSignedPem;
import io.sipline.sip.transport.tcp.TcpCounters;

/**
 * The limits of the stack's TCP and TLS listeners against connection abuse, over real loopback sockets: connections
 * from one address beyond the per-address cap and beyond the total are closed at their accept and counted, while
 * those admitted are served and a closed one gives its place back; a TLS ClientHello of garbage closes its connection
 * and is counted as a TLS failure. The timers (message timeout) are tested on a fake clock in
 * {@code TcpConnectionTest}.
 */
class StackConnectionLimitsTest
{
    @TempDir
    static Path directory;

    @Test
    void shouldCloseConnectionsBeyondThePerAddressCapAndCountThem() throws Exception
    {
        try (SipStack stack = SipStack.start(StackTcpTest.config(2).maxConnectionsPerAddress(2),
            StreamTestListener.factory(new StreamTestListener.Record())))
        {
            final InetSocketAddress server = stack.tcpAddresses().get(0);
            try (StreamClient a = StreamClient.connect(server); StreamClient b = StreamClient.connect(server))
            {
                awaitTrue(() -> 2 == stack.streamConnections(), "two admitted");
                try (Socket third = connect(server))
                {
                    assertClosedByServer(third);
                }
                awaitTrue(() -> 1 == stack.streamCounters().get(TcpCounters.OVER_MAX_PER_ADDRESS),
                    "the third counted: " + stack.streamCounters());
                a.write(request("OPTIONS", "cap-a", a.localPort(), "TCP"));
                assertTrue(a.readMessage().startsWith("SIP/2.0 200 OK\r\n"), "an admitted connection is served");
                b.write(request("OPTIONS", "cap-b", b.localPort(), "TCP"));
                assertTrue(b.readMessage().startsWith("SIP/2.0 200 OK\r\n"), "and the other one");
            }
            awaitTrue(() -> 0 == stack.streamConnections(), "places given back at the close");
            try (StreamClient again = StreamClient.connect(server))
            {
                again.write(request("OPTIONS", "cap-again", again.localPort(), "TCP"));
                assertTrue(again.readMessage().startsWith("SIP/2.0 200 OK\r\n"), "admitted once places are free");
            }
        }
    }

    @Test
    void shouldCloseConnectionsBeyondTheTotal() throws Exception
    {
        try (SipStack stack = SipStack.start(StackTcpTest.config(1).maxConnections(3),
            StreamTestListener.factory(new StreamTestListener.Record())))
        {
            final InetSocketAddress server = stack.tcpAddresses().get(0);
            final List<Socket> open = new ArrayList<>();
            try
            {
                for (int i = 0; i < 3; i++)
                {
                    open.add(connect(server));
                }
                awaitTrue(() -> 3 == stack.streamConnections(), "three admitted");
                for (int i = 0; i < 5; i++)
                {
                    try (Socket over = connect(server))
                    {
                        assertClosedByServer(over);
                    }
                }
                awaitTrue(() -> 5 == stack.streamCounters().get(TcpCounters.OVER_MAX_CONNECTIONS),
                    "five refused: " + stack.streamCounters());
                assertEquals(3, stack.streamConnections());
            }
            finally
            {
                for (final Socket s : open)
                {
                    s.close();
                }
            }
        }
    }

    @Test
    void shouldCloseATlsConnectionWhoseClientHelloIsGarbage() throws Exception
    {
        final SelfSignedPem pem = SelfSignedPem.generate(directory);
        try (SipStack stack = SipStack.start(StackTcpTest.config(1).tlsCertificate(pem.certificate())
            .tlsPrivateKey(pem.privateKey()).tlsPorts(0), StreamTestListener.factory(new StreamTestListener.Record())))
        {
            final InetSocketAddress server = stack.tlsAddresses().get(0);
            final byte[] garbage = new byte[4096];
            new Random(28).nextBytes(garbage);
            garbage[0] = 0x16; // a handshake record type, then nonsense: past the first byte check of the record layer
            for (int i = 0; i < 3; i++)
            {
                try (Socket s = connect(server))
                {
                    s.getOutputStream().write(garbage);
                    s.getOutputStream().flush();
                    assertClosedByServer(s);
                }
            }
            awaitTrue(() -> stack.streamCounters().get(TcpCounters.TLS_FAILURES) >= 3,
                "three TLS failures: " + stack.streamCounters());
            awaitTrue(() -> 0 == stack.streamConnections(), "every place given back");
        }
    }

    private static Socket connect(final InetSocketAddress server) throws IOException
    {
        final Socket s = new Socket();
        s.connect(server, 5_000);
        s.setSoTimeout(5_000);
        return s;
    }

    /**
     * The server closes: end of stream (or a reset) before the 5 s read timeout; no SIP byte before it, at most a TLS
     * alert record (7 bytes).
     */
    private static void assertClosedByServer(final Socket s) throws IOException
    {
        final InputStream in = s.getInputStream();
        try
        {
            int bytes = 0;
            while (in.read() >= 0)
            {
                assertTrue(++bytes <= 7, "nothing but a TLS alert before the close: " + bytes + " bytes");
            }
        }
        catch (final SocketException reset)
        {
            // a reset is a close too
        }
    }
}
