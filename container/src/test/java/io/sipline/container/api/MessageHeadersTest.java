package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.SipMessage;
import org.junit.jupiter.api.Test;

class MessageHeadersTest
{
    /** A received INVITE's section as the container makes it: its index in the tail of the copy. */
    private static MessageHeaders received()
    {
        final SipMessage m = TestMessages.parse(TestMessages.INVITE);
        final byte[] copy = new byte[m.length() + MessageHeaders.tailBytes(m.headerCount())];
        System.arraycopy(m.buffer(), m.offset(), copy, 0, m.length());
        return MessageHeaders.of(m, copy);
    }

    /** The same section over an exact copy: its index in an array of its own. */
    private static MessageHeaders receivedExact()
    {
        final SipMessage m = TestMessages.parse(TestMessages.INVITE);
        final byte[] copy = new byte[m.length()];
        System.arraycopy(m.buffer(), m.offset(), copy, 0, copy.length);
        return MessageHeaders.of(m, copy);
    }

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

    /**
     * The index of a received section in the tail of its message's copy reads, edits and writes as one in an array
     * of its own (RFC 3261 §7.3: the same header fields in the same order), grows out of the tail when edits need
     * more entries than the message had, and never writes into the message's own bytes.
     */
    @Test
    void shouldIndexAReceivedSectionInTheTailOfItsCopyAsInAnArray()
    {
        final SipMessage m = TestMessages.parse(TestMessages.INVITE);
        final byte[] message = new byte[m.length()];
        System.arraycopy(m.buffer(), m.offset(), message, 0, message.length);
        final MessageHeaders tail = received();
        final MessageHeaders array = receivedExact();
        assertEquals(written(array), written(tail));
        for (final MessageHeaders h : List.of(tail, array))
        {
            h.set("Subject", "edited");
            h.remove("X-Custom");
            h.addFirst("Route", "<sip:p1.example;lr>");
            h.add("X-One", "1");
        }
        assertEquals(written(array), written(tail));
        assertEquals(array.size(), tail.size());
        for (int i = 0; i < 2 * m.headerCount(); i++)
        {
            tail.add("X-Grown", Integer.toString(i)); // past the tail's room: the index moves into an array
            array.add("X-Grown", Integer.toString(i));
        }
        assertEquals(written(array), written(tail));
        assertEquals(array.getAll("X-Grown"), tail.getAll("X-Grown"));
        assertEquals("a84b4c76e66710@pc33.atlanta.example", tail.get(HeaderName.CALL_ID));
        assertTrue(java.util.Arrays.equals(message, 0, message.length, tail.bytes(), 0, message.length),
            "the message's bytes are as received");
    }

    /** find, from any entry on, gives the next entry of that header, whether the index is in the tail or an array. */
    @Test
    void shouldFindEachEntryOfAKnownHeaderFromAnyPositionInEitherIndex()
    {
        final MessageHeaders tail = received();
        final MessageHeaders array = receivedExact();
        final MessageHeaders grown = received();
        for (int i = 0; i < 40; i++)
        {
            grown.add("Route", "<sip:p" + i + ".example;lr>"); // past the tail's room: the index in an array
        }
        for (final MessageHeaders h : List.of(tail, array, grown))
        {
            for (final HeaderName k : HeaderName.values())
            {
                for (int from = 0; from <= h.size(); from++)
                {
                    int expected = -1;
                    for (int i = h.size() - 1; i >= from; i--)
                    {
                        expected = h.known(i) == k ? i : expected;
                    }
                    assertEquals(expected, h.find(k, from), k + " from " + from);
                }
            }
        }
        assertEquals(40, grown.getAll("Route").size());
    }

