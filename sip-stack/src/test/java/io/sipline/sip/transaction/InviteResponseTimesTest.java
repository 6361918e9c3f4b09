package io.sipline.sip.transaction;

import static io.sipline.sip.transaction.TransactionHarness.outgoing;
import static io.sipline.sip.transaction.TransactionHarness.request;
import static io.sipline.sip.transaction.TransactionHarness.response;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.sipline.sip.transport.RealtimeClock;
import io.sipline.test.AllocationMeter;

/**
 * The INVITE server transaction times its first 180 and its first final response against the INVITE's arrival, once
 * each, into the layer's histograms, on an injected wall clock: the right bucket gets one count, a retransmission gets
 * none, and an unknown arrival time (0) is counted as untimed, never as a time. The INVITE client transaction times
 * the arrival of its first 180 and of its final response against the moment the transport took its INVITE (the far
 * end's part, as the server sees it), the same way.
 */
class InviteResponseTimesTest
{
    private static final String BRANCH = "z9hG4bKtimes1";
    private static final String INVITE = request("INVITE", BRANCH);
    /** 2026-11-23T00:00:00Z in ns: a wall-clock arrival time as the kernel gives it. */
    private static final long ARRIVAL = 1_795_392_000_000_000_000L;
    private static final long US = 1_000L;

    /** The wall clock the layer reads; the test sets it. */
    private final long[] wall = {ARRIVAL};
    private int wallReads;

    private TransactionHarness harness()
    {
        return new TransactionHarness(new TransactionConfig().realtimeClock(() ->
        {
            wallReads++;
            return wall[0];
        }));
    }

    private static ResponseTimeHistogram times(final TransactionHarness h, final InviteResponse kind)
    {
        return h.layer.inviteResponseTimes(kind);
    }

    /** The counts expected: one in the bucket of {@code ns}, none elsewhere. */
    private static long[] oneAt(final long ns)
    {
        final long[] c = new long[ResponseTimeHistogram.BUCKETS];
        c[ResponseTimeHistogram.bucketOf(ns)] = 1;
        return c;
    }

    @Test
    void shouldTimeTheFirst180AndThe2xxOnceEachAndNotTheirRetransmissions()
    {
        final TransactionHarness h = harness();
        h.receiveAt(INVITE, ARRIVAL);
        final ServerTransaction tx = h.lastServer;
        assertEquals(0, times(h, InviteResponse.RINGING).count(), "100 Trying is not timed");

        wall[0] = ARRIVAL + 1_180 * US;
        h.respond(tx, 180);
        final ResponseTimeHistogram ringing = times(h, InviteResponse.RINGING);
        assertEquals(1_200 * US, ResponseTimeHistogram.upperBoundNs(ResponseTimeHistogram.bucketOf(1_180 * US)));
        assertArrayEquals(oneAt(1_180 * US), ringing.bucketCounts());
        assertEquals(1, ringing.bucketCount(23), "le 1.2 ms");
        assertEquals(1_180 * US, ringing.sumNs());
        assertEquals(1_180 * US, ringing.maxNs());

        wall[0] = ARRIVAL + 3_000 * US;
        h.receiveAt(INVITE, ARRIVAL + 2_000 * US); // retransmitted INVITE: the 180 goes again, not timed again
        assertTrue(h.lastSent().startsWith("SIP/2.0 180 "));
        h.respond(tx, 180); // a second 180 (another branch of a fork, say): only the first is timed
        assertEquals(1, ringing.count());
        assertEquals(1_180 * US, ringing.sumNs());

        wall[0] = ARRIVAL + 4_300 * US;
        h.respond(tx, 200);
        final ResponseTimeHistogram answered = times(h, InviteResponse.SUCCESS);
        assertEquals(4_500 * US, ResponseTimeHistogram.upperBoundNs(ResponseTimeHistogram.bucketOf(4_300 * US)));
        assertArrayEquals(oneAt(4_300 * US), answered.bucketCounts());
        assertEquals(4_300 * US, answered.sumNs());

        wall[0] = ARRIVAL + 500_000 * US;
        h.respond(tx, 200); // the TU's own 2xx retransmission in Accepted (RFC 3261 §13.3.1.4)
        h.receiveAt(INVITE, ARRIVAL); // absorbed in Accepted
        assertEquals(1, answered.count());
        assertEquals(4_300 * US, answered.maxNs());
        assertEquals(1, ringing.count());
        assertEquals(0, times(h, InviteResponse.FAILURE).count());
        assertEquals(0, answered.untimed() + ringing.untimed());

        h.advanceMs(40_000);
        h.assertNoLeaks();
    }

