package io.sipline.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import io.sipline.sip.message.ParseResult;
import io.sipline.sip.message.SipMessage;
import io.sipline.sip.message.SipMessageParser;
import io.sipline.sip.shard.ShardIds;

/**
 * The shard handler and the stateless responder on an {@link EmbeddedChannel}: what each kind of datagram gets back,
 * where it goes, and what is counted. Every buffer is released (the suite runs with the paranoid leak detector).
 */
class StatelessResponderTest
{
    private static final InetSocketAddress LOCAL = new InetSocketAddress(InetAddress.ofLiteral("192.0.2.1"), 5060);
    private static final InetSocketAddress PEER = new InetSocketAddress(InetAddress.ofLiteral("192.0.2.7"), 5062);
    private static final InetSocketAddress NATED = new InetSocketAddress(InetAddress.ofLiteral("192.0.2.7"), 40000);

    private final UdpShardSockets shard =
        new UdpShardSockets(3, new StatelessResponder(3), PooledByteBufAllocator.DEFAULT, new DistinctErrors());
    private final EmbeddedChannel channel = new EmbeddedChannel(shard);

    @AfterEach
    void finish()
    {
        assertFalse(channel.finish(), "nothing may be left in the channel");
    }

    private static String request(final String method, final String via, final String extra)
    {
        return method + " sip:bob@192.0.2.1 SIP/2.0\r\n"
            + "Via: " + via + "\r\n"
            + "Max-Forwards: 70\r\n"
            + "From: Alice <sip:alice@atlanta.example>;tag=1928301774\r\n"
            + "To: Bob <sip:bob@biloxi.example>\r\n"
            + "Call-ID: a84b4c76e66710@pc33.atlanta.example\r\n"
            + "CSeq: 314159 " + method + "\r\n"
            + extra
            + "Content-Length: 0\r\n\r\n";
    }

    private static String request(final String method)
    {
        return request(method, "SIP/2.0/UDP 192.0.2.7:5062;branch=z9hG4bK776asdhds", "");
    }

    private void receive(final String text, final InetSocketAddress from)
    {
        receive(Unpooled.copiedBuffer(text, StandardCharsets.ISO_8859_1), from);
    }

    private void receive(final ByteBuf bytes, final InetSocketAddress from)
    {
        channel.writeInbound(new DatagramPacket(bytes, LOCAL, from));
    }

    /** The one datagram sent back, as text and destination; none may follow it. */
    private Reply reply()
    {
        final DatagramPacket packet = channel.readOutbound();
        assertNotNull(packet, "expected a reply");
        try
        {
            assertNull(channel.readOutbound(), "expected exactly one reply");
            return new Reply(packet.content().toString(StandardCharsets.ISO_8859_1), packet.recipient());
        }
        finally
        {
            packet.release();
        }
    }

    private void noReply()
    {
        final Object packet = channel.readOutbound();
        if (null != packet)
        {
            io.netty.util.ReferenceCountUtil.release(packet);
        }
        assertNull(packet, "expected no reply");
    }

    private record Reply(String text, InetSocketAddress recipient)
    {
        SipMessage parsed()
        {
            final byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
            final SipMessage m = new SipMessage();
            assertEquals(ParseResult.OK, SipMessageParser.parseDatagram(bytes, 0, bytes.length, m), text);
            return m;
        }

        String statusLine()
        {
            return text.substring(0, text.indexOf("\r\n"));
        }
    }

    @Test
    void shouldAnswerOptionsWith200AndCapabilities()
    {
        receive(request("OPTIONS"), PEER);
        final Reply reply = reply();
        assertEquals("SIP/2.0 200 OK", reply.statusLine());
        assertEquals(PEER, reply.recipient());
        final SipMessage m = reply.parsed();
        assertTrue(reply.text().contains("\r\nAllow: " + StatelessResponder.ALLOW + "\r\n"), reply.text());
        assertEquals(14, m.valueCount(io.sipline.sip.message.HeaderName.ALLOW));
        assertEquals("application/sdp", m.headerValue("Accept"));
        assertEquals("", m.headerValue("Supported"));
        assertEquals("a84b4c76e66710@pc33.atlanta.example", m.callId());
        assertEquals(314159, m.cseqNumber());
        assertEquals("1928301774", m.fromTag());
        assertTrue(m.toTag().matches("s0300[0-9a-f]{13}"), m.toTag());
        assertEquals(3, ShardIds.shardOf(m.buffer(), m.toTagStart(), m.toTagEnd()), "the tag names its shard");
        // sent-by is the source address: the Via goes back exactly as it came (RFC 3261 §18.2.1).
        assertTrue(reply.text().contains("\r\nVia: SIP/2.0/UDP 192.0.2.7:5062;branch=z9hG4bK776asdhds\r\n"));
        assertTrue(reply.text().endsWith("Content-Length: 0\r\n\r\n"));

        final ShardCounters c = shard.snapshot();
        assertEquals(1, c.datagramsIn());
        assertEquals(1, c.requestsIn());
        assertEquals(1, c.responsesSent());
        assertEquals(0, c.dropped());
    }