    @Test
    void shouldReadHeadersByAnyFormAndSplitLists()
    {
        final MessageHeaders h = received();
        assertEquals("\"Alice\" <sip:alice@atlanta.example>;tag=1928301774", h.get("From"));
        assertEquals(h.get("From"), h.get("f"), "compact form");
        assertEquals(List.of("SIP/2.0/UDP 192.0.2.9:5062;branch=z9hG4bK776asdhds",
            "SIP/2.0/UDP 192.0.2.8;branch=z9hG4bKx"), h.getAll("via"));
        assertEquals(List.of("one", "two"), h.getAll("x-custom"));
        assertEquals("lunch and more", h.get("Subject"), "folding becomes one space (RFC 3261 §7.3.1)");
        assertNull(h.get("Nope"));
        assertEquals(2, h.count("X-Custom"));
        assertTrue(h.names().contains("From") && h.names().contains("X-Custom"), h.names().toString());
    }

    @Test
    void shouldReadACommonValueAsOneSharedStringAndOthersAsTheirOwn()
    {
        final MessageHeaders a = received();
        final MessageHeaders b = received();
        assertEquals("application/sdp", a.get("Content-Type"));
        assertSame(a.get("Content-Type"), b.get("c"), "the Content-Type of SDP bodies is made once");
        assertEquals("a84b4c76e66710@pc33.atlanta.example", a.get(HeaderName.CALL_ID));
        assertNotSame(a.get(HeaderName.CALL_ID), b.get(HeaderName.CALL_ID));
        assertSame(a.get(HeaderName.CALL_ID), a.get(HeaderName.CALL_ID), "any other value is cached once read");
        final SipMessage m = TestMessages.parse(TestMessages.INVITE.replace("application/sdp", "application/SDP"));
        final byte[] copy = new byte[m.length()];
        System.arraycopy(m.buffer(), m.offset(), copy, 0, copy.length);
        assertEquals("application/SDP", MessageHeaders.of(m, copy).get("Content-Type"), "only the same bytes match");
    }

    @Test
    void shouldReadAValueUncachedWhileNoneIsCachedAndTheCachedOneAfter()
    {
        final MessageHeaders h = received();
        final String first = h.getUncached(HeaderName.CALL_ID);
        assertEquals("a84b4c76e66710@pc33.atlanta.example", first);
        assertNotSame(first, h.getUncached(HeaderName.CALL_ID), "not cached: made again");
        assertNotSame(first, h.get(HeaderName.CALL_ID));
        assertSame(h.get(HeaderName.CALL_ID), h.getUncached(HeaderName.CALL_ID), "once cached, the cached one");
        assertSame(h.get("Content-Type"), h.getUncached(HeaderName.CONTENT_TYPE), "a common value: the shared one");
        assertNull(h.getUncached(HeaderName.RSEQ));
        h.set("Call-ID", "edited@example");
        assertEquals("edited@example", h.getUncached(HeaderName.CALL_ID), "an edited value is its text");
    }

    @Test
    void shouldKeepHeadersBeyond64KiBAsTextAndWriteThemUnchanged()
    {
        // a header section over 64 KiB (TCP carries up to 64 KiB + 4 KiB): spans are 16-bit, later entries are text
        final String big = "x".repeat(65_600);
        final String text = TestMessages.INVITE.replace("Subject:", "X-Big: " + big + "\r\nX-Late: late value\r\n"
            + "Subject:");
        final SipMessage m = TestMessages.parse(text);
        final byte[] copy = new byte[m.length()];
        System.arraycopy(m.buffer(), m.offset(), copy, 0, copy.length);
        final MessageHeaders h = MessageHeaders.of(m, copy);
        assertEquals("late value", h.get("x-late"));
        assertEquals("lunch and more", h.get("Subject"));
        assertEquals(big, h.get("X-Big"));
        assertEquals("\"Alice\" <sip:alice@atlanta.example>;tag=1928301774", h.get("From"), "before 64 KiB: a span");
        final ByteBuf out = Unpooled.buffer();
        try
        {
            h.writeTo(out);
            final String written = out.toString(StandardCharsets.UTF_8);
            assertTrue(written.contains("X-Late: late value\r\n") && written.contains("X-Big: " + big + "\r\n"),
                written.substring(0, 200));
        }
        finally
        {
            out.release();
        }
    }

