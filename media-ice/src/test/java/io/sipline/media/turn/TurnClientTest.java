package io.sipline.media.turn;

import io.sipline.media.stun.StunAddress;
import io.sipline.media.stun.StunAttributeType;
import io.sipline.media.stun.StunCredential;
import io.sipline.media.stun.StunIntegrity;
import io.sipline.media.stun.StunMessageFlyweight;
import io.sipline.media.stun.StunMessageType;
import io.sipline.media.stun.StunMessageWriter;
import io.sipline.media.stun.StunResult;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TurnClient} without sockets: requests land in a list, a scripted server in the test answers them, the clock
 * is a number the test advances.
 */
class TurnClientTest
{
    private static final InetSocketAddress SERVER = new InetSocketAddress("192.0.2.1", 3478);
    private static final String REALM = "example.org";
    private static final StunCredential KEY = StunCredential.longTerm("alice", REALM, "pw",
        StunCredential.ALGORITHM_MD5);

    private final List<byte[]> sent = new ArrayList<>();
    private final StunIntegrity integrity = new StunIntegrity();
    private final StunMessageFlyweight request = new StunMessageFlyweight(16, StunAttributeType.TURN_KNOWN_LOW);
    private final StunMessageWriter writer = new StunMessageWriter();
    private final List<String> events = new ArrayList<>();
    private final TurnClient client = new TurnClient((buf, off, len, dst) ->
    {
        assertEquals(SERVER, dst);
        sent.add(Arrays.copyOfRange(buf, off, off + len));
    }, SERVER, "alice", "pw", new TurnClient.Listener()
    {
        @Override
        public void onAllocated(final TurnClient c, final StunAddress relayed, final StunAddress mapped,
            final int lifetime)
        {
            events.add("allocated " + relayed + " " + mapped + " " + lifetime);
        }

        @Override
        public void onRefreshed(final TurnClient c, final int lifetime)
        {
            events.add("refreshed " + lifetime);
        }

        @Override
        public void onPermissionCreated(final TurnClient c, final int slot)
        {
            events.add("permission " + slot);
        }

        @Override
        public void onChannelBound(final TurnClient c, final int slot, final int channel)
        {
            events.add("channel " + slot + " " + Integer.toHexString(channel));
        }

        @Override
        public void onFailure(final TurnClient c, final int kind, final int slot, final int result)
        {
            events.add("failure " + kind + " " + slot + " " + TurnResult.name(result));
        }

        @Override
        public void onData(final TurnClient c, final int slot, final StunAddress peer, final byte[] buf,
            final int offset, final int length)
        {
            events.add("data " + slot + " " + peer + " " + new String(buf, offset, length, StandardCharsets.US_ASCII));
        }
    }, new TurnClient.Shared(integrity, 512), 2);

    private byte[] last()
    {
        return sent.get(sent.size() - 1);
    }

    private StunMessageFlyweight lastRequest()
    {
        final byte[] bytes = last();
        assertTrue(request.wrap(bytes, 0, bytes.length) >= 0);
        return request;
    }

    /** Answers the last request with an error carrying REALM and NONCE. */
    private void answerError(final long now, final int code, final String nonce)
    {
        final StunMessageFlyweight req = lastRequest();
        final byte[] out = new byte[512];
        writer.wrap(out, 0, out.length)
            .header(StunMessageType.type(req.method(), StunMessageType.CLASS_ERROR_RESPONSE), req)
            .addErrorCode(code, "err");
        if (null != nonce)
        {
            writer.addAscii(StunAttributeType.REALM, REALM).addAscii(StunAttributeType.NONCE, nonce);
        }
        final int len = writer.length();
        assertTrue(client.onDatagram(out, 0, len, now));
    }

    /** Answers the last request with success, integrity-protected by the long-term key. */
    private void answerSuccess(final long now, final int lifetime, final boolean relayed)
    {
        final StunMessageFlyweight req = lastRequest();
        assertEquals(StunResult.VERIFIED, req.verifyMessageIntegrity(integrity, KEY), "request signed with our key");
        final byte[] out = new byte[512];
        writer.wrap(out, 0, out.length)
            .header(StunMessageType.type(req.method(), StunMessageType.CLASS_SUCCESS_RESPONSE), req);
        if (relayed)
        {
            writer.addAddress(StunAttributeType.XOR_RELAYED_ADDRESS,
                new StunAddress().set(new InetSocketAddress("192.0.2.1", 50000)))
                .addAddress(StunAttributeType.XOR_MAPPED_ADDRESS,
                    new StunAddress().set(new InetSocketAddress("198.51.100.7", 40000)));
        }
        if (lifetime >= 0)
        {
            writer.addU32(StunAttributeType.LIFETIME, lifetime);
        }
        final int len = writer.addMessageIntegrity(integrity, KEY).addFingerprint(integrity).length();
        assertTrue(client.onDatagram(out, 0, len, now));
    }