    @Test
    void shouldGiveEachAnswerItsOwnToTag()
    {
        receive(request("OPTIONS"), PEER);
        final String first = reply().parsed().toTag();
        receive(request("OPTIONS"), PEER);
        final String second = reply().parsed().toTag();
        assertFalse(first.equals(second), first);
    }

    @Test
    void shouldAnswerOtherRequestsWith404NoApplicationDeployed()
    {
        receive(request("INVITE"), PEER);
        assertEquals("SIP/2.0 404 No Application Deployed", reply().statusLine());
        receive(request("REGISTER"), PEER);
        assertEquals("SIP/2.0 404 No Application Deployed", reply().statusLine());
        receive(request("FOOBAR"), PEER);
        assertEquals("SIP/2.0 404 No Application Deployed", reply().statusLine());
    }

    @Test
    void shouldAbsorbAck()
    {
        receive(request("ACK"), PEER);
        noReply();
        final ShardCounters c = shard.snapshot();
        assertEquals(1, c.requestsIn());
        assertEquals(0, c.dropped());
        assertEquals(0, c.responsesSent());
    }

    @Test
    void shouldAnswerCancelWith481()
    {
        receive(request("CANCEL"), PEER);
        assertEquals("SIP/2.0 481 Call/Transaction Does Not Exist", reply().statusLine());
    }

    @Test
    void shouldAnswerARequestInAnUnknownDialogWith481()
    {
        // RFC 3261 §12.2.2: a To tag names a dialog this server does not have.
        receive(request("BYE").replace("To: Bob <sip:bob@biloxi.example>", "To: Bob <sip:bob@biloxi.example>;tag=x1"),
            PEER);
        final Reply reply = reply();
        assertEquals("SIP/2.0 481 Call/Transaction Does Not Exist", reply.statusLine());
        assertEquals("x1", reply.parsed().toTag());
    }

    @Test
    void shouldAnswerMaxForwardsZeroWith483ExceptForOptions()
    {
        receive(request("INVITE").replace("Max-Forwards: 70", "Max-Forwards: 0"), PEER);
        assertEquals("SIP/2.0 483 Too Many Hops", reply().statusLine());
        receive(request("OPTIONS").replace("Max-Forwards: 70", "Max-Forwards: 0"), PEER);
        assertEquals("SIP/2.0 200 OK", reply().statusLine());
    }

    @Test
    void shouldStampReceivedAndRportAndAnswerTheSourcePort()
    {
        // RFC 3581 §4: rport asked for: received and rport filled in, the answer goes to the source address:port.
        receive(request("OPTIONS", "SIP/2.0/UDP 10.0.0.5:5060;branch=z9hG4bKnat;rport", ""), NATED);
        final Reply reply = reply();
        assertEquals(NATED, reply.recipient());
        assertTrue(reply.text().contains(
            "\r\nVia: SIP/2.0/UDP 10.0.0.5:5060;branch=z9hG4bKnat;rport=40000;received=192.0.2.7\r\n"), reply.text());
    }

    @Test
    void shouldReplaceStaleReceivedAndRportAndKeepTheOtherVias()
    {
        final String vias = "SIP/2.0/UDP 10.0.0.5;received=198.51.100.1;rport=1;branch=z9hG4bKa, "
            + "SIP/2.0/UDP p.example;branch=z9hG4bKb\r\nVia: SIP/2.0/UDP q.example;branch=z9hG4bKc";
        receive(request("INVITE", vias, ""), NATED);
        final Reply reply = reply();
        assertEquals(NATED, reply.recipient());
        assertTrue(reply.text().contains("\r\nVia: SIP/2.0/UDP 10.0.0.5;received=192.0.2.7;rport=40000;branch=z9hG4bKa"
            + "\r\nVia: SIP/2.0/UDP p.example;branch=z9hG4bKb"
            + "\r\nVia: SIP/2.0/UDP q.example;branch=z9hG4bKc\r\nFrom: "), reply.text());
    }

