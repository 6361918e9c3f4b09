package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;
import io.sipline.sip.message.ViaFlyweight;
import org.junit.jupiter.api.Test;

/**
 * {@link TopViaReader}: the transport of the top Via read from the header lines gives what the parser's reading of
 * the same message gives (RFC 3261 §18.1.1: the top Via decides), for the long and compact names in any case, blanks
 * before the colon, several values on one line, a Via after other headers, no Via, and a top Via that does not parse;
 * folded lines are left to the parser ({@link TopViaReader#UNSURE}); the reader leaves the buffer's indexes as they
 * were, on heap and direct buffers.
 */
class TopViaReaderTest
{
    private static final String TAIL = "From: <sip:a@example.com>;tag=1\r\nTo: <sip:b@example.com>\r\n"
        + "Call-ID: c1\r\nContent-Length: 0\r\n\r\n";

    private final TopViaReader reader = new TopViaReader();

    @Test
    void shouldReadTheTransportOfThePlainTopVia()
    {
        assertBoth(TopViaReader.UDP, "INVITE sip:b@example.com SIP/2.0\r\nVia: SIP/2.0/UDP h:5060;branch=z9hG4bK1\r\n");
        assertBoth(TopViaReader.TCP, "INVITE sip:b@example.com SIP/2.0\r\nVia: SIP/2.0/TCP h:5060;branch=z9hG4bK1\r\n");
        assertBoth(TopViaReader.TLS, "INVITE sip:b@example.com SIP/2.0\r\nVia: SIP/2.0/TLS h;branch=z9hG4bK1\r\n");
        assertBoth(TopViaReader.UDP, "INVITE sip:b@example.com SIP/2.0\r\nVia: SIP/2.0/SCTP h;branch=z9hG4bK1\r\n");
    }

    @Test
    void shouldReadTheCompactAndCaseFreeNamesAndBlanksAroundTheSlashes()
    {
        assertBoth(TopViaReader.TCP, "BYE sip:b@example.com SIP/2.0\r\nv: SIP/2.0/tcp h;branch=z9hG4bK1\r\n");
        assertBoth(TopViaReader.TLS, "BYE sip:b@example.com SIP/2.0\r\nVIA : SIP / 2.0 / tls h;branch=z9hG4bK1\r\n");
        assertBoth(TopViaReader.TCP, "BYE sip:b@example.com SIP/2.0\r\nvIa:SIP/2.0/TCP h;branch=z9hG4bK1\r\n");
    }

    @Test
    void shouldTakeTheFirstValueOfTheFirstViaLineAfterOtherHeaders()
    {
        assertBoth(TopViaReader.TCP, "ACK sip:b@example.com SIP/2.0\r\nMax-Forwards: 70\r\nVia-Extra: x\r\n"
            + "Via: SIP/2.0/TCP h;branch=z9hG4bK1;x=\"a,b\" , SIP/2.0/UDP g;branch=z9hG4bK2\r\n"
            + "Via: SIP/2.0/TLS k;branch=z9hG4bK3\r\n");
        assertBoth(TopViaReader.UDP, "SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP h;branch=z9hG4bK1,SIP/2.0/TCP g\r\n");
    }

    @Test
    void shouldAnswerUdpForNoViaOrOneThatDoesNotParse()
    {
        assertBoth(TopViaReader.UDP, "INVITE sip:b@example.com SIP/2.0\r\nMax-Forwards: 70\r\n");
        assertBoth(TopViaReader.UDP, "INVITE sip:b@example.com SIP/2.0\r\nVia: SIP/2.0/TCP\r\n");
    }

    @Test
    void shouldLeaveFoldedLinesToTheParser()
    {
        assertEquals(TopViaReader.UNSURE, reader.transport(heap("INVITE sip:b@example.com SIP/2.0\r\n"
            + "Via: SIP/2.0/TCP\r\n h;branch=z9hG4bK1\r\nCSeq: 1 INVITE\r\n" + TAIL)));
        assertEquals(TopViaReader.UNSURE, reader.transport(heap("INVITE sip:b@example.com SIP/2.0\r\n"
            + "Subject: a\r\n\tb\r\nVia: SIP/2.0/TCP h;branch=z9hG4bK1\r\nCSeq: 1 INVITE\r\n" + TAIL)));
    }

    @Test
    void shouldLeaveTheBufferIndexesAlone()
    {
        final ByteBuf direct = Unpooled.directBuffer(512);
        direct.writeCharSequence("junk" + "INVITE sip:b@example.com SIP/2.0\r\nVia: SIP/2.0/TCP h;branch=z9hG4bK1\r\n"
            + "CSeq: 1 INVITE\r\n" + TAIL, StandardCharsets.US_ASCII);
        direct.readerIndex(4);
        final int writer = direct.writerIndex();
        assertEquals(TopViaReader.TCP, reader.transport(direct));
        assertEquals(4, direct.readerIndex());
        assertEquals(writer, direct.writerIndex());
        direct.release();
    }

    /** The reader's answer on a heap and a direct buffer, and the parser's reading, are all {@code expected}. */
    private void assertBoth(final int expected, final String head)
    {
        final String method = head.startsWith("SIP/") ? "INVITE" : head.substring(0, head.indexOf(' '));
        final String text = head + "CSeq: 1 " + method + "\r\n" + TAIL;
        assertEquals(expected, reader.transport(heap(text)), "heap: " + text);
        final ByteBuf direct = Unpooled.directBuffer(text.length());
        direct.writeCharSequence(text, StandardCharsets.US_ASCII);
        assertEquals(expected, reader.transport(direct), "direct: " + text);
        direct.release();
        assertEquals(expected, parsed(text), "parser: " + text);
    }

    private static ByteBuf heap(final String text)
    {
        return Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII);
    }

    /** The transport as the full parse reads it (what {@link TransportSelection} did for every message). */
    private static int parsed(final String text)
    {
        final SipMessage m = new SipMessage();
        final ViaFlyweight via = new ViaFlyweight();
        if (SipMessageParser.parseDatagram(heap(text), m) != ParseResult.OK || m.topVia() < 0
            || !via.wrap(m.buffer(), m.headerValueStart(m.topVia()), m.headerValueEnd(m.topVia())))
        {
            return TopViaReader.UDP;
        }
        return TopViaReader.transportOf(m.buffer(), via.transportStart(), via.transportEnd());
    }
}
