package io.sipline.sip.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Coverage-guided fuzzing of the message parser and of every typed view a stage reads from a parsed message. Without
 * {@code JAZZER_FUZZ} (every build) it runs the seed corpus in
 * {@code src/test/resources/io/sipline/sip/message/SipParserFuzzTestInputs/parse/} (the RFC 4475 torture messages,
 * call-flow messages, and any crash Jazzer found) as regression tests; with {@code JAZZER_FUZZ=1} Jazzer mutates
 * from that corpus for {@code maxDuration}:
 * {@code JAZZER_FUZZ=1 ./mvnw -pl sip-stack -am test -Dtest=SipParserFuzzTest -Dsurefire.failIfNoSpecifiedTests=false}.
 * <p>
 * Property: no input makes the parser or a view throw; a datagram is never {@link ParseResult#INCOMPLETE}; an OK
 * message's body lies inside the input; a stream parse consumes at least one byte per OK frame and never more than
 * it was given. A malformed message is a {@link ParseResult}, which the transport counts as a drop by reason.
 */
class SipParserFuzzTest
{
    private final SipMessage message = new SipMessage();
    private final ViaFlyweight via = new ViaFlyweight();
    private final NameAddrFlyweight address = new NameAddrFlyweight();
    private final SipUriFlyweight uri = new SipUriFlyweight();
    private final MediaTypeFlyweight mediaType = new MediaTypeFlyweight();
    private final MultipartFlyweight multipart = new MultipartFlyweight();
    private final SipMessageEditor editor = new SipMessageEditor();
    private final ByteBuf out = Unpooled.buffer(4096);

    @FuzzTest(maxDuration = "60s")
    void parse(final byte[] input)
    {
        final ParseResult datagram = SipMessageParser.parseDatagram(input, 0, input.length, message);
        assertNotNull(datagram);
        assertNotEquals(ParseResult.INCOMPLETE, datagram, "a datagram is complete or malformed");
        if (ParseResult.OK == datagram)
        {
            assertTrue(message.bodyStart() >= 0 && message.bodyStart() + message.bodyLength() <= input.length,
                "the body lies inside the datagram");
            readEverything();
            edit();
        }
        stream(input);
    }

    private void stream(final byte[] input)
    {
        int offset = 0;
        while (offset < input.length)
        {
            final ParseResult result = SipMessageParser.parseStream(input, offset, input.length - offset, message);
            assertNotNull(result);
            if (ParseResult.OK != result)
            {
                return;
            }
            final int frame = message.frameLength();
            assertTrue(frame > 0 && frame <= input.length - offset, "a frame is inside what was read");
            readEverything();
            offset += frame;
        }
    }

    /** What the stages read of an accepted message: every header, Via, address, URI, media type and body part. */
    private void readEverything()
    {
        final SipMessage m = message;
        for (int i = 0; i < m.headerCount(); i++)
        {
            assertNotNull(m.headerValue(i));
            m.headerNameAsWritten(i);
            final HeaderName name = m.headerName(i);
            if (HeaderName.VIA == name)
            {
                m.via(i, via);
                via.error();
                via.port();
                via.hasMagicCookie();
            }
            else if (HeaderName.FROM == name || HeaderName.TO == name || HeaderName.CONTACT == name
                || HeaderName.ROUTE == name || HeaderName.RECORD_ROUTE == name)
            {
                if (m.address(i, address) && !address.isWildcard())
                {
                    address.hasTag();
                    address.paramIndex("expires");
                    final SipUriFlyweight u = address.uri();
                    if (u.isValid())
                    {
                        u.user();
                        u.host();
                        u.paramValue("transport");
                        UriComparison.equals(u, u);
                    }
                }
            }
        }
        m.callId();
        m.fromTag();
        m.toTag();
        m.topViaBranch();
        m.cseqMethodName();
        m.expires();
        m.valueCount(HeaderName.SUPPORTED);
        m.containsToken(HeaderName.REQUIRE, "100rel");
        if (m.isRequest())
        {
            m.methodName();
            m.requestUri();
            if (m.requestUri(uri))
            {
                uri.host();
                uri.paramValue("maddr");
                uri.ttl();
            }
        }
        else
        {
            m.reasonPhrase();
        }
        if (m.contentType(mediaType))
        {
            mediaType.mimeType();
            final int boundary = mediaType.paramIndex("boundary");
            if (boundary >= 0 && multipart.wrap(m.buffer(), m.bodyStart(), m.bodyStart() + m.bodyLength(),
                mediaType.paramContentStart(boundary), mediaType.paramContentEnd(boundary)))
            {
                int parts = 0;
                while (multipart.next() && parts++ < 1000)
                {
                    assertTrue(multipart.partContentStart() <= multipart.partContentEnd());
                }
            }
        }
    }

    /** A proxy's edit of the message (Via pushed or popped, Route popped, Max-Forwards set), written and re-read. */
    private void edit()
    {
        out.clear();
        editor.wrap(message);
        if (message.isRequest())
        {
            editor.pushVia("SIP/2.0/UDP 192.0.2.1;branch=z9hG4bKfuzz").removeTopRoute().maxForwards(69);
        }
        else
        {
            editor.removeTopVia();
        }
        final int written = editor.writeTo(out);
        assertEquals(out.readableBytes(), written);
        final byte[] again = new byte[written];
        out.getBytes(0, again);
        assertNotNull(SipMessageParser.parseDatagram(again, 0, again.length, new SipMessage()));
    }
}
