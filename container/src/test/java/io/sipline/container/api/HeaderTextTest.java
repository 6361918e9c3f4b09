package io.sipline.container.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