    @Test
    void shouldStampReceivedWhenSentByIsNotTheSource()
    {
        // RFC 3261 §18.2.1: received added; §18.2.2: sent to that address with the sent-by port (default 5060).
        receive(request("OPTIONS", "SIP/2.0/UDP pc33.atlanta.example;branch=z9hG4bKh", ""), PEER);
        final Reply reply = reply();
        assertEquals(new InetSocketAddress(PEER.getAddress(), 5060), reply.recipient());
        assertTrue(reply.text().contains(
            "\r\nVia: SIP/2.0/UDP pc33.atlanta.example;branch=z9hG4bKh;received=192.0.2.7\r\n"), reply.text());
    }

    @Test
    void shouldNotStampAnIpv6SentByThatIsTheSourceInAnySpelling()
    {
        final InetSocketAddress v6 = new InetSocketAddress(InetAddress.ofLiteral("2001:db8::7"), 5070);
        receive(request("OPTIONS", "SIP/2.0/UDP [2001:DB8::7]:5070;branch=z9hG4bKv6a", ""), v6);
        assertTrue(reply().text().contains("\r\nVia: SIP/2.0/UDP [2001:DB8::7]:5070;branch=z9hG4bKv6a\r\n"));
        receive(request("OPTIONS", "SIP/2.0/UDP [2001:db8:0:0:0:0:0:7]:5070;branch=z9hG4bKv6b", ""), v6);
        assertTrue(reply().text().contains("\r\nVia: SIP/2.0/UDP [2001:db8:0:0:0:0:0:7]:5070;branch=z9hG4bKv6b\r\n"));
        receive(request("OPTIONS", "SIP/2.0/UDP [2001:db8::8]:5070;branch=z9hG4bKv6c", ""), v6);
        final Reply other = reply();
        assertEquals(v6, other.recipient());
        assertTrue(other.text().contains(
            "\r\nVia: SIP/2.0/UDP [2001:db8::8]:5070;branch=z9hG4bKv6c;received=2001:db8::7\r\n"), other.text());
    }

    @Test
    void shouldAnswerMalformedRequestsWithTheParseReason()
    {
        receive(request("INVITE").replace("CSeq: 314159 INVITE", "CSeq: 314159 BYE"), PEER);
        assertEquals("SIP/2.0 400 CSeq Method Does Not Match Request Method", reply().statusLine());

        receive(request("INVITE").replace("Content-Length: 0", "Content-Length: 100"), PEER);
        assertEquals("SIP/2.0 400 Content-Length Larger Than Body", reply().statusLine());

        receive(request("OPTIONS").replace("OPTIONS sip:bob@192.0.2.1 SIP/2.0", "OPTIONS sip:bob@192.0.2.1 SIP/3.0"),
            PEER);
        assertEquals("SIP/2.0 505 Version Not Supported", reply().statusLine());

        final ShardCounters c = shard.snapshot();
        assertEquals(3, c.parseErrorsTotal());
        assertEquals(1, c.parseErrors(ParseResult.CSEQ_METHOD_MISMATCH));
        assertEquals(1, c.parseErrors(ParseResult.BODY_TOO_SHORT));
        assertEquals(1, c.parseErrors(ParseResult.UNSUPPORTED_VERSION));
        assertEquals(3, c.responsesSent());
        assertEquals(0, c.dropped());
    }

    @Test
    void shouldAnswerATruncatedHeaderSectionWhenItsEssentialsArrived()
    {
        final String whole = request("OPTIONS", "SIP/2.0/UDP 192.0.2.7:5062;branch=z9hG4bKt",
            "Subject: a header cut off in the middle\r\n");
        receive(whole.substring(0, whole.indexOf("cut off")), PEER);
        assertEquals("SIP/2.0 400 Header Section Not Terminated", reply().statusLine());
    }

    @Test
    void shouldDropMalformedRequestsThatCannotBeAddressed()
    {
        receive(request("INVITE").replace("Call-ID: a84b4c76e66710@pc33.atlanta.example\r\n", ""), PEER);
        noReply();
        receive(request("INVITE").replace("Via: SIP/2.0/UDP 192.0.2.7:5062", "Via: SIP/2.0/UDP @@@"), PEER);
        noReply();
        final ShardCounters c = shard.snapshot();
        assertEquals(1, c.parseErrors(ParseResult.MISSING_CALL_ID));
        assertEquals(2, c.parseErrorsTotal());
        assertEquals(2, c.dropped());
    }