    private void allocate()
    {
        assertEquals(TurnResult.OK, client.allocate(0, 0));
        assertEquals(-1, lastRequest().findAttribute(StunAttributeType.MESSAGE_INTEGRITY), "first try unsigned");
        answerError(10, 401, "nonce-1");
        assertEquals(2, sent.size(), "retried at once with credentials");
        assertEquals("nonce-1", lastRequest().valueAsString(lastRequest().findAttribute(StunAttributeType.NONCE)));
        answerSuccess(20, 600, true);
    }

    @Test
    void shouldAllocateAfterTheNonceDance()
    {
        allocate();
        assertEquals(List.of("allocated /192.0.2.1:50000 /198.51.100.7:40000 600"), events);
        assertEquals(TurnClient.STATE_ALLOCATED, client.state());
        assertEquals(StunMessageType.type(StunMessageType.METHOD_ALLOCATE, StunMessageType.CLASS_REQUEST),
            lastRequest().messageType());
        final int transport = lastRequest().findAttribute(StunAttributeType.REQUESTED_TRANSPORT);
        assertEquals(17L << 24, lastRequest().u32Value(transport), "UDP");
    }

    @Test
    void shouldRetryWithTheNewNonceOnStaleNonce()
    {
        allocate();
        final StunAddress peer = new StunAddress().set(new InetSocketAddress("203.0.113.9", 7000));
        assertEquals(0, client.createPermission(peer, 100));
        answerError(110, 438, "nonce-2");
        assertEquals("nonce-2", lastRequest().valueAsString(lastRequest().findAttribute(StunAttributeType.NONCE)));
        assertEquals(StunMessageType.type(StunMessageType.METHOD_CREATE_PERMISSION, StunMessageType.CLASS_REQUEST),
            lastRequest().messageType());
        answerSuccess(120, -1, false);
        assertEquals("permission 0", events.get(events.size() - 1));
        assertTrue(client.hasPermission(0));
    }

    @Test
    void shouldReportQuotaReachedAsAResultCode()
    {
        assertEquals(TurnResult.OK, client.allocate(0, 0));
        answerError(1, 401, "n");
        answerError(2, 486, null);
        assertEquals(List.of("failure 1 -1 486 Allocation Quota Reached"), events);
        assertEquals(TurnClient.STATE_CLOSED, client.state());
        assertEquals(TurnResult.NOT_ALLOCATED, client.allocate(0, 3), "a failed client is not reused");
    }

    @Test
    void shouldReportInsufficientCapacityForAPermission()
    {
        allocate();
        // A permission refused for capacity leaves the allocation alone.
        final StunAddress peer = new StunAddress().set(new InetSocketAddress("203.0.113.9", 7000));
        client.createPermission(peer, 30);
        answerError(31, 508, null);
        assertEquals("failure 3 0 508 Insufficient Capacity", events.get(events.size() - 1));
        assertFalse(client.hasPermission(0));
        assertEquals(TurnClient.STATE_ALLOCATED, client.state());
    }

    @Test
    void shouldFailAfterWrongCredentials()
    {
        assertEquals(TurnResult.OK, client.allocate(0, 0));
        answerError(1, 401, "n");
        answerError(2, 401, "n"); // signed request refused, same realm
        assertEquals(List.of("failure 1 -1 AUTHENTICATION_FAILED"), events);
    }

    @Test
    void shouldRejectAnUnsignedSuccess()
    {
        assertEquals(TurnResult.OK, client.allocate(0, 0));
        answerError(1, 401, "n");
        final StunMessageFlyweight req = lastRequest();
        final byte[] out = new byte[128];
        final int len = writer.wrap(out, 0, out.length)
            .header(StunMessageType.type(StunMessageType.METHOD_ALLOCATE, StunMessageType.CLASS_SUCCESS_RESPONSE),
                req)
            .addAddress(StunAttributeType.XOR_RELAYED_ADDRESS,
                new StunAddress().set(new InetSocketAddress("192.0.2.66", 1)))
            .length();
        client.onDatagram(out, 0, len, 5);
        assertEquals(List.of("failure 1 -1 INTEGRITY_MISMATCH"), events);
    }

