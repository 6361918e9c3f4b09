package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.sipline.sip.stack.demo.DemoUas;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Multi-port: the stack binds 1, 100 and 1,000 UDP ports with two shards, and a small sender
 * round-robins OPTIONS over every port (a window of 64 outstanding). Each OPTIONS gets its 200 from a server
 * transaction, and the 200 leaves from the port the OPTIONS was sent to (RFC 3581 §4) — also when the shard that
 * read it handed it to the shard that owns its Call-ID.
 */
class StackMultiPortTest
{
    private static final InetAddress LOOPBACK = InetAddress.ofLiteral("127.0.0.1");
    private static final int WINDOW = 64;

    @ParameterizedTest
    @ValueSource(ints = {1, 100, 1_000})
    void shouldAnswerOptionsOnEveryPort(final int portCount) throws Exception
    {
        final int[] ports = new int[portCount]; // all 0: the kernel picks each port
        final DemoUas.Stats stats = new DemoUas.Stats();
        try (SipStack stack = SipStack.start(
            new SipStackConfig().addresses(List.of(LOOPBACK)).ports(ports).shards(2), DemoUas.factory(stats)))
        {
            final List<InetSocketAddress> endpoints = stack.localAddresses();
            assertEquals(portCount, endpoints.size());
            final int total = Math.max(2_000, 2 * portCount);
            final int[] targetPort = new int[total];
            final boolean[] answered = new boolean[total];
            int answers = 0;
            int wrongSource = 0;
            try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0)))
            {
                socket.setSoTimeout(5_000);
                final byte[] rx = new byte[2048];
                final DatagramPacket in = new DatagramPacket(rx, rx.length);
                int next = 0;
                while (answers < total)
                {
                    while (next < total && next - answers < WINDOW)
                    {
                        final InetSocketAddress to = endpoints.get(next % portCount);
                        targetPort[next] = to.getPort();
                        final byte[] msg = options(next, socket.getLocalPort(), to.getPort());
                        socket.send(new DatagramPacket(msg, msg.length, to));
                        next++;
                    }
                    try
                    {
                        socket.receive(in);
                    }
                    catch (final SocketTimeoutException e)
                    {
                        break; // counted as missing below
                    }
                    final String text = new String(rx, 0, in.getLength(), StandardCharsets.US_ASCII);
                    final int i = callIndex(text);
                    if (text.startsWith("SIP/2.0 200") && i >= 0 && !answered[i])
                    {
                        answered[i] = true;
                        answers++;
                        if (in.getPort() != targetPort[i])
                        {
                            wrongSource++;
                        }
                    }
                }
            }
            System.out.println(portCount + " ports: " + answers + "/" + total + " OPTIONS answered, hand-overs "
                + stack.handoffs() + ", channels " + stack.transport().channelCount());
            assertEquals(total, answers, "answered OPTIONS");
            assertEquals(0, wrongSource, "200s that left from another port than the OPTIONS arrived on");
            assertEquals(2 * portCount, stack.transport().channelCount());
            assertTrue(stack.handoffs() > 0, "two shards: some OPTIONS must be handed over");
            assertEquals(total, stats.others.get());
        }
    }

    private static byte[] options(final int i, final int localPort, final int port)
    {
        return ("OPTIONS sip:ping@127.0.0.1:" + port + " SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:" + localPort + ";branch=z9hG4bKmp" + i + ";rport\r\n"
            + "Max-Forwards: 70\r\nFrom: <sip:mp@127.0.0.1>;tag=mp" + i + "\r\nTo: <sip:ping@127.0.0.1>\r\n"
            + "Call-ID: mp-" + i + "@127.0.0.1\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    }

    private static int callIndex(final String response)
    {
        final int at = response.indexOf("Call-ID: mp-");
        if (at < 0)
        {
            return -1;
        }
        final int end = response.indexOf('@', at);
        return Integer.parseInt(response.substring(at + "Call-ID: mp-".length(), end));
    }
}
