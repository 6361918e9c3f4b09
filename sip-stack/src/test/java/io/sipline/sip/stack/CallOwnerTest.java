package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;
import io.sipline.sip.shard.ShardIds;

/** Any node decodes whose call a message is from the ids another node wrote. */
class CallOwnerTest
{
    private final ShardIds node7 = new ShardIds(3, 7, 11);
    private final ShardIds node2 = new ShardIds(1, 2, 12);

    @Test
    void shouldNameTheNodeOfAResponseByItsBranch()
    {
        final String branch = node7.appendBranch(new StringBuilder()).toString();
        final SipMessage m = parse("SIP/2.0 200 OK\r\n"
            + "Via: SIP/2.0/UDP 192.0.2.7:5060;branch=" + branch + "\r\n"
            + "From: <sip:alice@example.com>;tag=" + node2.appendId(new StringBuilder()) + "\r\n"
            + "To: <sip:bob@example.com>;tag=peer\r\n"
            + "Call-ID: " + node2.appendId(new StringBuilder()) + "@192.0.2.2\r\n"
            + "CSeq: 1 INVITE\r\n"
            + "Content-Length: 0\r\n\r\n");
        assertEquals(7, CallOwner.nodeOf(m), "the branch is the one the client transaction's node wrote");
        assertEquals(3, CallOwner.shardOf(m));
    }

    @Test
    void shouldNameTheNodeOfAnInDialogRequestByItsToTag()
    {
        final SipMessage m = request("BYE", ";tag=" + node7.appendId(new StringBuilder()), "abc@client");
        assertEquals(7, CallOwner.nodeOf(m));
        assertEquals(3, CallOwner.shardOf(m));
    }

    @Test
    void shouldFallBackToTheCallIdOfALegANodeCreated()
    {
        final String callId = node2.appendId(new StringBuilder()).append("@192.0.2.2").toString();
        final SipMessage m = request("BYE", ";tag=foreign-tag", callId);
        assertEquals(2, CallOwner.nodeOf(m));
        assertEquals(1, CallOwner.shardOf(m));
    }

    @Test
    void shouldNotNameAnOwnerForAnInitialRequestFromOutside()
    {
        final SipMessage m = request("INVITE", "", "a84b4c76e66710@pc33.atlanta.example.com");
        assertEquals(CallOwner.UNKNOWN, CallOwner.nodeOf(m));
        assertEquals(-1, CallOwner.shardOf(m));
    }

    private static SipMessage request(final String method, final String toParams, final String callId)
    {
        return parse(method + " sip:bob@192.0.2.9 SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-1\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:alice@example.com>;tag=x1\r\n"
            + "To: <sip:bob@example.com>" + toParams + "\r\n"
            + "Call-ID: " + callId + "\r\n"
            + "CSeq: 2 " + method + "\r\n"
            + "Content-Length: 0\r\n\r\n");
    }

    private static SipMessage parse(final String text)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        final SipMessage m = new SipMessage();
        assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(bytes, 0, bytes.length, m));
        return m;
    }
}
