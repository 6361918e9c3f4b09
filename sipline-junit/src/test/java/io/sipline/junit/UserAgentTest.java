package io.sipline.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Two agents talking to each other directly, without a container. */
class UserAgentTest
{
    private final UserAgent alice = UserAgent.open("alice");
    private final UserAgent bob = UserAgent.open("bob");

    @AfterEach
    void close()
    {
        alice.close();
        bob.close();
    }

    @Test
    void callsAcknowledgesAndHangsUp()
    {
        final ClientTransaction invite = alice.invite(bob.uri());
        final ServerTransaction incoming = bob.expectRequest("INVITE");
        incoming.respond(180).respond(200, "application/sdp", "v=0\r\n");
        assertEquals(180, invite.expect(180).status());
        final SipMessage ok = invite.expect(200);
        assertNotNull(ok.toTag());
        assertEquals("v=0\r\n", ok.body());
        invite.ack();

        final SipMessage ack = bob.expectRequest("ACK").request();
        assertEquals(bob.uri(), ack.requestUri(), "the ACK goes to the callee's Contact");
        assertEquals(invite.request().cseq(), ack.cseq());
        assertEquals(ok.toTag(), ack.toTag());
        assertNotEquals(invite.request().branch(), ack.branch(), "the ACK of a 2xx is a new transaction");

        final ClientTransaction bye = incoming.dialog().bye();
        final ServerTransaction byeIn = alice.expectRequest("BYE");
        assertEquals(ok.toTag(), byeIn.request().fromTag(), "the callee's tag is now the From tag");
        assertEquals(invite.request().fromTag(), byeIn.request().toTag());
        byeIn.respond(200);
        bye.expect(200);
    }

    @Test
    void acknowledgesNonSuccessItselfAndReportsTheWrongStatus()
    {
        final ClientTransaction invite = alice.invite(bob.uri());
        bob.expectRequest("INVITE").respond(486);
        final AssertionError wrong = assertThrows(AssertionError.class, () -> invite.expect(200));
        assertTrue(wrong.getMessage().contains("486"), wrong.getMessage());
        bob.expectNoRequest("ACK", Duration.ofMillis(300)); // absorbed by bob's INVITE server transaction
    }

    @Test
    void cancelsARingingCall()
    {
        final ClientTransaction invite = alice.invite(bob.uri());
        final ServerTransaction incoming = bob.expectRequest("INVITE").respond(180);
        invite.expect(180);
        final ClientTransaction cancel = invite.cancel();
        final ServerTransaction cancelIn = bob.expectRequest("CANCEL");
        assertEquals(invite.request().branch(), cancelIn.request().branch(), "§9.1: the INVITE's branch");
        cancelIn.respond(200);
        incoming.respond(487);
        cancel.expect(200);
        invite.expect(487);
    }

    @Test
    void answersARetransmittedRequestWithTheLastResponse() throws Exception
    {
        try (DatagramSocket raw = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0)))
        {
            raw.setSoTimeout(5_000);
            final String options = "OPTIONS " + bob.uri() + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:" + raw.getLocalPort() + ";branch=z9hG4bKraw1\r\n"
                + "From: <sip:raw@127.0.0.1>;tag=r1\r\nTo: <" + bob.uri() + ">\r\nCall-ID: raw1\r\n"
                + "CSeq: 1 OPTIONS\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n";
            final byte[] bytes = options.getBytes(StandardCharsets.US_ASCII);
            raw.send(new DatagramPacket(bytes, bytes.length, bob.address()));
            bob.expectRequest("OPTIONS").respond(200);
            final String first = receive(raw);
            raw.send(new DatagramPacket(bytes, bytes.length, bob.address()));
            assertEquals(first, receive(raw), "the retransmission gets the same response");
            bob.expectNoRequest("OPTIONS", Duration.ofMillis(200));
        }
    }

    @Test
    void timesOutNamingWhatArrived()
    {
        alice.timeout(Duration.ofMillis(300));
        final ClientTransaction options = alice.send(alice.createRequest("OPTIONS", bob.uri()));
        bob.expectRequest("OPTIONS").respond(100);
        final AssertionError none = assertThrows(AssertionError.class, () -> options.expect(200));
        assertTrue(none.getMessage().contains("SIP/2.0 100 Trying"), none.getMessage());
    }

    @Test
    void acknowledgesEveryRetransmissionOfAFinalResponse() throws Exception
    {
        try (DatagramSocket raw = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0)))
        {
            raw.setSoTimeout(5_000);
            final String callee = "sip:raw@127.0.0.1:" + raw.getLocalPort();
            final ClientTransaction invite = alice.invite(callee);
            final SipMessage request = SipMessage.parse(receive(raw));
            final SipMessage ok = SipMessage.response(200, "OK");
            for (final String via : request.headers("Via"))
            {
                ok.add("Via", via);
            }
            ok.add("From", request.header("From")).add("To", request.header("To") + ";tag=r2")
                .add("Call-ID", request.callId()).add("CSeq", request.header("CSeq"))
                .add("Contact", "<" + callee + ">");
            final byte[] bytes = ok.toString().getBytes(StandardCharsets.US_ASCII);
            raw.send(new DatagramPacket(bytes, bytes.length, alice.address()));
            invite.expect(200);
            invite.ack();
            final String ack = receive(raw);
            assertTrue(ack.startsWith("ACK " + callee), ack);
            raw.send(new DatagramPacket(bytes, bytes.length, alice.address())); // the 200 again
            assertEquals(ack, receive(raw), "RFC 3261 13.2.2.4: the same ACK for each retransmitted 2xx");
            final AssertionError none = assertThrows(AssertionError.class,
                () -> invite.expect(200, Duration.ofMillis(200)));
            assertTrue(none.getMessage().contains("no 200"), "a retransmission is not a second response");
        }
    }

    private static String receive(final DatagramSocket socket) throws Exception
    {
        final byte[] in = new byte[4096];
        final DatagramPacket p = new DatagramPacket(in, in.length);
        socket.receive(p);
        return new String(in, 0, p.getLength(), StandardCharsets.US_ASCII);
    }
}