    @Test
    void shouldKeepValuesLongerThanAShortEntryAsSpansAndReadEachValueOnce()
    {
        // an entry's length bits hold values up to 509 bytes: a longer one (an Identity header) is a span all the same
        final String identity = "y".repeat(900);
        final String text = TestMessages.INVITE.replace("Subject:", "Identity: " + identity + "\r\nX-Folded: one\r\n"
            + " two\r\nX-Utf8: caf\u00e9\r\nX-Max: " + "m".repeat(509) + "\r\nSubject:");
        final SipMessage m = TestMessages.parse(text);
        final byte[] copy = new byte[m.length()];
        System.arraycopy(m.buffer(), m.offset(), copy, 0, copy.length);
        final MessageHeaders h = MessageHeaders.of(m, copy);
        final int at = h.find(HeaderName.IDENTITY, 0);
        final long span = h.valueSpan(at);
        assertEquals(identity, new String(copy, (int)(span >>> 32), (int)span - (int)(span >>> 32),
            StandardCharsets.US_ASCII));
        assertEquals(identity, h.getUncached(HeaderName.IDENTITY));
        assertSame(h.get("Identity"), h.get("identity"), "read once, then cached");
        assertEquals("m".repeat(509), h.get("X-Max"));
        assertSame(h.get("X-Folded"), h.get("x-folded"), "a folded value is found again as text");
        assertEquals("one two", h.get("X-Folded"));
        assertSame(h.get("X-Utf8"), h.get("x-utf8"), "so is one that is not ASCII");
        assertEquals("caf\u00e9", h.get("X-Utf8"));

        final MessageHeaders relayed = MessageHeaders.over(h, 2, 1);
        relayed.appendEntry(h, at);
        relayed.appendEntry(h, h.find("X-Max", 0));
        assertEquals(span, relayed.valueSpan(0), "a long span is shared as a span");
        assertEquals(identity, relayed.value(0));
        assertEquals(h.valueSpan(h.find("X-Max", 0)), relayed.valueSpan(1));
        final ByteBuf out = Unpooled.buffer();
        try
        {
            relayed.writeTo(out);
            assertEquals("Identity: " + identity + "\r\nX-Max: " + "m".repeat(509) + "\r\n",
                out.toString(StandardCharsets.US_ASCII));
        }
        finally
        {
            out.release();
        }
        h.setValue(at, "short");
        assertEquals(-1, h.valueSpan(at));
        assertEquals("short", h.get(HeaderName.IDENTITY));
        h.remove("X-Max");
        h.add("X-After", "after"); // takes a free slot
        assertEquals(List.of("short", "after", "one two"), List.of(h.get("Identity"), h.get("X-After"),
            h.get("X-Folded")));
    }

    @Test
    void shouldFreeAReadValueWithItsEntryButNotATextOfTheSameCharacters()
    {
        final MessageHeaders base = received();
        final MessageHeaders h = MessageHeaders.over(base, 4, 1);
        final int custom = base.find("X-Custom", 0);
        h.appendEntry(base, custom);
        h.appendEntry(base, custom);
        h.add("Subject", "one");
        assertSame(h.get("Subject"), h.value(0), "a span reads as the text of the same characters");
        h.removeAt(0); // the String is the text entry's: it stays
        assertEquals("one", h.get("Subject"));
        h.removeAt(h.find("Subject", 0));
        final String read = h.value(0);
        h.setValue(0, "edited"); // takes the slot of the String read from it
        assertEquals(List.of("edited"), h.getAll("X-Custom"));
        assertEquals("one", read);
        h.appendEntry(base, custom);
        assertEquals(List.of("edited", "one"), h.getAll("X-Custom"));
    }