    @Test
    void shouldTimeOutOnTheRfc8489Schedule()
    {
        assertEquals(TurnResult.OK, client.allocate(0, 0));
        for (long t = 0; t <= 39_500; t += 100)
        {
            client.poll(t);
        }
        assertEquals(7, sent.size(), "Rc = 7 sends");
        assertEquals(List.of("failure 1 -1 TIMEOUT"), events);
    }

    @Test
    void shouldRefreshAMinuteBeforeExpiryAndDeallocate()
    {
        allocate();
        final int before = sent.size();
        client.poll(20 + 539_999);
        assertEquals(before, sent.size());
        client.poll(20 + 540_000);
        assertEquals(before + 1, sent.size(), "Refresh sent at lifetime - 60 s");
        assertEquals(StunMessageType.type(StunMessageType.METHOD_REFRESH, StunMessageType.CLASS_REQUEST),
            lastRequest().messageType());
        answerSuccess(540_030, 600, false);
        assertEquals("refreshed 600", events.get(events.size() - 1));
        assertEquals(540_030 + 540_000, client.nextDeadlineMs());

        assertEquals(TurnResult.OK, client.deallocate(600_000));
        assertEquals(0L, lastRequest().u32Value(lastRequest().findAttribute(StunAttributeType.LIFETIME)));
        answerError(600_010, 437, null); // §8.3: already gone counts as deleted
        assertEquals("refreshed 0", events.get(events.size() - 1));
        assertEquals(TurnClient.STATE_CLOSED, client.state());
    }

    @Test
    void shouldFrameChannelDataAndSendIndications()
    {
        allocate();
        final StunAddress peer = new StunAddress().set(new InetSocketAddress("203.0.113.9", 7000));
        final int slot = client.createPermission(peer, 30);
        answerSuccess(31, -1, false);
        final byte[] data = "abcde".getBytes(StandardCharsets.US_ASCII);
        assertEquals(TurnResult.OK, client.send(slot, data, 0, 5));
        final StunMessageFlyweight indication = lastRequest();
        assertEquals(StunMessageType.type(StunMessageType.METHOD_SEND, StunMessageType.CLASS_INDICATION),
            indication.messageType());
        final StunAddress decoded = new StunAddress();
        indication.readAddress(indication.findAttribute(StunAttributeType.XOR_PEER_ADDRESS), decoded);
        assertTrue(decoded.sameAs(peer));

        assertEquals(slot, client.bindChannel(peer, 40));
        assertEquals(0x4000L << 16,
            lastRequest().u32Value(lastRequest().findAttribute(StunAttributeType.CHANNEL_NUMBER)));
        answerSuccess(41, -1, false);
        assertEquals("channel 0 4000", events.get(events.size() - 1));
        assertEquals(TurnResult.OK, client.send(slot, data, 0, 5));
        assertArrayEquals(new byte[] {0x40, 0x00, 0, 5, 'a', 'b', 'c', 'd', 'e', 0, 0, 0}, last(),
            "RFC 8656 §12.4 header, padded to 4 over UDP");

        // Received ChannelData, with and without padding, and a reserved channel number.
        final byte[] in = {0x40, 0x00, 0, 2, 'h', 'i', 0, 0};
        assertTrue(client.onDatagram(in, 0, 8, 50));
        assertTrue(client.onDatagram(in, 0, 6, 50));
        assertFalse(client.onDatagram(new byte[] {0x50, 0x00, 0, 0}, 0, 4, 50));
        assertFalse(client.onDatagram(new byte[] {0x40, 0x00, 0, 9, 1}, 0, 5, 50), "length past the end");
        assertEquals("data 0 /203.0.113.9:7000 hi", events.get(events.size() - 1));
        assertEquals("data 0 /203.0.113.9:7000 hi", events.get(events.size() - 2));

        // A Data indication.
        final byte[] out = new byte[128];
        final int len = writer.wrap(out, 0, out.length)
            .header(StunMessageType.type(StunMessageType.METHOD_DATA, StunMessageType.CLASS_INDICATION), 1, 2L)
            .addAddress(StunAttributeType.XOR_PEER_ADDRESS, peer)
            .addBytes(StunAttributeType.DATA, data, 0, 3)
            .length();
        assertTrue(client.onDatagram(out, 0, len, 60));
        assertEquals("data 0 /203.0.113.9:7000 abc", events.get(events.size() - 1));
    }

