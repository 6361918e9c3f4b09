package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import javax.servlet.ServletException;
import javax.servlet.sip.SipServlet;
import javax.servlet.sip.SipServletRequest;

import org.junit.jupiter.api.Test;

import io.sipline.container.router.DefaultApplicationRouter;
import io.sipline.sip.stack.SipStackConfig;

/**
 * The container's own 2xx retransmission (RFC 3261 §13.3.1.4) waits for an ACK that arrived while the shard was
 * stalled: the servlet answers 200 and then holds the shard past T1 until the peer has sent its ACK; after the stall
 * the ACK is read before the retransmission is decided (the shard's timers wait for its reads after a stall, and a
 * retransmission due within what is being read is put off, {@code StackShard.inputLagNs}), so the 200 goes out once.
 * Without the put-off the shard re-sent the 200 to a caller that had already ACKed it.
 *
 * <p>Deterministic: the stall ends only after the ACK was sent and 1.5*T1 passed; an OPTIONS answered after the ACK
 * comes behind any retransmission the shard could have sent, so counting the 200s after it misses none.
 */
class DeferredRetransmissionDispatchTest
{
    private static final long T1_NS = TimeUnit.MILLISECONDS.toNanos(100);

    /** Answers INVITE 200 and then stalls the shard until {@link #acked} (at most 5 s) and 1.5*T1; records ACKs. */
    public static final class StallingUas extends SipServlet
    {
        private static final long serialVersionUID = 1L;

        final transient Queue<String> seen = new ConcurrentLinkedQueue<>();
        final transient CountDownLatch acked = new CountDownLatch(1);

        @Override
        protected void doInvite(final SipServletRequest req) throws ServletException, IOException
        {
            req.createResponse(200).send();
            final long until = System.nanoTime() + T1_NS + T1_NS / 2;
            try
            {
                acked.await(5, TimeUnit.SECONDS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime())
            {
                LockSupport.parkNanos(left);
            }
        }

        @Override
        protected void doAck(final SipServletRequest ack)
        {
            seen.add("ACK");
        }

        @Override
        protected void doOptions(final SipServletRequest req) throws ServletException, IOException
        {
            req.createResponse(200).send();
        }
    }

    @Test
    void shouldReadTheAckThatArrivedDuringAStallInsteadOfRetransmittingThe2xx() throws Exception
    {
        final StallingUas uas = new StallingUas();
        final DefaultApplicationRouter router = new DefaultApplicationRouter();
        router.init();
        try (ContainerServer server = ContainerServer.start(new SipStackConfig().addresses(List.of(TestApps.LOOPBACK))
            .ports(0).shards(2).t1Ns(T1_NS), router);
            SipPeer peer = new SipPeer(DispatchSippTest.address(server)))
        {
            server.registry().onDeployed(TestApps.application("uas", uas, Map.of()));
            peer.send(TestApps.request("INVITE", "stall-1"));
            final String ok = peer.await(SipPeer.response(200, "INVITE"), "the 2xx");
            peer.send(SipPeer.inDialog("ACK", "stall-1", SipPeer.header(ok, "To"), 1, "stall-1-ACK1", ""));
            uas.acked.countDown();
            assertTrue(TestApps.await(() -> uas.seen.contains("ACK")), "the servlet got the ACK");

            peer.send(TestApps.request("OPTIONS", "after-stall-1"));
            peer.await(SipPeer.response(200, "OPTIONS"), "the OPTIONS's 200, behind any retransmission");
            assertEquals(1, peer.received().stream().filter(SipPeer.response(200, "INVITE")).count(),
                "the 200 to INVITE went out once: " + peer.firstLines());
        }
    }
}
