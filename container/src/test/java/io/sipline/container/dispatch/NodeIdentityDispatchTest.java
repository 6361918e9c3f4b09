package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;
import io.sipline.sip.stack.CallOwner;

/**
 * A cluster node names itself in what it writes: its To tag carries its node beside its shard, and its Contact
 * carries {@code sipline-node}, so that any node and the front can tell whose call the dialog is; outside a cluster
 * neither appears.
 */
class NodeIdentityDispatchTest
{
    @Test
    void shouldWriteTheNodeIntoTheTagAndTheContactOfACallItAnswers() throws Exception
    {
        try (ContainerServer server = TestApps.server(TestApps.config().node(0x2a)))
        {
            server.registry().onDeployed(TestApps.application("uas", new DispatchSippTest.Uas(), Map.of()));
            final String ok = TestApps.exchange(DispatchSippTest.address(server),
                TestApps.request("INVITE", "node-identity-1"));
            assertTrue(ok.startsWith("SIP/2.0 200"), ok);
            assertTrue(ok.contains(";sipline-node=2a>"), "the Contact names the node:\n" + ok);
            final SipMessage m = parse(ok);
            // a response's owner is read from its Via; the To tag is what the caller's BYE brings back
            assertEquals(0x2a, io.sipline.sip.shard.ShardIds.nodeOf(m.toTag()), ok);
            assertEquals(CallOwner.UNKNOWN, CallOwner.nodeOf(m), "the caller's branch and Call-ID are not ours");
        }
    }

    @Test
    void shouldWriteNoNodeOutsideACluster() throws Exception
    {
        try (ContainerServer server = TestApps.server())
        {
            server.registry().onDeployed(TestApps.application("uas", new DispatchSippTest.Uas(), Map.of()));
            final String ok = TestApps.exchange(DispatchSippTest.address(server),
                TestApps.request("INVITE", "node-identity-2"));
            assertTrue(ok.startsWith("SIP/2.0 200"), ok);
            assertFalse(ok.contains("sipline-node"), ok);
            assertEquals(0, io.sipline.sip.shard.ShardIds.nodeOf(parse(ok).toTag()), ok);
        }
    }

    private static SipMessage parse(final String text)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        final SipMessage m = new SipMessage();
        assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(bytes, 0, bytes.length, m));
        return m;
    }
}