    @Test
    void shouldEditThroughAnOverlayAndWriteTheResult()
    {
        final MessageHeaders h = received();
        h.set("X-Custom", "three");
        h.add("X-New", "n");
        h.addFirst("Route", "<sip:r@example;lr>");
        h.remove("Subject");
        assertEquals(List.of("three"), h.getAll("X-Custom"));
        final ByteBuf out = Unpooled.buffer();
        try
        {
            h.writeTo(out);
            final String text = out.toString(StandardCharsets.UTF_8);
            assertTrue(text.contains("X-Custom: three\r\n") && !text.contains("X-Custom: one"), text);
            assertTrue(text.contains("X-New: n\r\n") && text.contains("Route: <sip:r@example;lr>\r\n"), text);
            assertTrue(!text.contains("Subject") && !text.contains("Content-Length"), text);
            assertTrue(text.contains("From: \"Alice\" <sip:alice@atlanta.example>;tag=1928301774\r\n"),
                "unchanged values are copied raw (compact name written canonically): " + text);
        }
        finally
        {
            out.release();
        }
    }

    @Test
    void shouldKeepItsCountWhileGrowingAndShrinking()
    {
        // the count lives after the last entry's place: growing moves it, and the new entries start clean
        final MessageHeaders h = MessageHeaders.empty(0);
        assertEquals(0, h.size());
        for (int i = 0; i < 40; i++)
        {
            h.add(0 == i % 2 ? "X-Even" : "Max-Forwards", Integer.toString(i));
            assertEquals(i + 1, h.size());
        }
        assertEquals(20, h.count("X-Even"));
        assertEquals(20, h.count(HeaderName.MAX_FORWARDS));
        assertEquals("0", h.get("X-Even"));
        assertEquals("1", h.get(HeaderName.MAX_FORWARDS));
        h.addFirst("Max-Forwards", "top");
        assertEquals(41, h.size());
        // add keeps the values of one header together: 20 X-Even, then 20 Max-Forwards
        assertEquals(HeaderName.MAX_FORWARDS, h.known(20), "before the first Max-Forwards");
        assertEquals(HeaderName.UNKNOWN, h.known(19));
        assertEquals("top", h.get(HeaderName.MAX_FORWARDS));
        assertEquals(0, h.remove("X-Even"), "where the first was");
        assertEquals(21, h.size());
        h.removeAt(0);
        assertEquals(20, h.size());
        assertEquals(List.of("1", "3"), h.getAll("Max-Forwards").subList(0, 2));
        final MessageHeaders received = received();
        final int n = received.size();
        received.add("X-Late", "late");
        assertEquals(n + 1, received.size(), "a received section grows past its exact capacity");
        assertEquals("late", received.get("X-Late"));
        assertEquals("\"Alice\" <sip:alice@atlanta.example>;tag=1928301774", received.get("From"));
    }

    @Test
    void shouldShareBaseBytesWhenCopyingEntries()
    {
        final MessageHeaders base = received();
        final MessageHeaders copy = MessageHeaders.over(base, 4, 1);
        copy.copyFrom(base, HeaderName.VIA);
        copy.copyFrom(base, HeaderName.CALL_ID);
        assertEquals(3, copy.size());
        assertEquals("a84b4c76e66710@pc33.atlanta.example", copy.get(HeaderName.CALL_ID));
        assertTrue(copy.bytes() == base.bytes(), "one byte array for both");
    }

    @Test
    void shouldWriteATaggedPartyAsTheTextItReadsAs()
    {
        final MessageHeaders h = MessageHeaders.empty(3);
        final TaggedParty from = TaggedParty.of("Bob <sip:bob@biloxi.example>;tag=old", "a6c85cf");
        h.insert(h.size(), "From", from);
        h.insert(h.size(), "To", TaggedParty.of("<sip:alice@atlanta.example>", null));
        h.insert(h.size(), "CSeq", "7 BYE");
        final MessageHeaders copy = MessageHeaders.empty(3);
        copy.appendEntry(h, h.find(HeaderName.FROM, 0)); // shared as it is, read here as text
        h.setValue(h.find(HeaderName.TO, 0), TaggedParty.of("<sip:alice@atlanta.example>", "1928301774"));
        final ByteBuf out = Unpooled.buffer();
        try
        {
            h.writeTo(out);
            assertEquals("From: Bob <sip:bob@biloxi.example>;tag=a6c85cf\r\n"
                + "To: <sip:alice@atlanta.example>;tag=1928301774\r\nCSeq: 7 BYE\r\n",
                out.toString(StandardCharsets.UTF_8), "the old tag replaced, as HeaderText.withTag does");
        }
        finally
        {
            out.release();
        }
        assertEquals(HeaderText.withTag("Bob <sip:bob@biloxi.example>;tag=old", "a6c85cf"), h.get("From"));
        assertTrue(h.get("From") == h.get("From"), "made once when read, then cached");
        assertEquals("<sip:alice@atlanta.example>;tag=1928301774", h.get(HeaderName.TO));
        assertEquals(h.get("From"), copy.get("f"));
        assertEquals(7, h.leadingNumber(h.find(HeaderName.CSEQ, 0)));
        assertEquals(h.mixValue(0, 1), copy.mixValue(0, 1), "hashed as its text");
    }

