package io.sipline.bench.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** sipp's once-a-second statistics read into what each second of a step did, both ends' retransmissions together. */
class SippSecondsTest
{
    private static final String HEAD = "StartTime;CurrentTime;OutgoingCall(P);OutgoingCall(C);SuccessfulCall(C);"
        + "FailedCall(C);Retransmissions(P);Retransmissions(C)";

    private static String line(final double epoch, final long out, final long ok, final long failed,
        final long retrans)
    {
        return "2026-11-29\t02:53:13.202547\t1795920793.202547;2026-11-29\t02:53:14.000000\t" + epoch + ";0;" + out
            + ";" + ok + ";" + failed + ";0;" + retrans;
    }

    @Test
    void shouldCountWhatEachSecondAddedAndPutTheFarEndsRetransmissionsInTheCallersSecond(@TempDir final Path dir)
        throws IOException
    {
        final Path uac = Files.writeString(dir.resolve("uac.csv"), String.join("\n", HEAD,
            line(1000.0, 0, 0, 0, 0), line(1001.0, 200, 150, 0, 3), line(1002.0, 400, 340, 0, 10),
            line(1003.0, 600, 540, 5, 10), line(1003.4, 600, 595, 5, 10)) + "\n");
        // the far end started 0.3 s before the caller; its line at 1001.7 falls in the caller's second 1
        final Path uas = Files.writeString(dir.resolve("uas.csv"), String.join("\n", HEAD,
            line(999.7, 0, 0, 0, 0), line(1000.7, 0, 0, 0, 1), line(1001.7, 0, 0, 0, 8),
            line(1002.7, 0, 0, 0, 8)) + "\n");

        final List<SippSeconds.Second> seconds = SippSeconds.read(uac, uas);
        assertEquals(List.of(new SippSeconds.Second(0, 200, 150, 0, 4), new SippSeconds.Second(1, 200, 190, 0, 14),
            new SippSeconds.Second(2, 200, 200, 5, 0), new SippSeconds.Second(3, 0, 55, 0, 0)), seconds);
        assertEquals(1, SippSeconds.firstSecondAtLeast(seconds, 160), "second 0 fell short; the partial last one "
            + "does not count");
        assertEquals(-1, SippSeconds.firstSecondAtLeast(seconds, 201));
        assertEquals(List.of(new SippSeconds.Second(0, 200, 150, 0, 3), new SippSeconds.Second(1, 200, 190, 0, 7),
            new SippSeconds.Second(2, 200, 200, 5, 0), new SippSeconds.Second(3, 0, 55, 0, 0)),
            SippSeconds.read(uac, dir.resolve("missing.csv")), "no far end: the caller's retransmissions alone");
        assertEquals(List.of(), SippSeconds.read(dir.resolve("missing.csv"), uas));
    }
}