    /**
     * RFC 8445 §14.2: every new transaction of the TURN client (the Allocate retried with credentials,
     * CreatePermission, ChannelBind, Refresh) takes a turn of the thread's pacer, 5 ms apart from any other
     * transaction of the thread; retransmissions do not wait.
     */
    @Test
    void shouldPaceItsNewTransactionsButNotItsRetransmissions()
    {
        final io.sipline.media.ice.IceContext thread = new io.sipline.media.ice.IceContext();
        client.pacer(thread);
        assertEquals(TurnResult.OK, client.allocate(0, 0));
        assertEquals(1, sent.size(), "the first Allocate takes the free turn");
        answerError(1, 401, "nonce-1");
        assertEquals(1, sent.size(), "the Allocate with credentials waits for the turn");
        assertEquals(5, client.nextDeadlineMs(), "due at the thread's next turn");
        client.poll(4);
        assertEquals(1, sent.size());
        client.poll(5);
        assertEquals(2, sent.size(), "sent on the turn at 5 ms");
        answerSuccess(6, 600, true);
        assertEquals(TurnClient.STATE_ALLOCATED, client.state());

        // Two peer requests asked for at once leave one turn apart.
        final StunAddress a = new StunAddress().set(new InetSocketAddress("203.0.113.9", 7000));
        final StunAddress b = new StunAddress().set(new InetSocketAddress("203.0.113.10", 7000));
        assertEquals(0, client.createPermission(a, 10));
        assertEquals(1, client.bindChannel(b, 10));
        assertEquals(3, sent.size(), "CreatePermission at 10 ms");
        assertEquals(StunMessageType.type(StunMessageType.METHOD_CREATE_PERMISSION, StunMessageType.CLASS_REQUEST),
            lastRequest().messageType());
        client.poll(14);
        assertEquals(3, sent.size(), "ChannelBind held back under 5 ms");
        client.poll(15);
        assertEquals(4, sent.size(), "ChannelBind at 15 ms");
        assertEquals(StunMessageType.type(StunMessageType.METHOD_CHANNEL_BIND, StunMessageType.CLASS_REQUEST),
            lastRequest().messageType());
        answerSuccess(16, -1, false);
        assertEquals("channel 1 4000", events.get(events.size() - 1));

        // The CreatePermission is unanswered: its retransmission at 10 + RTO leaves even though another
        // transaction of the thread (an ICE check, say) has just taken the turn.
        assertTrue(thread.takeTurn(509));
        client.poll(510);
        assertEquals(5, sent.size(), "a retransmission is not paced");
        assertEquals(StunMessageType.type(StunMessageType.METHOD_CREATE_PERMISSION, StunMessageType.CLASS_REQUEST),
            lastRequest().messageType());
        answerSuccess(511, -1, false);

        // The Refresh due at 6 + 540 s waits for a turn another transaction took 1 ms before.
        assertTrue(thread.takeTurn(540_005));
        client.poll(540_006);
        assertEquals(5, sent.size(), "the Refresh waits for the turn");
        assertEquals(540_010, client.nextDeadlineMs());
        client.poll(540_010);
        assertEquals(6, sent.size());
        assertEquals(StunMessageType.type(StunMessageType.METHOD_REFRESH, StunMessageType.CLASS_REQUEST),
            lastRequest().messageType());
    }

    @Test
    void shouldEncodeChannelDataWithinLimits()
    {
        final byte[] dst = new byte[8];
        assertEquals(-1, TurnChannelData.encode(dst, 0, 0x3FFF, new byte[1], 0, 1, true));
        assertEquals(-1, TurnChannelData.encode(dst, 0, 0x4000, new byte[5], 0, 5, true), "12 bytes do not fit 8");
        assertEquals(8, TurnChannelData.encode(dst, 0, 0x4FFF, new byte[4], 0, 4, true));
        assertEquals(0x4FFF, TurnChannelData.channel(dst, 0, 8));
        assertEquals(4 + 5, TurnChannelData.frameLength(5, false));
        assertEquals(4 + 8, TurnChannelData.frameLength(5, true));
    }
}
