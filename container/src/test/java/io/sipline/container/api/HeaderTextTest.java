package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import io.sipline.sip.message.HeaderName;
import io.sipline.sip.message.SipMessage;
import org.junit.jupiter.api.Test;

class HeaderTextTest
{
    private static MessageHeaders received(final String to)
    {
        final SipMessage m = TestMessages.parse(TestMessages.INVITE.replace("To: Bob <sip:bob@biloxi.example>",
            "To: " + to));
        final byte[] copy = new byte[m.length()];
        System.arraycopy(m.buffer(), m.offset(), copy, 0, copy.length);
        return MessageHeaders.of(m, copy);
    }

    private static int toTagged(final MessageHeaders h)
    {
        return HeaderText.tagged(h, h.find(HeaderName.TO, 0));
    }

    @Test
    void shouldFindATagInTheBytesOfAPlainFromOrTo()
    {
        assertEquals(1, toTagged(received("Bob <sip:bob@biloxi.example>;tag=a6c85cf")));
        assertEquals(1, toTagged(received("sip:bob@biloxi.example;TAG=a6c85cf")), "parameter names ignore case");
        assertEquals(0, toTagged(received("Bob <sip:bob@biloxi.example>")));
        assertEquals(0, toTagged(received("\"Bob;tag=x\" <sip:bob@biloxi.example;tag=uri>")),
            "neither a quoted name nor a URI parameter is the header's tag");
        assertEquals(0, toTagged(received("<sip:bob@biloxi.example>;other=1")));
    }

    @Test
    void shouldLeaveToTheTextWhatItsBytesCannotTell()
    {
        assertEquals(-1, toTagged(received("Bob <sip:bob@biloxi.example>;tag=a6c85cf;other=1")),
            "parameters after the tag");
        assertEquals(-1, toTagged(received("Bob\r\n <sip:bob@biloxi.example>;tag=a6c85cf")), "folded");
        final MessageHeaders edited = received("Bob <sip:bob@biloxi.example>");
        edited.setValue(edited.find(HeaderName.TO, 0), "Bob <sip:bob@biloxi.example>;tag=1");
        assertEquals(-1, toTagged(edited), "an edited entry is text");
        assertEquals(-1, HeaderText.tagged(edited, -1), "no entry");
    }
    @Test
    void shouldHandAPlainPartyOutAsOneViewOfItsBytes()
    {
        final MessageHeaders h = received("Bob <sip:bob@biloxi.example>;tag=a6c85cf");
        final CharSequence party = HeaderText.partyWithoutTag(h, HeaderName.TO);
        assertInstanceOf(TaggedParty.class, party, "a view: no String made");
        assertEquals("Bob <sip:bob@biloxi.example>", party.toString());
        assertEquals('B', party.charAt(0));
        assertEquals(28, party.length());
        assertSame(party, TaggedParty.ofParty(party, null), "without tag: the view itself");
        final TaggedParty tagged = TaggedParty.ofParty(party, "x1");
        assertEquals("Bob <sip:bob@biloxi.example>;tag=x1", tagged.toString());
        assertEquals("Bob <sip:bob@biloxi.example>", party.toString(), "the view is left as it was");
        assertEquals("Bob <sip:bob@biloxi.example>;tag=x1", written(tagged));
    }

    @Test
    void shouldTagAPartyAsItsTextWouldBeTagged()
    {
        final MessageHeaders plain = received("Bob <sip:bob@biloxi.example>");
        final TaggedParty direct = HeaderText.partyWithTag(plain, plain.find(HeaderName.TO, 0), "t9");
        assertEquals("Bob <sip:bob@biloxi.example>;tag=t9", direct.toString());
        assertEquals(direct.toString(), written(direct));
        assertEquals(direct.toString(), chars(direct));
        for (final String to : new String[] {"Bob\r\n <sip:bob@biloxi.example>",
            "Bob <sip:bob@biloxi.example>;tag=o;x=1", "sip:bob@biloxi.example;tag=old"})
        {
            final MessageHeaders h = received(to);
            final int i = h.find(HeaderName.TO, 0);
            assertEquals(TaggedParty.ofParty(HeaderText.withTag(h.value(i), null), "t9").toString(),
                HeaderText.partyWithTag(h, i, "t9").toString(), to);
        }
    }

    @Test
    void shouldReadARemoteTagKeptAsBytesAsItsText()
    {
        final TaggedParty to = TaggedParty.withTagBytes("<sip:bob@biloxi.example>",
            "a6c85cf".getBytes(StandardCharsets.US_ASCII));
        assertEquals("<sip:bob@biloxi.example>;tag=a6c85cf", to.toString());
        assertEquals(to.toString(), chars(to));
        assertEquals(to.toString(), written(to));
        assertEquals("a6c85cf", to.tag());
        final TaggedParty utf8 = TaggedParty.withTagBytes("<sip:bob@biloxi.example>",
            "\u00e9t\u00e9".getBytes(StandardCharsets.UTF_8));
        assertEquals("<sip:bob@biloxi.example>;tag=\u00e9t\u00e9", utf8.toString(), "not ASCII: read as UTF-8");
        assertEquals(utf8.toString(), chars(utf8));
    }

    private static String written(final WrittenText text)
    {
        final ByteBuf out = Unpooled.buffer();
        text.writeTo(out);
        return out.toString(StandardCharsets.UTF_8);
    }

    private static String chars(final CharSequence text)
    {
        final StringBuilder b = new StringBuilder();
        for (int i = 0; i < text.length(); i++)
        {
            b.append(text.charAt(i));
        }
        return b.toString();
    }
}
