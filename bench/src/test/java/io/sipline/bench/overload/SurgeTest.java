package io.sipline.bench.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The overload run's verdicts, sipp's files read on the surge's clock, the 503 branch of the caller's scenario. */
class SurgeTest
{
    private static Surge.Second s(final int second, final long offered, final long completed, final long refused,
        final long retrans)
    {
        return new Surge.Second(second, offered, completed, refused, retrans, 0, 0, 0);
    }

    @Test
    void shouldJudgeGoodputThroughTheSurgeAndCountTheSecondsToRecover()
    {
        final Surge.Population all = new Surge.Population(100, 100, 40, 60, 100, 0);
        final Surge held = new Surge("x", 1000, 2, 500, 3, List.of(s(-3, 560, 120, 0, 0), s(-2, 550, 440, 0, 0),
            s(-1, 500, 500, 0, 0), s(0, 2000, 950, 1000, 0),
            s(1, 2000, 910, 1090, 3), s(2, 2000, 900, 1100, 0), s(3, 500, 700, 10, 0), s(4, 500, 500, 0, 2),
            s(5, 500, 480, 0, 0), s(6, 500, 500, 0, 0), s(7, 100, 10, 0, 0)), all, 0, 3190, 0, 0);
        assertTrue(held.goodputHeld());
        assertEquals(0.9, held.minGoodputShare(), 1e-9);
        assertEquals(0.88, held.steadyShareBefore(), 1e-9, "the first second before the surge aside");
        final String md = OverloadReport.markdown("bench overload", "typical-b2bua", "zgc", 1000, 0, null,
            List.of(held));
        assertTrue(md.contains("| x | 2,000 | 920 | 90% | 88% | yes | 3200 |"), md);
        assertTrue(OverloadReport.json("typical-b2bua", "zgc", 1000, 0, List.of(held))
            .contains("\"steadyRate\": 500, \"steadyShareBefore\": 0.880"));
        assertEquals(2, held.recoverySeconds(), "second 5 is the first from which every full second is normal");
        assertEquals(3200, held.refused());
        assertEquals(2000, held.offeredInSurge(), 1e-9);
        assertTrue(all.allAnswered());

        final Surge collapsed = new Surge("y", 1000, 2, 500, 3, List.of(s(0, 2000, 950, 0, 0),
            s(1, 2000, 400, 0, 900), s(2, 2000, 300, 0, 1200), s(3, 500, 200, 0, 800), s(4, 500, 300, 0, 5)), all,
            0, 0, 0, 0);
        assertFalse(collapsed.goodputHeld());
        assertEquals(-1, collapsed.recoverySeconds(), "no normal full second after the surge");
        assertEquals(0, collapsed.steadyShareBefore(), "no second measured before the surge");
        assertFalse(new Surge.Population(100, 100, 40, 60, 99, 1).allAnswered(), "one BYE unanswered");
        assertFalse(new Surge.Population(100, 100, 40, 60, 99, 1).establishedAnswered(), "one BYE unanswered");
        final Surge.Population refusedAtSetUp = new Surge.Population(1000, 997, 503, 494, 997, 0);
        assertFalse(refusedAtSetUp.allAnswered(), "3 calls were refused before they were established");
        assertTrue(refusedAtSetUp.establishedAnswered(), "every established call's BYE was answered");
        assertFalse(new Surge("z", 1000, 2, 500, 3, List.of(s(0, 2000, 950, 0, 0)), all, 0, 0, 0, 0).goodputHeld(),
            "a surge second not measured is not held");
    }

    @Test
    void shouldJudgeARegistrationStormByTheSteadyCallsItLeaves()
    {
        final Surge.Population all = new Surge.Population(100, 100, 40, 60, 100, 0);
        final List<Surge.Second> seconds = List.of(s(0, 500, 480, 0, 0), s(1, 500, 500, 0, 0), s(2, 500, 470, 0, 0));
        final Surge held = new Surge("storm", 1000, 1, 500, 3, seconds, all, 0, 0, 0, 0,
            new Surge.Storm(8000, 24000, 9000, 15000, 0, 12, 0.94));
        assertTrue(held.goodputHeld(), "judged by the steady calls, not by the maximum (least 47% of it)");
        final Surge starved = new Surge("storm", 1000, 1, 500, 3, seconds, all, 0, 0, 0, 0,
            new Surge.Storm(8000, 24000, 24000, 0, 0, 900, 0.41));
        assertFalse(starved.goodputHeld());
        assertFalse(new Surge("storm", 1000, 1, 500, 4, seconds, all, 0, 0, 0, 0, held.storm()).goodputHeld(),
            "a storm second not measured is not held");
        final String md = OverloadReport.markdown("bench overload --register-storm 8000", "typical-b2bua", "zgc", 1000,
            0, "server confined to 50% of CPU 0", List.of(held));
        assertTrue(md.contains("; server confined to 50% of CPU 0."), md);
        assertTrue(md.contains("| 8000 | 24000 | 9000 | 15000 | 0 | 12 | 94% | yes |"), md);
        assertTrue(OverloadReport.json("typical-b2bua", "zgc", 1000, 0, List.of(held))
            .contains("\"storm\": {\"rate\": 8000, \"sent\": 24000, \"registered\": 9000"));
    }

