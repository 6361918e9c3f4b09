package io.sipline.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sipline.sip.message.SipMethod;

/** How outbound messages are classified from their first line, without moving the buffer. */
class MessageCountersTest
{
    private static ByteBuf text(final String s)
    {
        return Unpooled.wrappedBuffer(s.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void shouldClassifyOutboundByMethodAndStatusClass()
    {
        final MessageCounters c = new MessageCounters();
        final ByteBuf invite = text("INVITE sip:b@h SIP/2.0\r\n\r\n");
        assertEquals(0, c.outbound(invite));
        assertEquals(0, invite.readerIndex());
        assertEquals(0, c.outbound(text("SUBSCRIBE sip:b@h SIP/2.0\r\n\r\n")));
        assertEquals(0, c.outbound(text("FOOBARBAZQUX sip:b@h SIP/2.0\r\n\r\n")));
        assertEquals(0, c.outbound(text("invite sip:b@h SIP/2.0\r\n\r\n"))); // case-sensitive: other
        assertEquals(180, c.outbound(text("SIP/2.0 180 Ringing\r\n\r\n")));
        assertEquals(603, c.outbound(text("SIP/2.0 603 Decline\r\n\r\n")));
        c.responseOut(400);
        c.retransmission();
        assertEquals(1, c.requestsOut(SipMethod.INVITE));
        assertEquals(1, c.requestsOut(SipMethod.SUBSCRIBE));
        assertEquals(2, c.requestsOut(SipMethod.EXTENSION));
        assertEquals(1, c.responsesOut(1));
        assertEquals(1, c.responsesOut(4));
        assertEquals(1, c.responsesOut(6));
        assertEquals(0, c.responsesOut(2));
        assertEquals(1, c.retransmissions());
        c.mirror(MessageCounters.DIALOGS_ACTIVE, 7);
        assertEquals(7, c.mirrored(MessageCounters.DIALOGS_ACTIVE));
        assertThrows(IllegalArgumentException.class, () -> c.responsesOut(7));
        assertThrows(IllegalArgumentException.class, () -> c.mirrored(99));
    }
}
