package io.sipline.container.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import javax.servlet.sip.B2buaHelper;
import javax.servlet.sip.SipSession;
import javax.servlet.sip.SipSessionEvent;
import javax.servlet.sip.SipSessionListener;
import javax.servlet.sip.UAMode;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.sipline.container.router.DefaultApplicationRouter;
import io.sipline.container.api.SipSessionImpl;
import io.sipline.sip.stack.SipStackConfig;
import io.sipline.test.Sipp;

/**
 * An established B2BUA call lets go of its set-up messages: once the INVITE transactions of both legs have ended
 * (RFC 6026 Timer L and Timer M, 64*T1 after the 2xx; T1 is 20 ms here, so 1.28 s) the two sessions hold no
 * request or response of the set-up, nothing is pending, and the BYE that sipp sends 3 s after its ACK still goes
 * through both dialogs (parties, CSeq and route from the session's own state).
 */
class SettledCallTest
{
    /** Every session the application creates, in order. */
    public static final class Sessions implements SipSessionListener
    {
        static final Queue<SipSession> CREATED = new ConcurrentLinkedQueue<>();

        @Override
        public void sessionCreated(final SipSessionEvent e)
        {
            CREATED.add(e.getSession());
        }

        @Override
        public void sessionDestroyed(final SipSessionEvent e)
        {
        }

        @Override
        public void sessionReadyToInvalidate(final SipSessionEvent e)
        {
        }
    }

    @Test
    void shouldHoldOnlyDialogStateOnceTheInviteTransactionsEnded() throws Exception
    {
        Assumptions.assumeTrue(Sipp.available(), "sipp is not installed (apt-get install sip-tester)");
        Sessions.CREATED.clear();
        final int uasPort = Sipp.freeUdpPort();
        final DefaultApplicationRouter router = new DefaultApplicationRouter();
        router.init();
        final SipStackConfig config = new SipStackConfig().addresses(List.of(TestApps.LOOPBACK)).ports(0).shards(2)
            .t1Ns(20_000_000L).t2Ns(160_000_000L);
        Process uas = null;
        Process uac = null;
        try (ContainerServer server = ContainerServer.start(config, router))
        {
            server.registry().onDeployed(TestApps.application("b2bua", new DispatchSippTest.B2bua(),
                Map.of("target", "sip:service@127.0.0.1:" + uasPort), new Sessions()));
            uas = Sipp.start("settled-uas", List.of("-sn", "uas", "-m", "1"), uasPort);
            uac = Sipp.start("settled-uac", List.of("127.0.0.1:" + DispatchSippTest.address(server).getPort(), "-sn",
                "uac", "-m", "1", "-d", "3000", "-timeout", "30s", "-timeout_error", "-l", "1"));

            assertTrue(Sipp.await(() -> 2 == Sessions.CREATED.size() && Sessions.CREATED.stream()
                .allMatch(s -> SipSession.State.CONFIRMED == s.getState()), 5_000), "both legs confirmed");
            assertTrue(Sipp.await(() -> Sessions.CREATED.stream().allMatch(s -> null == ((SipSessionImpl)s).original()),
                2_500), "both sessions let go of their INVITE within 64*T1 after the 2xx, plus slack");
            for (final SipSession s : Sessions.CREATED)
            {
                final B2buaHelper helper = ((SipSessionImpl)s).appSession().b2buaHelper();
                assertTrue(helper.getPendingMessages(s, UAMode.UAS).isEmpty());
                assertTrue(helper.getPendingMessages(s, UAMode.UAC).isEmpty());
            }

            assertTrue(uac.waitFor(30, TimeUnit.SECONDS), Sipp.report("settled-uac"));
            assertEquals(1, Sipp.successAndFailed("settled-uac")[0], Sipp.report("settled-uac"));
            assertEquals(0, Sipp.successAndFailed("settled-uac")[1], Sipp.report("settled-uac"));
            assertTrue(uas.waitFor(30, TimeUnit.SECONDS), Sipp.report("settled-uas"));
            assertEquals(1, Sipp.successAndFailed("settled-uas")[0], "the BYE reached the callee: "
                + Sipp.report("settled-uas"));
            assertTrue(Sipp.await(() -> 0 == server.applicationSessions(), 10_000),
                "application sessions left: " + server.applicationSessions());
            assertEquals(0, server.counters().servletErrors.get());
        }
        finally
        {
            Sipp.stop(uac);
            Sipp.stop(uas);
        }
    }
}