    @Test
    void shouldTimeAFailureOnceAndNotItsTimerGRetransmissions()
    {
        final TransactionHarness h = harness();
        h.receiveAt(INVITE, ARRIVAL);
        final ServerTransaction tx = h.lastServer;
        wall[0] = ARRIVAL + 25_000 * US;
        h.respond(tx, 486);
        final int sent = h.sent.size();
        h.advanceMs(500); // timer G
        h.advanceMs(1_000); // and again
        h.receiveAt(INVITE, ARRIVAL); // re-sends the 486
        assertEquals(sent + 3, h.sent.size());

        final ResponseTimeHistogram failed = times(h, InviteResponse.FAILURE);
        assertArrayEquals(oneAt(25_000 * US), failed.bucketCounts());
        assertEquals(25_000 * US, ResponseTimeHistogram.upperBoundNs(ResponseTimeHistogram.bucketOf(25_000 * US)));
        assertEquals(0, times(h, InviteResponse.SUCCESS).count());
        assertEquals(0, times(h, InviteResponse.RINGING).count());
        h.advanceMs(40_000);
        h.assertNoLeaks();
    }

    @Test
    void shouldCountAsUntimedWithoutReadingTheClockWhenTheArrivalIsUnknown()
    {
        final TransactionHarness h = harness();
        h.receiveAt(INVITE, 0);
        final ServerTransaction tx = h.lastServer;
        wall[0] = ARRIVAL + 1_000 * US;
        h.respond(tx, 180);
        h.respond(tx, 200);
        for (final InviteResponse kind : InviteResponse.values())
        {
            assertEquals(0, times(h, kind).count(), kind.label());
            assertEquals(0, times(h, kind).sumNs(), kind.label());
        }
        assertEquals(1, times(h, InviteResponse.RINGING).untimed());
        assertEquals(1, times(h, InviteResponse.SUCCESS).untimed());
        assertEquals(0, wallReads, "no clock read for a response that cannot be timed");
        h.advanceMs(40_000);
        h.assertNoLeaks();
    }

    @Test
    void shouldNotTimeAResponseTheTransportRefusedNorOneBeforeTheArrival()
    {
        final TransactionHarness h = harness();
        h.receiveAt(INVITE, ARRIVAL);
        h.failSends = true;
        wall[0] = ARRIVAL + 1_000 * US;
        h.respond(h.lastServer, 180);
        assertEquals(0, times(h, InviteResponse.RINGING).count());
        assertEquals(0, times(h, InviteResponse.RINGING).untimed());
        h.failSends = false;
        h.advanceMs(1);

        h.receiveAt(request("INVITE", "z9hG4bKtimes2"), ARRIVAL);
        wall[0] = ARRIVAL - 1_000 * US; // the wall clock was stepped back since the INVITE arrived
        h.respond(h.lastServer, 200);
        assertEquals(0, times(h, InviteResponse.SUCCESS).count());
        assertEquals(1, times(h, InviteResponse.SUCCESS).untimed());
        h.advanceMs(40_000);
        h.assertNoLeaks();
    }

    @Test
    void shouldTimeTheFarEndsFirst180AndFinalResponseOnAClientTransaction()
    {
        final TransactionHarness h = harness();
        final String branch = "z9hG4bKclient1";
        h.send(outgoing("INVITE", branch), false); // the transport takes it at ARRIVAL
        assertEquals(1, wallReads, "one clock read when the INVITE is sent");
        wall[0] = ARRIVAL + 50_000 * US; // never read again: the responses carry their own arrival times
        h.receiveAt(response(100, branch, "INVITE"), ARRIVAL + 300 * US);
        h.receiveAt(response(180, branch, "INVITE"), ARRIVAL + 1_180 * US);
        h.receiveAt(response(180, branch, "INVITE"), ARRIVAL + 2_000 * US); // a second 180: not timed again
        h.receiveAt(response(200, branch, "INVITE"), ARRIVAL + 4_300 * US);
        h.receiveAt(response(200, branch, "INVITE"), ARRIVAL + 9_000 * US); // a 2xx retransmission in Accepted
        assertEquals(1, wallReads);

        final ResponseTimeHistogram ringing = h.layer.inviteClientResponseTimes(InviteResponse.RINGING);
        assertArrayEquals(oneAt(1_180 * US), ringing.bucketCounts());
        assertEquals(1_180 * US, ringing.sumNs());
        final ResponseTimeHistogram answered = h.layer.inviteClientResponseTimes(InviteResponse.SUCCESS);
        assertArrayEquals(oneAt(4_300 * US), answered.bucketCounts());
        assertEquals(0, h.layer.inviteClientResponseTimes(InviteResponse.FAILURE).count());
        assertEquals(0, times(h, InviteResponse.RINGING).count(), "the server side's histograms are apart");

        final String second = "z9hG4bKclient2";
        wall[0] = ARRIVAL + 10_000 * US;
        h.send(outgoing("INVITE", second), false);
        h.advanceMs(500); // timer A: the INVITE again; the time still runs from the first send
        h.receiveAt(response(486, second, "INVITE"), ARRIVAL + 35_000 * US);
        assertArrayEquals(oneAt(25_000 * US), h.layer.inviteClientResponseTimes(InviteResponse.FAILURE)
            .bucketCounts());
        h.advanceMs(40_000);
        h.assertNoLeaks();
    }

