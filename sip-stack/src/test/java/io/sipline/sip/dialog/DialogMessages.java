package io.sipline.sip.dialog;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;

/** Realistic message pairs for the dialog tests (RFC 3665-style call flows), built as text and parsed. */
final class DialogMessages
{
    static final String CALL_ID = "a84b4c76e66710@pc33.atlanta.example.com";
    static final String ALICE_TAG = "1928301774";

    private DialogMessages()
    {
    }

    /** Joins header lines with CRLF and ends the header section. */
    static String msg(final String... lines)
    {
        final StringBuilder sb = new StringBuilder();
        for (final String line : lines)
        {
            sb.append(line).append("\r\n");
        }
        return sb.append("\r\n").toString();
    }

    static SipMessage parse(final String text)
    {
        final byte[] b = text.getBytes(StandardCharsets.UTF_8);
        final SipMessage m = new SipMessage();
        assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(b, 0, b.length, m), text);
        return m;
    }

    /** Parses what a writer put into {@code out} (left readable) and returns the message. */
    static SipMessage parse(final ByteBuf out)
    {
        final byte[] b = new byte[out.readableBytes()];
        out.getBytes(out.readerIndex(), b);
        final SipMessage m = new SipMessage();
        assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(b, 0, b.length, m),
            new String(b, StandardCharsets.UTF_8));
        return m;
    }

    static String text(final ByteBuf out)
    {
        return out.toString(out.readerIndex(), out.readableBytes(), StandardCharsets.UTF_8);
    }

    /** Alice's INVITE as Bob (UAS) receives it, through two record-routing proxies (p1 next to Alice). */
    static String inviteToBob(final String requestUri, final String callId, final String fromTag, final long cseq,
        final String... recordRoutes)
    {
        final List<String> lines = new ArrayList<>();
        lines.add("INVITE " + requestUri + " SIP/2.0");
        lines.add("Via: SIP/2.0/UDP p2.example.com;branch=z9hG4bK2d4790.1, SIP/2.0/UDP p1.example.com;branch=z9hG4bK1");
        lines.add("Via: SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bK776asdhds");
        lines.add("Max-Forwards: 68");
        for (final String rr : recordRoutes)
        {
            lines.add("Record-Route: " + rr);
        }
        lines.add("To: Bob <sip:bob@biloxi.example.com>");
        lines.add("From: \"Alice\" <sip:alice@atlanta.example.com>;tag=" + fromTag);
        lines.add("Call-ID: " + callId);
        lines.add("CSeq: " + cseq + " INVITE");
        lines.add("Contact: <sip:alice@pc33.atlanta.example.com>");
        lines.add("Content-Length: 0");
        return msg(lines.toArray(new String[0]));
    }

    static String inviteToBob()
    {
        return inviteToBob("sip:bob@biloxi.example.com", CALL_ID, ALICE_TAG, 314159,
            "<sip:p2.example.com;lr>", "<sip:p1.example.com;lr>");
    }

    /** A request from Alice inside the dialog Bob holds (To carries Bob's tag). */
    static String inDialogFromAlice(final String method, final long cseq, final String bobTag, final String contact)
    {
        return inDialogFromAlice(method, CALL_ID, cseq, bobTag, contact);
    }

    static String inDialogFromAlice(final String method, final String callId, final long cseq, final String bobTag,
        final String contact)
    {
        final List<String> lines = new ArrayList<>();
        lines.add(method + " sip:bob@192.0.2.4 SIP/2.0");
        lines.add("Via: SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bKnashd" + cseq);
        lines.add("Max-Forwards: 70");
        lines.add("Route: <sip:p1.example.com;lr>, <sip:p2.example.com;lr>");
        lines.add("To: Bob <sip:bob@biloxi.example.com>;tag=" + bobTag);
        lines.add("From: \"Alice\" <sip:alice@atlanta.example.com>;tag=" + ALICE_TAG);
        lines.add("Call-ID: " + callId);
        lines.add("CSeq: " + cseq + " " + method);
        if (null != contact)
        {
            lines.add("Contact: " + contact);
        }
        lines.add("Content-Length: 0");
        return msg(lines.toArray(new String[0]));
    }

    // --- UAC side: we are Alice -------------------------------------------------------------------------------------

    static final String OUR_TAG = "s0000a1b2c3d4e5f60";
    static final String OUR_CALL_ID = "s00001234567890abc@pc33.atlanta.example.com";

    /** The INVITE we (Alice) sent. */
    static String ourInvite(final String requestUri, final long cseq)
    {
        return msg(
            "INVITE " + requestUri + " SIP/2.0",
            "Via: SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bKnashds8",
            "Max-Forwards: 70",
            "To: Bob <sip:bob@biloxi.example.com>",
            "From: Alice <sip:alice@atlanta.example.com>;tag=" + OUR_TAG,
            "Call-ID: " + OUR_CALL_ID,
            "CSeq: " + cseq + " INVITE",
            "Contact: <sip:alice@pc33.atlanta.example.com;transport=udp>",
            "Content-Length: 0");
    }

    static String ourInvite()
    {
        return ourInvite("sip:bob@biloxi.example.com", 1);
    }

    /**
     * A response to a request we sent, as it arrives back through the proxies (Record-Route copied from the request,
     * p2 nearest the callee first).
     *
     * @param toTag   null for none.
     * @param contact null for none.
     */
    static String responseToUs(final int status, final String reason, final String method, final long cseq,
        final String toTag, final String contact, final String... recordRoutes)
    {
        final List<String> lines = new ArrayList<>();
        lines.add("SIP/2.0 " + status + " " + reason);
        lines.add("Via: SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bKnashds8;received=192.0.2.101");
        if (recordRoutes.length > 0)
        {
            lines.add("Record-Route: " + String.join(", ", recordRoutes));
        }
        lines.add("To: Bob <sip:bob@biloxi.example.com>" + (null == toTag ? "" : ";tag=" + toTag));
        lines.add("From: Alice <sip:alice@atlanta.example.com>;tag=" + OUR_TAG);
        lines.add("Call-ID: " + OUR_CALL_ID);
        lines.add("CSeq: " + cseq + " " + method);
        if (null != contact)
        {
            lines.add("Contact: " + contact);
        }
        lines.add("Content-Length: 0");
        return msg(lines.toArray(new String[0]));
    }

    /** A response to our INVITE with CSeq 1, through p1 and p2. */
    static String inviteResponse(final int status, final String reason, final String toTag, final String contact)
    {
        return responseToUs(status, reason, "INVITE", 1, toTag, contact,
            "<sip:p2.example.com;lr>", "<sip:p1.example.com;lr>");
    }

    /** A request we send inside a dialog, as the writer would, for the response tests (parsed by the test). */
    static String ourInDialogRequest(final String method, final long cseq, final String remoteTag)
    {
        return msg(
            method + " sip:bob@192.0.2.4 SIP/2.0",
            "Via: SIP/2.0/UDP pc33.atlanta.example.com;branch=z9hG4bKnashds9" + cseq,
            "Max-Forwards: 70",
            "Route: <sip:p1.example.com;lr>, <sip:p2.example.com;lr>",
            "To: Bob <sip:bob@biloxi.example.com>;tag=" + remoteTag,
            "From: Alice <sip:alice@atlanta.example.com>;tag=" + OUR_TAG,
            "Call-ID: " + OUR_CALL_ID,
            "CSeq: " + cseq + " " + method,
            "Contact: <sip:alice@pc33.atlanta.example.com;transport=udp>",
            "Content-Length: 0");
    }
}
