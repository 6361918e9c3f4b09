package io.sipline.container.api;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;

/** Parsed messages and received requests in a session of a {@link FakeHost}, for the message unit tests. */
public final class TestMessages
{
    public static final InetSocketAddress PEER = new InetSocketAddress("192.0.2.9", 5062);
    public static final InetSocketAddress LOCAL = new InetSocketAddress("192.0.2.1", 5060);

    public static final String INVITE = "INVITE sip:bob@192.0.2.1 SIP/2.0\r\n"
        + "Via: SIP/2.0/UDP 192.0.2.9:5062;branch=z9hG4bK776asdhds, SIP/2.0/UDP 192.0.2.8;branch=z9hG4bKx\r\n"
        + "Max-Forwards: 70\r\n"
        + "f: \"Alice\" <sip:alice@atlanta.example>;tag=1928301774\r\n"
        + "To: Bob <sip:bob@biloxi.example>\r\n"
        + "Call-ID: a84b4c76e66710@pc33.atlanta.example\r\n"
        + "CSeq: 314159 INVITE\r\n"
        + "Contact: <sip:alice@192.0.2.9:5062>\r\n"
        + "Record-Route: <sip:p1.example;lr>\r\n"
        + "X-Custom: one\r\n"
        + "X-Custom: two\r\n"
        + "Subject: lunch\r\n"
        + " and more\r\n"
        + "Content-Type: application/sdp\r\n"
        + "Content-Length: 4\r\n\r\nv=0\n";

    private TestMessages()
    {
    }

    public static SipMessage parse(final String text)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        final SipMessage m = new SipMessage();
        if (SipMessageParser.parseDatagram(bytes, 0, bytes.length, m) != ParseResult.OK)
        {
            throw new IllegalArgumentException("does not parse: " + m.result());
        }
        return m;
    }

    /** A received initial request in a new UAS session of a new application session on {@code host}. */
    public static SipServletRequestImpl received(final FakeHost host, final String text)
    {
        final SipServletRequestImpl r = SipServletRequestImpl.received(parse(text), null, PEER, LOCAL);
        r.initial(true);
        final SipApplicationSessionImpl app = new SipApplicationSessionImpl(new FakeApp(), host, null);
        SipSessionImpl.forReceived(app, r, "main");
        return r;
    }
}