    @Test
    void shouldReadExtensionNamesFromTheBytesBeforeTheirValues()
    {
        // RFC 3261 §7.3.1: white space before the colon, a value folded onto the next line, an empty value
        final String text = TestMessages.INVITE.replace("Subject:", "X-Spaced \t:  spaced\r\nX-Fold:\r\n  folded"
            + "\r\nX-Empty:\r\nSubject:");
        final SipMessage m = TestMessages.parse(text);
        final byte[] copy = new byte[m.length()];
        System.arraycopy(m.buffer(), m.offset(), copy, 0, copy.length);
        final MessageHeaders h = MessageHeaders.of(m, copy);
        assertEquals("spaced", h.get("x-spaced"));
        assertEquals("folded", h.get("X-FOLD"));
        assertEquals("", h.get("X-Empty"));
        assertEquals(List.of("X-Spaced", "X-Fold", "X-Empty"),
            List.of(h.name(h.find("x-spaced", 0)), h.name(h.find("x-fold", 0)), h.name(h.find("x-empty", 0))));

        h.setValue(h.find("X-Custom", 0), "edited"); // the name stays known once the value is text
        final MessageHeaders other = MessageHeaders.empty(2);
        other.appendEntry(h, h.find("X-Fold", 0)); // another base: copied as text, with its name
        final ByteBuf out = Unpooled.buffer();
        try
        {
            h.writeTo(out);
            other.writeTo(out);
            final String written = out.toString(StandardCharsets.UTF_8);
            assertTrue(written.contains("X-Custom: edited\r\nX-Custom: two\r\nX-Spaced: spaced\r\n"
                + "X-Fold: folded\r\nX-Empty: \r\n"), written);
            assertTrue(written.endsWith("\r\nX-Fold: folded\r\n"), written);
        }
        finally
        {
            out.release();
        }
    }

    @Test
    void shouldKeepTextExtensionNamesWithTheirEntriesThroughEdits()
    {
        final MessageHeaders h = MessageHeaders.empty(2);
        h.insert(h.size(), "Call-ID", "a84b4c76e66710");
        h.insert(h.size(), "X-Call-Ref", "call-1");
        h.insert(0, "X-First", "first"); // moves both entries after it
        h.add("x-call-ref", "call-2"); // grows the section past its capacity
        h.insert(h.size(), "Max-Forwards", "70");
        assertEquals(List.of("X-First", "Call-ID", "X-Call-Ref", "x-call-ref", "Max-Forwards"),
            List.of(h.name(0), h.name(1), h.name(2), h.name(3), h.name(4)), "each name as written");
        h.remove("Call-ID");
        h.setValue(h.find("X-CALL-REF", 0), "call-0");
        assertEquals(List.of("call-0", "call-2"), h.getAll("x-call-ref"));
        assertEquals(2, h.count("X-Call-Ref"));

        final MessageHeaders copy = MessageHeaders.empty(1);
        copy.appendEntry(h, h.find("X-First", 0));
        copy.setValue(0, "changed"); // the copy's entry is its own: the original keeps its value
        final ByteBuf out = Unpooled.buffer();
        try
        {
            h.writeTo(out);
            copy.writeTo(out);
            assertEquals("X-First: first\r\nX-Call-Ref: call-0\r\nx-call-ref: call-2\r\nMax-Forwards: 70\r\n"
                + "X-First: changed\r\n", out.toString(StandardCharsets.UTF_8));
        }
        finally
        {
            out.release();
        }
        assertEquals("first", h.get("x-first"));
        assertNull(h.get("Call-ID"));
        assertTrue(h.is(0, HeaderName.UNKNOWN, "X-FIRST") && !h.is(1, HeaderName.UNKNOWN, "X-First"));
    }

