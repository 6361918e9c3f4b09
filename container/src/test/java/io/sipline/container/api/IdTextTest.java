package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sipline.sip.shard.ShardIds;
import org.junit.jupiter.api.Test;

/** An id kept as its numbers: the same text as the generator's String of it, written, read and keyed the same. */
class IdTextTest
{
    private static final int ORIGIN = 0x1A07; // shard 26, node 7
    private static final long RANDOM = 0xF_EDCB_A987_6543L; // 52 bits

    @Test
    void shouldReadAsTheTextTheGeneratorWrites()
    {
        final String expected = ShardIds.appendId(new StringBuilder(), ORIGIN, RANDOM).toString();
        final IdText tag = IdText.tag(ORIGIN, RANDOM);
        assertEquals("s1a07fedcba9876543", expected);
        assertEquals(expected, tag.toString());
        assertNotSame(tag.toString(), tag.toString(), "an id keeps no String: its reader does");
        assertEquals(expected.length(), tag.length());
        for (int i = 0; i < expected.length(); i++)
        {
            assertEquals(expected.charAt(i), tag.charAt(i), "char " + i);
        }
        assertThrows(IndexOutOfBoundsException.class, () -> tag.charAt(expected.length()));
        assertEquals(26, ShardIds.shardOf(expected.getBytes(StandardCharsets.US_ASCII), 0, expected.length()));
    }

    @Test
    void shouldReadACallIdWithItsHost()
    {
        final IdText callId = IdText.callId(ORIGIN, RANDOM, "192.0.2.4");
        assertEquals("s1a07fedcba9876543@192.0.2.4", callId.toString());
        final String text = callId.toString();
        for (int i = 0; i < text.length(); i++)
        {
            assertEquals(text.charAt(i), callId.charAt(i), "char " + i);
        }
        assertEquals("192.0.2.4", callId.subSequence(19, text.length()).toString());
        assertEquals(7, ShardIds.nodeOf(callId));
    }

    @Test
    void shouldWriteTheBytesOfItsText()
    {
        final ByteBuf out = Unpooled.buffer();
        try
        {
            final IdText callId = IdText.callId(ORIGIN, RANDOM, "pc33.example");
            callId.writeTo(out);
            assertEquals(callId.toString(), out.toString(StandardCharsets.US_ASCII));
            out.clear();
            Utf8Text.write(out, IdText.tag(ORIGIN, 1));
            assertEquals("s1a070000000000001", out.toString(StandardCharsets.US_ASCII));
        }
        finally
        {
            out.release();
        }
    }

    @Test
    void shouldBeKeyedInTheDialogTableAsItsText()
    {
        for (final long random : new long[] {0, 1, RANDOM, (1L << 52) - 1})
        {
            final IdText tag = IdText.tag(ORIGIN, random);
            final long key = SessionTable.key(tag);
            assertTrue(key >= 0);
            assertEquals(SessionTable.key(tag.toString()), key, "a key from the numbers is the key from the text");
        }
        assertFalse(SessionTable.key(IdText.callId(ORIGIN, RANDOM, "h")) >= 0, "a Call-ID is no tag");
    }

    @Test
    void shouldParseBackOnlyTheTextOfATag()
    {
        final IdText tag = IdText.tag(ORIGIN, RANDOM);
        final IdText parsed = IdText.parseTag(tag.toString());
        assertEquals(tag, parsed);
        assertEquals(tag.hashCode(), parsed.hashCode());
        assertEquals(tag.toString(), parsed.toString());
        assertEquals(IdText.tag(0, 0), IdText.parseTag("s00000000000000000"));
        assertNull(IdText.parseTag("S1a07fedcba9876543"), "not the generator's marker");
        assertNull(IdText.parseTag("s1A07fedcba9876543"), "uppercase: another text than the generator's");
        assertNull(IdText.parseTag("s1a07fedcba987654"));
        assertNull(IdText.parseTag("s1a07fedcba9876543@h"));
        assertNull(IdText.parseTag(null));
        assertNotEquals(IdText.tag(ORIGIN, RANDOM), IdText.callId(ORIGIN, RANDOM, "h"));
    }

    @Test
    void shouldBeKeptAsTextByTheSessionsThatReadItAsText()
    {
        final FakeHost host = new FakeHost();
        final SipApplicationSessionImpl app = new SipApplicationSessionImpl(new FakeApp(), host, null);
        assertSame(app.getId(), app.getId(), "the application session keeps the String of its id");
        final SipSessionImpl s = SipSessionImpl.forOutgoing(app, null, "<sip:a@x>", "<sip:b@y>", "sip:b@y", "m");
        assertTrue(s.localTagChars() instanceof IdText);
        s.register();
        final String tag = s.localTag();
        final String callId = s.getCallId();
        assertSame(tag, s.localTag(), "the dialog keeps the String of its tag once read");
        assertSame(tag, s.localTagChars());
        assertSame(callId, s.getCallId(), "and of its Call-ID");
        assertSame(s, host.table.dialog(callId, tag), "registered under the tag's numbers, found by its text");
        final MessageHeaders h = MessageHeaders.empty(1);
        s.insertCallId(h);
        assertEquals(callId, h.value(0), "the Call-ID written from the kept String is the same text");
        s.invalidate();
        assertNull(host.table.dialog(callId, tag), "unregistered by the tag's text as it was registered");
    }

    @Test
    void shouldFindAnApplicationSessionByTheStringOfItsId()
    {
        final FakeHost host = new FakeHost();
        final SipApplicationSessionImpl app = new SipApplicationSessionImpl(new FakeApp(), host, null);
        assertTrue(app.idChars() instanceof IdText, "the shard's kind of host keeps the id as numbers");
        assertSame(app, host.table.application(app.getId()));
        assertSame(app, host.table.application(new String(app.getId().toCharArray())));
        assertNull(host.table.application("s0000ffffffffffff0"));
        assertNull(host.table.application("not-an-id"));
        app.invalidate();
        assertNull(host.table.application(app.getId()));
    }

    @Test
    void shouldBeWrittenAsTheTagOfAParty()
    {
        final TaggedParty from = TaggedParty.ofParty("<sip:alice@atlanta.example>", IdText.tag(ORIGIN, RANDOM));
        assertEquals("<sip:alice@atlanta.example>;tag=s1a07fedcba9876543", from.toString());
        final ByteBuf out = Unpooled.buffer();
        try
        {
            from.writeTo(out);
            assertEquals(from.toString(), out.toString(StandardCharsets.UTF_8));
        }
        finally
        {
            out.release();
        }
    }
}
