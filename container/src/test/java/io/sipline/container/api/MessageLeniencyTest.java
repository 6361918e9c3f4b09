package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;

import javax.servlet.sip.SipServletRequest;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sipline.sip.message.SipMessage;
import org.junit.jupiter.api.Test;

/**
 * Where the JSR 289 javadoc of {@code SipServletMessage}, {@code SipServletRequest} and {@code SipServletResponse}
 * leaves room, Sipline accepts what the reference container accepts; where it is explicit, it refuses. One test per
 * decision, named after the method (the table is in docs/developing-applications.md).
 */
class MessageLeniencyTest
{
    private static final String SDP = "v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\n";

    private final FakeHost host = new FakeHost();

    @Test
    void setContentLengthOnUnsentResponseIsAccepted() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        final byte[] body = SDP.getBytes(StandardCharsets.US_ASCII);
        assertDoesNotThrow(() -> ok.setContentLength(body.length), "a B2BUA copies Content-Length first");
        ok.setContent(body, "application/sdp");
        assertEquals(body.length, ok.getContentLength());
        assertEquals(body.length, written(ok).contentLength());
    }

    @Test
    void setContentLengthThatDisagreesWithTheContentIsNotWritten() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        ok.setContentLength(999);
        ok.setContent(SDP, "application/sdp");
        assertEquals(SDP.length(), ok.getContentLength(), "the content decides");
        assertEquals(SDP.length(), written(ok).contentLength(), "never a wrong Content-Length on the wire");

        final SipServletResponseImpl ringing = (SipServletResponseImpl)invite.createResponse(180);
        ringing.setContentLength(42);
        assertEquals(0, ringing.getContentLength(), "no content: nothing to announce");
        assertEquals(0, written(ringing).contentLength());
    }

    @Test
    void setContentLengthOnUnsentRequestIsAccepted() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        invite.createResponse(200).send();
        final SipServletRequest bye = invite.sessionImpl().createRequest("BYE");
        assertDoesNotThrow(() -> bye.setContentLength(0));
    }

    @Test
    void setContentLengthOnReceivedRequestIsRefused()
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        assertThrows(IllegalStateException.class, () -> invite.setContentLength(4),
            "JSR 289: IllegalStateException if this is an incoming message");
    }

    @Test
    void setContentLengthOnSentResponseIsRefused() throws Exception
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        ok.send();
        assertThrows(IllegalStateException.class, () -> ok.setContentLength(0),
            "JSR 289: IllegalStateException if it has already been sent");
    }

    @Test
    void setContentLengthNegativeIsRefused()
    {
        final SipServletRequestImpl invite = TestMessages.received(host, TestMessages.INVITE);
        final SipServletResponseImpl ok = (SipServletResponseImpl)invite.createResponse(200);
        assertThrows(IllegalArgumentException.class, () -> ok.setContentLength(-1));
    }

    /** The response as written on the wire, parsed back. */
    private static SipMessage written(final SipServletResponseImpl response)
    {
        final ByteBuf out = Unpooled.buffer();
        try
        {
            MessageWriter.writeResponse(out, response);
            return TestMessages.parse(out.toString(StandardCharsets.UTF_8));
        }
        finally
        {
            out.release();
        }
    }
}
