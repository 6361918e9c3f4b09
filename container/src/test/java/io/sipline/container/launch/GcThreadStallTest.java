package io.sipline.container.launch;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sipline.container.os.GcThreadScheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The safety of {@code -Dsipline.gc.threads=idle} with a real ZGC that cannot keep up: a child JVM with a 64 MiB heap
 * and allocators on every core ({@link StallProbe}) gets an allocation stall, and the cycle that stall starts puts
 * the GC threads back under the normal policy, with one line that says so; the GC log has the stall. Linux only.
 */
class GcThreadStallTest
{
    private static final long CHILD_TIMEOUT_SECONDS = 120;

    @Test
    void shouldPutTheGcThreadsBackUnderTheNormalPolicyAfterAnAllocationStall(@TempDir final Path dir)
        throws IOException, InterruptedException, URISyntaxException
    {
        assumeTrue(System.getProperty("os.name", "").toLowerCase().startsWith("linux"));
        final Path output = dir.resolve("child-output.txt");
        final Path gcLog = dir.resolve("gc.log");
        final ProcessBuilder builder = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--enable-native-access=ALL-UNNAMED",
            "-XX:+UseZGC", "-Xms64m", "-Xmx64m", "-Dsipline.gc.threads=idle",
            "-Xlog:gc:file=" + gcLog,
            "-cp", codeSource(StallProbe.class) + File.pathSeparator + codeSource(GcThreadScheduling.class),
            StallProbe.class.getName())
            .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(output.toFile());
        for (final String variable : List.of("JDK_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS"))
        {
            builder.environment().remove(variable);
        }

        final Process child = builder.start();
        if (!child.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS))
        {
            child.destroyForcibly();
            child.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            fail("the probe did not end within " + CHILD_TIMEOUT_SECONDS + " s:\n" + Files.readString(output));
        }

        final String said = Files.readString(output);
        assertEquals(0, child.exitValue(), said);
        assertTrue(said.contains("run under SCHED_IDLE (-Dsipline.gc.threads=idle)"), said);
        assertTrue(said.contains(StallProbe.BACK + "\n"), said);
        assertTrue(said.contains("sipline: an allocation stall started a GC cycle: the GC threads go back to the "
            + "normal scheduling policy"), said);
        assertTrue(Files.readString(gcLog).contains("(Allocation Stall)"), "the GC log names no stalled cycle");
    }

    private static Path codeSource(final Class<?> type) throws URISyntaxException
    {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
