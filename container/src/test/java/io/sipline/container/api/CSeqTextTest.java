package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;

import com.sun.management.HotSpotDiagnosticMXBean;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sipline.sip.message.HeaderName;
import io.sipline.test.AllocationMeter;
import org.junit.jupiter.api.Test;

class CSeqTextTest
{
    private static final int OBJECTS = 1_000;
    private static final boolean COMPACT_HEADERS = "true".equals(ManagementFactory
        .getPlatformMXBean(HotSpotDiagnosticMXBean.class).getVMOption("UseCompactObjectHeaders").getValue());

    private static String written(final MessageHeaders h)
    {
        final ByteBuf out = Unpooled.buffer();
        try
        {
            h.writeTo(out);
            return out.toString(StandardCharsets.UTF_8);
        }
        finally
        {
            out.release();
        }
    }

    @Test
    void shouldReadAndWriteAsTheTextOfNumberAndMethod()
    {
        for (final long n : new long[] {0, 7, 10, 314159, 4_294_967_295L})
        {
            final CSeqText c = CSeqText.of(n, "BYE");
            final String text = n + " BYE";
            assertEquals(text, c.toString());
            assertEquals(text.length(), c.length());
            final StringBuilder chars = new StringBuilder();
            for (int i = 0; i < c.length(); i++)
            {
                chars.append(c.charAt(i));
            }
            assertEquals(text, chars.toString(), "char by char");
            assertEquals("BY", c.subSequence(text.length() - 3, text.length() - 1).toString());

            final MessageHeaders h = MessageHeaders.empty(1);
            h.insert(0, "CSeq", c);
            assertEquals("CSeq: " + text + "\r\n", written(h));
            assertEquals(n, h.leadingNumber(0), "the number, without a String");
            assertEquals(text, h.get(HeaderName.CSEQ));
            assertTrue(h.get("cseq") == h.get("CSeq"), "made once when read, then cached");
        }
    }

    @Test
    void shouldWriteANegativeNumberAsItsDecimalText()
    {
        final MessageHeaders h = MessageHeaders.empty(1);
        h.insert(0, "CSeq", CSeqText.of(-1, "INVITE"));
        assertEquals("CSeq: -1 INVITE\r\n", written(h));
        assertEquals(-1, h.leadingNumber(0), "no number, as the text has none");
        assertEquals("-1 INVITE", h.get("CSeq"));
        assertEquals('-', CSeqText.of(-1, "INVITE").charAt(0));
    }

    @Test
    void shouldBeSharedAsItIsByACopiedEntry()
    {
        final MessageHeaders request = MessageHeaders.empty(1);
        request.insert(0, "CSeq", CSeqText.of(2, "ACK"));
        final MessageHeaders response = MessageHeaders.empty(1);
        response.copyFrom(request, HeaderName.CSEQ);
        assertEquals("CSeq: 2 ACK\r\n", written(response));
        assertEquals(2, response.leadingNumber(0));
        assertEquals("2 ACK", response.value(0));
        assertEquals(request.mixValue(0, 1), response.mixValue(0, 1), "hashed as its text");
    }

    @Test
    void shouldKeepANumberPast32BitsAndAMethodWithASpaceAsTheirText()
    {
        // RFC 3261 §8.1.1.5 bounds the number by 2**32-1; a value past it is still written as given
        for (final String[] c : new String[][] {{"4294967296", "BYE"}, {"7", "NOT A TOKEN"}})
        {
            final long n = Long.parseLong(c[0]);
            final CSeqText cseq = CSeqText.of(n, c[1]);
            final String text = c[0] + " " + c[1];
            assertEquals(text, cseq.toString());
            assertEquals(text.length(), cseq.length());
            assertEquals(text.charAt(text.length() - 1), cseq.charAt(text.length() - 1));
            final MessageHeaders h = MessageHeaders.empty(1);
            h.insert(0, "CSeq", cseq);
            assertEquals("CSeq: " + text + "\r\n", written(h));
            assertEquals(n, h.leadingNumber(0));
        }
    }

    @Test
    void shouldKeepTheObjectWithinItsStep()
    {
        // one per request the container writes a CSeq for: a B2BUA's leg, its ACK and BYE
        final CSeqText[] kept = new CSeqText[OBJECTS];
        final Runnable make = () ->
        {
            for (int i = 0; i < kept.length; i++)
            {
                kept[i] = CSeqText.of(i, "BYE");
            }
        };
        final long budget = (COMPACT_HEADERS ? 16 : 24) * (long)OBJECTS;
        final long bytes = AllocationMeter.leastBytes(make, make, 5, budget);
        assertTrue(bytes <= budget, "B per CSeqText: " + (double)bytes / OBJECTS);
        assertEquals("999 BYE", kept[OBJECTS - 1].toString());
    }
}
