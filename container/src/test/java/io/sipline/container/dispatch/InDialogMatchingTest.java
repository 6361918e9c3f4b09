package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * RFC 3261 §12.2.2 at the container's door: a request with our To tag is delivered to the session's servlet only
 * when its From tag is the dialog's remote tag (else 481) and its CSeq is not lower than the last one received in
 * the dialog (else 500); neither refusal reaches the application, and the dialog keeps working after them.
 */
class InDialogMatchingTest
{
    private static final Pattern TO_TAG = Pattern.compile("\r\nTo: [^\r]*;tag=([^;\r]+)");

    @Test
    void shouldRefuseAnotherRemoteTagWith481AndALowerCSeqWith500() throws Exception
    {
        final RecordingUas uas = new RecordingUas();
        try (ContainerServer server = TestApps.server();
            DatagramSocket socket = new DatagramSocket(new InetSocketAddress(TestApps.LOOPBACK, 0)))
        {
            server.registry().onDeployed(TestApps.application("uas", uas, Map.of()));
            socket.setSoTimeout(5_000);
            final InetSocketAddress to = DispatchSippTest.address(server);
            final int port = socket.getLocalPort();

            final String ok = send(socket, to, request("INVITE", 5, "a1", null, "i1", port));
            assertTrue(ok.startsWith("SIP/2.0 200 OK\r\n"), ok);
            final Matcher m = TO_TAG.matcher(ok);
            assertTrue(m.find(), ok);
            final String tag = m.group(1);
            sendOnly(socket, to, request("ACK", 5, "a1", tag, "i1", port));

            final String lower = send(socket, to, request("OPTIONS", 4, "a1", tag, "o1", port));
            assertTrue(lower.startsWith("SIP/2.0 500 "), lower);
            final String otherTag = send(socket, to, request("OPTIONS", 6, "x9", tag, "o2", port));
            assertTrue(otherTag.startsWith("SIP/2.0 481 "), otherTag);
            final String inOrder = send(socket, to, request("OPTIONS", 6, "a1", tag, "o3", port));
            assertTrue(inOrder.startsWith("SIP/2.0 200 OK\r\n"), inOrder);
            final String bye = send(socket, to, request("BYE", 7, "a1", tag, "b1", port));
            assertTrue(bye.startsWith("SIP/2.0 200 OK\r\n"), bye);

            assertTrue(TestApps.await(() -> uas.seen.size() >= 4), uas.seen.toString());
            assertEquals(List.of("INVITE", "ACK", "OPTIONS", "BYE"), List.copyOf(uas.seen),
                "neither refused request reaches the servlet");
        }
    }

    private static String request(final String method, final long cseq, final String fromTag, final String toTag,
        final String branch, final int port)
    {
        return method + " sip:service@127.0.0.1 SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:" + port + ";branch=z9hG4bK-" + branch + "\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:alice@127.0.0.1>;tag=" + fromTag + "\r\n"
            + "To: <sip:service@127.0.0.1>" + (null == toTag ? "" : ";tag=" + toTag) + "\r\n"
            + "Call-ID: in-dialog-matching\r\n"
            + "CSeq: " + cseq + " " + method + "\r\n"
            + "Contact: <sip:alice@127.0.0.1:" + port + ">\r\n"
            + "Content-Length: 0\r\n\r\n";
    }

    private static void sendOnly(final DatagramSocket socket, final InetSocketAddress to, final String text)
        throws Exception
    {
        final byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        socket.send(new DatagramPacket(bytes, bytes.length, to));
    }

    /** Sends a request and returns its first final response, skipping provisionals and retransmitted 2xx. */
    private static String send(final DatagramSocket socket, final InetSocketAddress to, final String text)
        throws Exception
    {
        sendOnly(socket, to, text);
        final String cseq = text.substring(text.indexOf("CSeq: "), text.indexOf("\r\n", text.indexOf("CSeq: ")));
        final byte[] in = new byte[4096];
        for (int i = 0; i < 10; i++)
        {
            final DatagramPacket p = new DatagramPacket(in, in.length);
            socket.receive(p);
            final String got = new String(in, 0, p.getLength(), StandardCharsets.US_ASCII);
            if (!got.startsWith("SIP/2.0 1") && got.contains(cseq + "\r\n"))
            {
                return got;
            }
        }
        throw new AssertionError("no final response to " + cseq);
    }
}
