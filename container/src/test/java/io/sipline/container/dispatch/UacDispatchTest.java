package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import javax.servlet.sip.SipApplicationSession;
import javax.servlet.sip.SipFactory;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;
import javax.servlet.sip.SipServletResponse;

import org.junit.jupiter.api.Test;

/**
 * The application as a UAC (JSR 289 §4.1.1): from a thread of its own it creates an application session and an
 * OPTIONS with the SipFactory and sends it; the response comes back to its servlet on the session's shard. The peer
 * is a datagram socket in the test, answering as a UAS would.
 */
class UacDispatchTest
{
    static final BlockingQueue<String> RESPONSES = new ArrayBlockingQueue<>(16);

    /** Records the responses to what the application sent. */
    public static final class Recorder extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doSuccessResponse(final SipServletResponse resp)
        {
            RESPONSES.add(resp.getStatus() + " " + resp.getMethod() + " " + resp.getHeader("X-Peer")
                + " initial=" + resp.getRequest().isInitial());
        }
    }

    @Test
    void shouldSendARequestFromTheApplicationsThreadAndDeliverItsResponse() throws Exception
    {
        RESPONSES.clear();
        try (ContainerServer server = TestApps.server();
             DatagramSocket peer = new DatagramSocket(new InetSocketAddress(TestApps.LOOPBACK, 0)))
        {
            peer.setSoTimeout(5_000);
            server.registry().onDeployed(TestApps.application("uac", new Recorder(), Map.of()));
            final SipFactory factory = TestApps.factory(server, "uac");
            final SipApplicationSession app = factory.createApplicationSession();
            final SipServletRequest options = factory.createRequest(app, "OPTIONS", "<sip:app@127.0.0.1>",
                "<sip:peer@127.0.0.1:" + peer.getLocalPort() + ">");
            options.setHeader("X-App", "yes");
            options.send();

            final byte[] buf = new byte[4096];
            final DatagramPacket in = new DatagramPacket(buf, buf.length);
            peer.receive(in);
            final String request = new String(buf, 0, in.getLength(), StandardCharsets.US_ASCII);
            assertTrue(request.startsWith("OPTIONS sip:peer@127.0.0.1:" + peer.getLocalPort() + " SIP/2.0\r\n"),
                request);
            assertTrue(request.contains("X-App: yes\r\n") && request.contains("CSeq: 1 OPTIONS\r\n"), request);
            final StringBuilder answer = new StringBuilder("SIP/2.0 200 OK\r\n");
            for (final String line : request.split("\r\n"))
            {
                if (line.startsWith("Via:") || line.startsWith("From:") || line.startsWith("Call-ID:")
                    || line.startsWith("CSeq:"))
                {
                    answer.append(line).append("\r\n");
                }
                else if (line.startsWith("To:"))
                {
                    answer.append(line).append(";tag=peer1\r\n");
                }
            }
            answer.append("X-Peer: answered\r\nContent-Length: 0\r\n\r\n");
            final byte[] out = answer.toString().getBytes(StandardCharsets.US_ASCII);
            peer.send(new DatagramPacket(out, out.length, in.getSocketAddress()));

            assertEquals("200 OPTIONS answered initial=true", RESPONSES.poll(5, TimeUnit.SECONDS));
            assertTrue(TestApps.await(() -> 0 == server.applicationSessions()),
                "the dialog-less session is invalidated when its transaction completed");
        }
    }
}
