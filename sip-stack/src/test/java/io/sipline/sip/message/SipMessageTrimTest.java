package io.sipline.sip.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/**
 * {@link SipMessage#trimScratch}: a reused message lets go of the arrays a burst of large messages grew once no
 * message since the last trim needed them, keeps what steady traffic needs (no allocation), and forgets the last
 * message and its views' spans.
 */
class SipMessageTrimTest
{
    /** An OPTIONS (RFC 3261 §11) with {@code extraLines} headers of {@code lineBytes} bytes each besides its own. */
    private static ByteBuf options(final int extraLines, final int lineBytes)
    {
        final StringBuilder sb = new StringBuilder("OPTIONS sip:b@example.com SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKtrim\r\n"
            + "Max-Forwards: 70\r\nTo: <sip:b@example.com>\r\nFrom: <sip:a@example.com>;tag=1\r\n"
            + "Call-ID: trim@192.0.2.1\r\nCSeq: 1 OPTIONS\r\n");
        for (int i = 0; i < extraLines; i++)
        {
            sb.append("X-Pad-").append(i).append(": ").append("x".repeat(lineBytes)).append("\r\n");
        }
        sb.append("Content-Length: 0\r\n\r\n");
        return Unpooled.wrappedBuffer(sb.toString().getBytes(StandardCharsets.US_ASCII));
    }

    private static void parse(final SipMessage m, final ByteBuf datagram)
    {
        assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(datagram, m));
        datagram.release();
    }

    @Test
    void aBurstsLargeArrayGoesAtTheFirstTrimWithNoLargeMessageSinceTheLast()
    {
        final SipMessage m = new SipMessage();
        parse(m, options(1, 20_000)); // one header of 20 KB, as the wire fuzzer sends (1 to 60 KB)
        final byte[] large = m.ownBuffer;
        assertTrue(large.length > SipMessage.KEPT_OWN_BYTES);
        assertTrue(m.viaScratch.wrap(m.buffer(), m.headerValueStart(m.topVia()), m.headerValueEnd(m.topVia())));

        m.trimScratch();
        assertSame(large, m.ownBuffer, "a message since the last trim needed it: kept one more second");
        assertEquals(ParseResult.EMPTY, m.result(), "the last message is forgotten");
        assertNull(m.viaScratch.buffer(), "and the view's span into it");
        m.trimScratch();
        assertEquals(SipMessage.INITIAL_OWN_BYTES, m.ownBuffer.length, "no large message for a whole trim: let go");
        assertSame(m.ownBuffer, m.buffer(), "the message points at its own array, not the one let go");

        parse(m, options(0, 0));
        assertEquals("trim@192.0.2.1", m.callId());
    }

    @Test
    void arraysSteadyTrafficNeedsAreKeptWithoutAllocation()
    {
        final SipMessage m = new SipMessage();
        parse(m, options(100, 100)); // 100 extra headers, 12 KB: more than the initial index and array
        final byte[] own = m.ownBuffer;
        final int[] index = m.index;
        assertTrue(own.length > SipMessage.INITIAL_OWN_BYTES && own.length <= SipMessage.KEPT_OWN_BYTES);
        for (int second = 0; second < 5; second++)
        {
            m.trimScratch();
            parse(m, options(100, 100));
            assertSame(own, m.ownBuffer, "an array up to the kept size stays");
            assertSame(index, m.index, "an index recent use needed stays");
        }
    }

    @Test
    void aGrownArrayUpToTheKeptSizeGoesAfterAQuietMinute()
    {
        final SipMessage m = new SipMessage();
        parse(m, options(100, 100)); // 12 KB: grown, but within the kept size
        final byte[] own = m.ownBuffer;
        assertTrue(own.length > SipMessage.INITIAL_OWN_BYTES && own.length <= SipMessage.KEPT_OWN_BYTES);
        m.trimScratch(); // the large message was since the last trim
        for (int trim = 1; trim < SipMessage.QUIET_TRIMS; trim++)
        {
            parse(m, options(0, 0)); // small messages only
            m.trimScratch();
            assertSame(own, m.ownBuffer, "kept through trim " + trim + " of the quiet spell");
        }
        m.trimScratch();
        assertEquals(SipMessage.INITIAL_OWN_BYTES, m.ownBuffer.length, "a quiet spell of a minute: back to the start");
        assertSame(m.ownBuffer, m.buffer(), "the message points at its own array, not the one let go");

        parse(m, options(100, 100));
        final byte[] again = m.ownBuffer;
        m.trimScratch();
        for (int trim = 0; trim < 2 * SipMessage.QUIET_TRIMS; trim++)
        {
            if (trim % (SipMessage.QUIET_TRIMS / 2) == 0)
            {
                parse(m, options(100, 100)); // a large message every half minute: the quiet spell never ends
            }
            m.trimScratch();
            assertSame(again, m.ownBuffer, "a trickle of large messages keeps its array: " + trim);
        }
    }

    @Test
    void aLongHeaderIndexGoesOnceNoMessageSinceTheLastTrimNeededIt()
    {
        final SipMessage m = new SipMessage();
        parse(m, options(400, 4));
        final int[] longIndex = m.index;
        assertTrue(longIndex.length > SipMessage.INITIAL_ENTRIES * SipMessage.STRIDE);
        m.trimScratch();
        assertSame(longIndex, m.index, "the message just parsed needed it");
        parse(m, options(3, 4));
        m.trimScratch();
        assertNotSame(longIndex, m.index);
        assertEquals(SipMessage.INITIAL_ENTRIES * SipMessage.STRIDE, m.index.length);
        parse(m, options(400, 4));
        assertEquals(407, m.headerCount(), "the index grows again for the next long one");
    }
}
