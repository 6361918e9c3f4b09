package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;

/**
 * {@link MovedInvites}: a CANCEL finds the shard its INVITE was moved to, by Call-ID and top Via branch (RFC 3261
 * §9.2).
 */
class MovedInvitesTest
{
    private static final long T0 = 1_000L;

    @Test
    void shouldSendTheCancelWhereItsInviteWent()
    {
        final MovedInvites moved = new MovedInvites(T0);
        assertEquals(-1, moved.shardOf(parse("CANCEL", "c1", "z9hG4bK-1"), T0), "nothing moved yet");
        moved.moved(parse("INVITE", "c1", "z9hG4bK-1"), 3, T0);
        assertEquals(3, moved.shardOf(parse("CANCEL", "c1", "z9hG4bK-1"), T0 + 1));
        assertEquals(-1, moved.shardOf(parse("CANCEL", "c1", "z9hG4bK-2"), T0 + 1), "another branch: another INVITE");
        assertEquals(-1, moved.shardOf(parse("CANCEL", "c2", "z9hG4bK-1"), T0 + 1), "another call");
    }

    @Test
    void shouldForgetAnInviteAfterSixtyFourT1()
    {
        final MovedInvites moved = new MovedInvites(T0);
        moved.moved(parse("INVITE", "c1", "z9hG4bK-1"), 2, T0);
        assertEquals(2, moved.shardOf(parse("CANCEL", "c1", "z9hG4bK-1"), T0 + MovedInvites.KEEP_NS));
        assertEquals(-1, moved.shardOf(parse("CANCEL", "c1", "z9hG4bK-1"), T0 + MovedInvites.KEEP_NS + 1));
        // the next INVITE moved after that sweeps the stale entry
        moved.moved(parse("INVITE", "c2", "z9hG4bK-2"), 1, T0 + MovedInvites.KEEP_NS + 1);
        assertEquals(1, moved.size());
    }

    @Test
    void shouldKeepAtMostMaxEntriesAndCountTheRest()
    {
        final MovedInvites moved = new MovedInvites(T0);
        for (int i = 0; i < MovedInvites.MAX_ENTRIES + 5; i++)
        {
            moved.moved(parse("INVITE", "c" + i, "z9hG4bK-x"), 1, T0 + 1);
        }
        assertEquals(MovedInvites.MAX_ENTRIES, moved.size());
        assertEquals(5, moved.notKept());
    }

    private static SipMessage parse(final String method, final String callId, final String branch)
    {
        final String text = method + " sip:bob@example.com SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 192.0.2.1:5060;branch=" + branch + "\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:alice@example.com>;tag=a1\r\n"
            + "To: <sip:bob@example.com>\r\n"
            + "Call-ID: " + callId + "\r\n"
            + "CSeq: 1 " + method + "\r\n"
            + "Content-Length: 0\r\n\r\n";
        final byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        final SipMessage m = new SipMessage();
        assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(b, 0, b.length, m));
        return m;
    }
}
