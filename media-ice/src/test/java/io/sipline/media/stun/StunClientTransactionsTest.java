package io.sipline.media.stun;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class StunClientTransactionsTest
{
    private static final InetSocketAddress SERVER = new InetSocketAddress("192.0.2.9", 3478);

    private final List<Long> sendTimes = new ArrayList<>();
    private final List<String> events = new ArrayList<>();
    private long nowMs;
    private final StunTransport transport = (buf, offset, length, destination) -> sendTimes.add(nowMs);
    private final StunClientTransactions.Listener listener = new StunClientTransactions.Listener()
    {
        @Override
        public void onResponse(final long token, final StunMessageFlyweight response, final int wrapResult)
        {
            events.add("response " + token + " " + response.messageClass());
        }

        @Override
        public void onTimeout(final long token)
        {
            events.add("timeout " + token + " at " + nowMs);
        }
    };
    private final StunMessageWriter writer = new StunMessageWriter();
    private final byte[] buf = new byte[100];

    @Test
    void shouldRetransmitOnTheRfc8489ScheduleAndTimeOutAt39500Ms()
    {
        final StunClientTransactions transactions = new StunClientTransactions(transport, listener);
        final int length = request(7, 8L);
        nowMs = 1_000;
        assertTrue(transactions.start(buf, 0, length, SERVER, false, 42, nowMs) >= 0);
        for (long t = 1_000; t <= 1_000 + 40_000; t += 10)
        {
            nowMs = t;
            transactions.poll(nowMs);
        }
        assertEquals(List.of(0L, 500L, 1_500L, 3_500L, 7_500L, 15_500L, 31_500L),
            sendTimes.stream().map(t -> t - 1_000).toList());
        assertEquals(List.of("timeout 42 at " + (1_000 + 39_500)), events);
        assertEquals(6, transactions.retransmissions());
        assertEquals(0, transactions.activeCount());
    }

    @Test
    void shouldUseConfiguredTiming()
    {
        final StunClientTransactions transactions =
            new StunClientTransactions(transport, listener, 4, 548, 100, 3, 4, 1_000);
        transactions.start(buf, 0, request(1, 1L), SERVER, false, 1, 0);
        transactions.start(buf, 0, request(2, 2L), SERVER, true, 2, 0);
        for (nowMs = 0; nowMs <= 2_000; nowMs++)
        {
            transactions.poll(nowMs);
        }
        // UDP: sends at 0, 100, 300; timeout at 300 + 4 * 100. Reliable: one send, timeout at Ti.
        assertEquals(List.of(0L, 0L, 100L, 300L), sendTimes);
        assertEquals(List.of("timeout 1 at 700", "timeout 2 at 1000"), events);
    }

    @Test
    void shouldMatchResponsesByTransactionId()
    {
        final StunClientTransactions transactions = new StunClientTransactions(transport, listener);
        transactions.start(buf, 0, request(0x11, 0x22L), SERVER, false, 1, 0);
        transactions.start(buf, 0, request(0x33, 0x44L), SERVER, false, 2, 0);
        assertEquals(2, transactions.activeCount());
        assertEquals(500, transactions.nextDeadlineMs());

        final StunMessageFlyweight response = new StunMessageFlyweight();
        final byte[] out = new byte[100];
        int length = writer.wrap(out, 0, out.length)
            .header(StunMessageType.BINDING_SUCCESS_RESPONSE, 0x33, 0x45L).length();
        assertFalse(transactions.onResponse(response, response.wrap(out, 0, length)), "wrong id");
        length = writer.wrap(out, 0, out.length)
            .header(StunMessageType.BINDING_ERROR_RESPONSE, 0x33, 0x44L).addErrorCode(401, "Unauthenticated").length();
        assertTrue(transactions.onResponse(response, response.wrap(out, 0, length)));
        assertFalse(transactions.onResponse(response, response.wrap(out, 0, length)), "already completed");
        assertEquals(List.of("response 2 3"), events);
        assertEquals(1, transactions.activeCount());

        length = writer.wrap(out, 0, out.length).header(StunMessageType.BINDING_REQUEST, 0x11, 0x22L).length();
        assertFalse(transactions.onResponse(response, response.wrap(out, 0, length)), "a request is no response");
    }

    @Test
    void shouldRefuseWhenFullOrNotARequest()
    {
        final StunClientTransactions transactions =
            new StunClientTransactions(transport, listener, 1, 548, 500, 7, 16, 39_500);
        assertEquals(0, transactions.start(buf, 0, request(1, 1L), SERVER, false, 1, 0));
        assertEquals(StunClientTransactions.FULL, transactions.start(buf, 0, request(2, 2L), SERVER, false, 2, 0));
        final int length = writer.wrap(buf, 0, buf.length)
            .header(StunMessageType.BINDING_INDICATION, 3, 3L).length();
        assertEquals(StunClientTransactions.INVALID, transactions.start(buf, 0, length, SERVER, false, 3, 0));
        assertTrue(transactions.cancel(0));
        assertEquals(0, transactions.activeCount());
    }

    private int request(final int high, final long low)
    {
        return writer.wrap(buf, 0, buf.length).header(StunMessageType.BINDING_REQUEST, high, low).length();
    }
}