    @Test
    void shouldKeepEachTextInASlotOfItsOwnThroughReadsEditsAndRemovals()
    {
        final MessageHeaders h = received();
        final String from = h.get(HeaderName.FROM);
        final String callId = h.get(HeaderName.CALL_ID);
        final String subject = h.get("Subject");
        final List<String> vias = h.getAll("Via"); // more reads than the first slots: the values array grows
        assertTrue(from == h.get("f") && callId == h.get(HeaderName.CALL_ID) && vias.get(1) == h.getAll("v").get(1),
            "a read value is made once and cached");
        final int fromAt = h.find(HeaderName.FROM, 0);
        assertTrue(h.valueSpan(fromAt) >= 0 && h.headerValueStart(fromAt) >= 0, "a read entry keeps its span");
        assertEquals(HeaderName.FROM, h.known(fromAt));
        assertEquals(1, h.count(HeaderName.FROM));

        h.remove("Subject"); // its slot is free again: the next texts take it
        h.add("X-One", "1");
        h.add("X-Two", "2");
        h.setValue(h.find(HeaderName.CALL_ID, 0), "edited@example"); // a read entry becomes text in its slot
        assertEquals("\"Alice\" <sip:alice@atlanta.example>;tag=1928301774", h.get("From"));
        assertEquals("edited@example", h.get("Call-ID"));
        assertEquals("lunch and more", subject);
        assertNull(h.get("Subject"));
        assertEquals(List.of("1", "2"), List.of(h.get("x-one"), h.get("x-two")));
        assertEquals(vias, h.getAll("Via"));

        final MessageHeaders copy = MessageHeaders.over(h, 4, 1);
        copy.copyFrom(h, HeaderName.FROM); // a read span is shared as a span: the copy caches its own String
        copy.copyFrom(h, HeaderName.CALL_ID); // text: shared as it is
        assertEquals(h.valueSpan(fromAt), copy.valueSpan(0));
        assertEquals(from, copy.get(HeaderName.FROM));
        assertEquals(-1, copy.valueSpan(1));
        final ByteBuf out = Unpooled.buffer();
        try
        {
            h.writeTo(out);
            final String written = out.toString(StandardCharsets.UTF_8);
            assertTrue(written.contains("Call-ID: edited@example\r\n") && written.endsWith("X-One: 1\r\nX-Two: 2\r\n")
                && !written.contains("Subject"), written);
        }
        finally
        {
            out.release();
        }
    }

    @Test
    void shouldReadMoreSpannedValuesThanItsSlotBitsNameAsEqualStrings()
    {
        // a received section holds fewer headers than the parser's limit: spans shared 600 times make more reads
        final MessageHeaders base = received();
        final MessageHeaders h = MessageHeaders.over(base, 4, 1);
        final int custom = base.find("X-Custom", 0);
        for (int i = 0; i < 600; i++)
        {
            h.appendEntry(base, custom);
        }
        for (int round = 0; round < 2; round++)
        {
            for (int i = 0; i < 600; i++)
            {
                assertEquals("one", h.value(i));
            }
        }
        assertEquals("X-Custom", h.name(599));
        h.removeAt(0); // frees a slot a later text takes
        h.add("X-Last", "last");
        assertEquals("last", h.get("x-last"));
        assertEquals("one", h.value(598));
        assertEquals(599, h.count("X-Custom"));
    }
}