    @Test
    void shouldCountAClientResponseWithoutAnArrivalTimeOrBeforeTheSendAsUntimed()
    {
        final TransactionHarness h = harness();
        h.send(outgoing("INVITE", "z9hG4bKclient3"), false);
        h.receiveAt(response(180, "z9hG4bKclient3", "INVITE"), 0); // a transport without receive times
        h.receiveAt(response(200, "z9hG4bKclient3", "INVITE"), ARRIVAL - 1_000 * US); // the wall clock stepped back
        assertEquals(0, h.layer.inviteClientResponseTimes(InviteResponse.RINGING).count());
        assertEquals(1, h.layer.inviteClientResponseTimes(InviteResponse.RINGING).untimed());
        assertEquals(0, h.layer.inviteClientResponseTimes(InviteResponse.SUCCESS).count());
        assertEquals(1, h.layer.inviteClientResponseTimes(InviteResponse.SUCCESS).untimed());
        h.advanceMs(40_000);
        h.assertNoLeaks();
    }

    @Test
    void shouldPutEachTimeInTheFirstBucketWhoseUpperBoundHoldsIt()
    {
        final double[] le = ResponseTimeHistogram.upperBoundsSeconds();
        assertEquals(ResponseTimeHistogram.BUCKETS, le.length);
        assertEquals(Double.POSITIVE_INFINITY, le[le.length - 1]);
        assertEquals(0.00005, le[0], 1e-12);
        assertEquals(0.002, le[39], 1e-12);
        assertEquals(0.00225, le[40], 1e-12);
        assertEquals(0.010, le[71], 1e-12);
        assertEquals(0.0125, le[72], 1e-12);
        assertEquals(0.020, le[75], 1e-12);
        assertEquals(0.050, le[79], 1e-12);
        assertEquals(10.0, le[86], 1e-12);
        for (int i = 0; i < ResponseTimeHistogram.BUCKETS - 1; i++)
        {
            final long bound = ResponseTimeHistogram.upperBoundNs(i);
            assertTrue(i == 0 || bound > ResponseTimeHistogram.upperBoundNs(i - 1));
            assertEquals(i, ResponseTimeHistogram.bucketOf(bound), "on the bound " + bound);
            assertEquals(i + 1, ResponseTimeHistogram.bucketOf(bound + 1), "just past the bound " + bound);
        }
        assertEquals(0, ResponseTimeHistogram.bucketOf(0));
        assertEquals(ResponseTimeHistogram.BUCKETS - 1, ResponseTimeHistogram.bucketOf(Long.MAX_VALUE));
    }

    @Test
    void shouldNotAllocateToTimeAResponseOnTheRealWallClock()
    {
        final TransactionHarness h = new TransactionHarness(); // the default clock: RealtimeClock::nanos
        final TransactionLayer layer = h.layer;
        final long arrival = RealtimeClock.nanos();
        final int times = 200_000;
        final long allocated = AllocationMeter.leastBytes(
            () -> record(layer, arrival, times), () -> record(layer, arrival, times), 5, 255);
        final ResponseTimeHistogram answered = times(h, InviteResponse.SUCCESS);
        assertTrue(answered.count() >= 2L * times, "recorded: " + answered.count());
        assertTrue(answered.maxNs() > 0);
        assertTrue(allocated < 256, "bytes allocated over " + times + " records: " + allocated);
    }

    private static void record(final TransactionLayer layer, final long arrival, final int times)
    {
        for (int i = 0; i < times; i++)
        {
            layer.recordInviteResponse(InviteResponse.SUCCESS, arrival);
        }
    }
}
