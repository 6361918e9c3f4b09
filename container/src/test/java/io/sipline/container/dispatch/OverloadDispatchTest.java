package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.Test;

import io.sipline.sip.message.SipMethod;
import io.sipline.sip.transaction.StatelessShedding;
import io.sipline.sip.transaction.TransactionLayer;
import io.sipline.sip.transport.RealtimeClock;

/**
 * Overload control ({@code --overload-wait}, {@code SipStackConfig#overloadWaitNs}, {@link OverloadControl}): once the
 * requests' waits since the kernel received them have kept coming above the limit for an interval, a new request is
 * refused with 503 and Retry-After (RFC 3261 §21.5.4) by the stack before a transaction exists, and no application
 * sees it; its retransmission gets the same 503 and its ACK is absorbed; requests within a dialog are served whatever
 * the wait. The waits are made certain by the clock the container reads: one the test holds still an hour ahead of
 * the kernel's receive times and moves by fifths of the interval (every request has waited an hour
 * against a limit of 100 ms), or the real one against a limit of 10 s (none has).
 */
class OverloadDispatchTest
{
    @Test
    void shouldRefuseNewRequestsThatWaitedTooLongWith503AndServeDialogs() throws Exception
    {
        final RecordingUas uas = new RecordingUas();
        final AtomicLong clock = new AtomicLong(RealtimeClock.nanos() + TimeUnit.HOURS.toNanos(1));
        final LongSupplier anHourLater = clock::get;
        final long interval = TimeUnit.SECONDS.toNanos(1);
        // One shard: each shard judges its own waits, and every request here must reach the same one
        try (ContainerServer server = TestApps.server(TestApps.config().shards(1).overloadWaitNs(100_000_000L)
            .overloadIntervalNs(interval), anHourLater);
            SipPeer caller = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("uas", uas, Map.of()));
            // One request that waited an hour is not yet overload: it starts the interval, and is served
            caller.send(TestApps.request("OPTIONS", "overload-first"));
            caller.await(SipPeer.response(200, "OPTIONS"), "200 to the first OPTIONS, however long it waited");
            // Requests that waited an hour keep coming, a fifth of the interval apart: still no overload
            for (int i = 1; i < 5; i++)
            {
                clock.addAndGet(interval / 5);
                caller.send(TestApps.request("OPTIONS", "overload-next-" + i));
                caller.await(SipPeer.response(200, "OPTIONS"), "200 to OPTIONS " + i + " within the interval");
            }
            assertEquals(0, server.counters().overloaded.get());
            clock.addAndGet(interval / 5); // long waits have now kept coming for the whole interval
            final TransactionLayer layer = server.stack().shard(0).transactions();
            final long acquires = layer.poolAcquires();
            final String invite = TestApps.request("INVITE", "overload-invite");
            caller.send(invite);
            final String refused = caller.await(SipPeer.response(503, "INVITE"), "503 to the INVITE");
            assertTrue(refused.startsWith("SIP/2.0 503 Service Unavailable (overloaded)\r\n"), refused);
            assertEquals("1", SipPeer.header(refused, "Retry-After"));
            assertTrue(SipPeer.header(refused, "To").contains(";tag="), "a final response has a To tag: " + refused);

            // The INVITE's retransmission is refused again, statelessly, with the same response; its ACK is absorbed
            caller.send(invite);
            final String again = caller.await(SipPeer.response(503, "INVITE"), "the 503 again");
            assertEquals(SipPeer.header(refused, "To"), SipPeer.header(again, "To"));
            caller.send(SipPeer.inDialog("ACK", "overload-invite", SipPeer.header(refused, "To"), 1, "overload-invite",
                ""));
            final StatelessShedding shed = layer.shedding();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (0 == shed.acksAbsorbed() && System.nanoTime() < deadline)
            {
                Thread.sleep(1);
            }
            assertEquals(1, shed.acksAbsorbed(), "the ACK of the 503");
            assertEquals(1, shed.refusedAgain());
            assertEquals(acquires, layer.poolAcquires(), "no transaction for the refused INVITE");

            caller.send(TestApps.request("OPTIONS", "overload-options"));
            caller.await(SipPeer.response(503, "OPTIONS"), "503 to a new OPTIONS");

            // Within a dialog: served, however long it waited (a dialog this container does not know: 481, §12.2.2)
            caller.send(SipPeer.inDialog("BYE", "overload-bye", "<sip:service@127.0.0.1>;tag=s01003456789abcdef", 2,
                "overload-bye", ""));
            caller.await(SipPeer.response(481, "BYE"), "481 to a BYE in an unknown dialog, not 503");

            assertEquals(List.of("OPTIONS", "OPTIONS", "OPTIONS", "OPTIONS", "OPTIONS"), List.copyOf(uas.seen),
                "no application sees a refused request");
            assertEquals(2, server.counters().overloaded.get(), "the INVITE once and the OPTIONS");
            assertEquals(1, shed.refused(SipMethod.INVITE));
            assertEquals(1, shed.refused(SipMethod.OPTIONS));
            assertNull(caller.within(SipPeer.response(200, "INVITE"), 100));
        }
    }

    @Test
    void shouldRouteNewRequestsThatWaitedLessThanTheLimit() throws Exception
    {
        final RecordingUas uas = new RecordingUas();
        try (ContainerServer server = TestApps.server(TestApps.config().overloadWaitNs(10_000_000_000L));
            SipPeer caller = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("uas", uas, Map.of()));
            caller.send(TestApps.request("OPTIONS", "in-time-options"));
            caller.await(SipPeer.response(200, "OPTIONS"), "200 to the OPTIONS");
            assertEquals(List.of("OPTIONS"), List.copyOf(uas.seen));
            assertEquals(0, server.counters().overloaded.get());
        }
    }
}
