package io.sipline.bench.baseline.jainsip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.sipline.test.Sipp;

/**
 * The baseline must be a working B2BUA, or the harness would compare against a broken rival: sipp's built-in
 * {@code uac} calls through it to sipp's built-in {@code uas} (INVITE, 180, 200, ACK, BYE, 200 on both legs), at a
 * low rate, and every call must succeed on both sides.
 */
class JainSipB2buaTest
{
    private static final int CALLS = 200;

    @Test
    void shouldRelayEveryCallBetweenSippUacAndUas() throws Exception
    {
        Assumptions.assumeTrue(Sipp.available(), "sipp is not installed (apt-get install sip-tester)");
        final int uasPort = Sipp.freeUdpPort();
        Process uas = null;
        Process uac = null;
        try (JainSipB2bua b2bua = new JainSipB2bua("127.0.0.1", Sipp.freeUdpPort(), "127.0.0.1", uasPort))
        {
            // The RI hands each event to its 64-thread pool (re-entrant listener, as Mobicents runs it), so two
            // messages of one call can be relayed out of order (an ACK after the BYE, a 180 after the 200): the
            // far end logs such a message instead of aborting the call; the caller's count stays strict.
            uas = Sipp.start("jainsip-uas", List.of("-sn", "uas", "-m", Integer.toString(CALLS),
                "-default_behaviors", "all,-abortunexp"), uasPort);
            final List<String> args = new ArrayList<>(List.of("-sn", "uac", "-m", Integer.toString(CALLS),
                "-r", "50", "-timeout", "60s", "-timeout_error", "127.0.0.1:" + b2bua.port()));
            uac = Sipp.start("jainsip-uac", args);
            assertTrue(uac.waitFor(60, TimeUnit.SECONDS), "sipp uac did not end\n" + Sipp.report("jainsip-uac"));
            assertEquals(0, uac.exitValue(), "sipp uac reported failed calls\n" + Sipp.report("jainsip-uac"));
            assertTrue(uas.waitFor(30, TimeUnit.SECONDS), "sipp uas did not end\n" + Sipp.report("jainsip-uas"));
            assertEquals(CALLS, Sipp.successAndFailed("jainsip-uac")[0], Sipp.report("jainsip-uac"));
            assertEquals(CALLS, Sipp.successAndFailed("jainsip-uas")[0], Sipp.report("jainsip-uas"));
            assertEquals(CALLS, b2bua.calls());
            assertEquals(0, b2bua.errors(), "exceptions in the relay");
        }
        finally
        {
            Sipp.stop(uac);
            Sipp.stop(uas);
        }
    }
}