    @Test
    void shouldNeverAnswerAMalformedAck()
    {
        receive(request("ACK").replace("Content-Length: 0", "Content-Length: 100"), PEER);
        noReply();
        assertEquals(1, shard.snapshot().dropped());
    }

    @Test
    void shouldDropResponses()
    {
        receive("SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP 192.0.2.1;branch=z9hG4bK1\r\nFrom: <sip:a@b>;tag=1\r\n"
            + "To: <sip:c@d>;tag=2\r\nCall-ID: x\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n", PEER);
        noReply();
        final ShardCounters c = shard.snapshot();
        assertEquals(1, c.responsesIn());
        assertEquals(1, c.dropped());
    }

    @Test
    void shouldDropGarbage()
    {
        receive("hello, is this SIP?", PEER);
        receive(Unpooled.wrappedBuffer(new byte[] {(byte)0xFF, 0, 0, 0, 1, 2, 3}), PEER);
        noReply();
        final ShardCounters c = shard.snapshot();
        assertEquals(2, c.datagramsIn());
        assertEquals(2, c.parseErrorsTotal());
        assertEquals(2, c.dropped());
    }

    @Test
    void shouldCountKeepAlivesWithoutAnswering()
    {
        receive("\r\n\r\n", PEER);
        receive("\r\n", PEER);
        noReply();
        final ShardCounters c = shard.snapshot();
        assertEquals(2, c.keepAlives());
        assertEquals(0, c.dropped());
        assertEquals(0, c.parseErrorsTotal());
    }

    @Test
    void shouldAnswerStunBindingRequestsAndDropOtherStun()
    {
        // RFC 8489 §5: a Binding request, type 0x0001, length 0, magic cookie, 96-bit transaction id.
        final ByteBuf stun = Unpooled.buffer(20);
        stun.writeShort(0x0001).writeShort(0).writeInt(DatagramKind.STUN_MAGIC_COOKIE);
        stun.writeBytes(ByteBufUtil.decodeHexDump("0102030405060708090a0b0c"));
        receive(stun, PEER);
        // RFC 5626 §4.4.2 / §8.4, RFC 8489 §7.3.1, §14.2: Binding success with the sender's address XOR'ed.
        final DatagramPacket answer = channel.readOutbound();
        try
        {
            assertEquals(PEER, answer.recipient());
            assertEquals("0101000c2112a4420102030405060708090a0b0c" + "00200008" + "0001"
                + String.format("%04x", 5062 ^ 0x2112) + String.format("%08x", 0xC0000207 ^ 0x2112A442),
                ByteBufUtil.hexDump(answer.content()));
        }
        finally
        {
            answer.release();
        }
        noReply();
        // A Binding indication (0x0011) wants no answer: counted and dropped.
        final ByteBuf indication = Unpooled.buffer(20);
        indication.writeShort(0x0011).writeShort(0).writeInt(DatagramKind.STUN_MAGIC_COOKIE).writeZero(12);
        receive(indication, PEER);
        noReply();
        final ShardCounters c = shard.snapshot();
        assertEquals(2, c.stun());
        assertEquals(1, c.dropped());
        assertEquals(1, c.responsesSent());
    }

    @Test
    void shouldSurviveAHandlerThatThrows()
    {
        final boolean[] thrown = {false};
        final UdpShardSockets fragile = new UdpShardSockets(0,
            (final UdpShardSockets s, final SipMessage m, final InetSocketAddress from) ->
        {
            if (!thrown[0])
            {
                thrown[0] = true;
                throw new IllegalStateException("bug in a handler");
            }
            return true;
        }, PooledByteBufAllocator.DEFAULT, new DistinctErrors());
        final EmbeddedChannel other = new EmbeddedChannel(fragile);
        other.writeInbound(new DatagramPacket(Unpooled.copiedBuffer(request("OPTIONS"), StandardCharsets.US_ASCII),
            LOCAL, PEER));
        other.writeInbound(new DatagramPacket(Unpooled.copiedBuffer(request("OPTIONS"), StandardCharsets.US_ASCII),
            LOCAL, PEER));
        assertTrue(other.isOpen());
        final ShardCounters c = fragile.snapshot();
        assertEquals(2, c.requestsIn());
        assertEquals(1, c.errors());
        assertFalse(other.finish());
    }
}
