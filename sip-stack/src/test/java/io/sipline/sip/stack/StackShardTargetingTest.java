package io.sipline.sip.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;
import io.sipline.sip.shard.ShardIds;

/**
 * {@link ShardRouting#ownerOf} for requests outside a dialog that target a dialog or application session of this stack
 * (JSR 289 §15.11.3): the shard named by the {@code to-tag} of Replaces (RFC 3891) or Join (RFC 3911), or by the
 * {@link StackShard#TARGET_URI_PARAMETER} of the Request-URI, wins over the Call-ID's hash; ids that are not ours, and
 * requests in a dialog, keep the usual rules.
 */
class StackShardTargetingTest
{
    private static final int SHARDS = 8;

    @Test
    void shouldOwnARequestWithReplacesOnTheShardOfItsToTag()
    {
        final String tag = id(5);
        assertEquals(5, ShardRouting.ownerOf(request("sip:bob@example.com", "Replaces: abc@host;to-tag=" + tag
            + ";from-tag=x1\r\n", "callid-" + otherThan(5)), SHARDS));
    }

    @Test
    void shouldOwnARequestWithJoinOnTheShardOfItsToTag()
    {
        final String tag = id(3);
        assertEquals(3, ShardRouting.ownerOf(request("sip:bob@example.com", "join: abc@host;from-tag=x1;to-tag=" + tag
            + "\r\n", "callid-" + otherThan(3)), SHARDS));
    }

    @Test
    void shouldOwnARequestToAnEncodedUriOnTheShardOfItsApplicationSession()
    {
        final String app = id(6);
        assertEquals(6, ShardRouting.ownerOf(request("sip:conf@example.com;" + StackShard.TARGET_URI_PARAMETER + "="
            + app + ";transport=udp", "", "callid-" + otherThan(6)), SHARDS));
    }

    @Test
    void shouldKeepTheCallIdRuleForIdsNotOurs()
    {
        final String callId = "callid-" + otherThan(1);
        final byte[] b = callId.getBytes(StandardCharsets.US_ASCII);
        final int byHash = ShardIds.shardForCallId(b, 0, b.length, SHARDS);
        assertEquals(byHash, ShardRouting.ownerOf(request("sip:conf@example.com;" + StackShard.TARGET_URI_PARAMETER
            + "=not-an-id", "Replaces: abc;to-tag=1234;from-tag=x\r\n", callId), SHARDS));
    }

    private static String id(final int shard)
    {
        return new ShardIds(shard, 42).appendId(new StringBuilder()).toString();
    }

    /** A suffix whose Call-ID hashes to another shard than {@code shard}. */
    private static int otherThan(final int shard)
    {
        for (int i = 0; ; i++)
        {
            final byte[] b = ("callid-" + i).getBytes(StandardCharsets.US_ASCII);
            if (ShardIds.shardForCallId(b, 0, b.length, SHARDS) != shard)
            {
                return i;
            }
        }
    }

    private static SipMessage request(final String uri, final String extra, final String callId)
    {
        final String text = "INVITE " + uri + " SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-1\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: <sip:alice@example.com>;tag=x1\r\n"
            + "To: <sip:bob@example.com>\r\n"
            + "Call-ID: " + callId + "\r\n"
            + "CSeq: 1 INVITE\r\n"
            + extra
            + "Content-Length: 0\r\n\r\n";
        final byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        final SipMessage m = new SipMessage();
        assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(bytes, 0, bytes.length, m));
        return m;
    }
}