    @Test
    void shouldWriteTheStormsUsersAndItsScenarioThatTakesA503WithRetryAfter(@TempDir final Path dir)
        throws IOException
    {
        final StormScenario storm = StormScenario.write(dir, 3);
        assertEquals(List.of("SEQUENTIAL", "storm0;3600", "storm1;3600", "storm2;3600"),
            Files.readAllLines(storm.users()));
        final String xml = Files.readString(storm.scenario());
        assertTrue(xml.contains("<recv response=\"200\" optional=\"true\" next=\"registered\"/>"), xml);
        assertTrue(xml.contains("header=\"Retry-After:\" check_it=\"true\""), xml);
        assertTrue(xml.contains("REGISTER sip:[remote_ip]:[remote_port] SIP/2.0") && xml.contains("To: <sip:[field0]@"),
            "each REGISTER from the next user");
    }

    @Test
    void shouldSpreadWhatEachLineAddedOverTheSecondsOfASharedClock(@TempDir final Path dir) throws IOException
    {
        final String head = "CurrentTime;ElapsedTime;0_INVITE_Sent;0_INVITE_Retrans;4_503_Recv;9_200_Recv;";
        final Path counts = Files.writeString(dir.resolve("x_123_counts.csv"), String.join("\n", head,
            "2026-11-29\t05:20:04.5\t1000.5;00:00:00:000000;0;0;0;0;",
            "2026-11-29\t05:20:05.5\t1001.5;00:00:01:000000;100;1;20;70;",
            "2026-11-29\t05:20:06.5\t1002.5;00:00:02:000000;300;1;50;200;",
            "2026-11-29\t05:20:06.9\t1002.9;00:00:02:400000;320;2;50;230;") + "\n");
        assertEquals(counts, SippCsv.countsFile(dir));
        final SippCsv csv = SippCsv.read(counts);
        assertEquals(1000.5, csv.startTime(), 1e-9);
        assertEquals(Map.of(0, 100L, 1, 200L, 2, 20L), csv.perSecond(List.of("0_INVITE_Sent"), 1000.2),
            "the middle of each pair of lines picks the second");
        assertEquals(Map.of(-1, 20L, 0, 30L, 1, 0L), csv.perSecond(List.of("4_503_Recv"), 1001.2));
        assertEquals(230 + 2, csv.last(List.of("9_200_Recv", "0_INVITE_Retrans")));
        assertEquals("4_503_Recv", csv.column(n -> n.endsWith("_503_Recv")));
        assertTrue(SippCsv.read(dir.resolve("missing.csv")).isEmpty());
    }

    @Test
    void shouldTakeA503WithRetryAfterAndAckItInTheBuiltInCaller()
    {
        final String uac = "<scenario name=\"Basic Sipstone UAC\">\n  <send retrans=\"500\">INVITE</send>\n  "
            + SurgeScenario.LAST_PROVISIONAL + "\n  <recv response=\"200\" rtd=\"true\">\n  </recv>\n  <send>BYE"
            + "</send>\n  " + SurgeScenario.BYE_ANSWERED + "\n</scenario>\n";
        final String derived = SurgeScenario.derive(uac);
        assertTrue(derived.indexOf("<recv response=\"503\" optional=\"true\" next=\"refused\">")
            > derived.indexOf(SurgeScenario.LAST_PROVISIONAL), derived);
        assertTrue(derived.contains("header=\"Retry-After:\" check_it=\"true\""), derived);
        assertTrue(derived.indexOf("<label id=\"refused\"/>") > derived.indexOf(SurgeScenario.BYE_ANSWERED));
        assertTrue(derived.contains("CSeq: 1 ACK") && derived.contains("[last_Via:]"), "RFC 3261 17.1.1.3 ACK");
        assertTrue(derived.indexOf("<nop next=\"ended\"/>") < derived.indexOf("<label id=\"refused\"/>"),
            "a completed call skips the refused calls' ACK");
        assertThrows(IllegalStateException.class, () -> SurgeScenario.derive("<scenario/>"));
    }

    @Test
    void shouldRefuseOptionsOutOfRange(@TempDir final Path out)
    {
        for (final String[] bad : new String[][] {{"--app", "proxy"}, {"--multipliers", "0"}, {"--surge", "1"},
            {"--overload-waits", "20000"}, {"--steady-share", "1.5"}, {"--max-rate", "0"}, {"--register-storm", "-1"},
            {"--storm-users", "0"}, {"--register-rates", "many"}})
        {
            final StringWriter err = new StringWriter();
            final int exit = new CommandLine(new OverloadBench()).setErr(new PrintWriter(err))
                .execute(bad[0], bad[1], "--out", out.toString());
            assertEquals(2, exit, String.join(" ", bad));
            assertTrue(err.toString().contains(bad[0].equals("--app") ? "not a B2BUA example" : "--"), err.toString());
        }
    }
}
