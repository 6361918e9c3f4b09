package io.sipline.bench.machine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * A process started through {@link CpuConfinement#wrap} runs in the quota's cgroup on CPU 0, the cgroup has the
 * asked quota, and it is gone after close. Runs where the machine allows it (root, a writable cpu controller, two
 * CPUs); elsewhere the test is skipped with what {@link CpuConfinement#create} said was missing.
 */
class CpuConfinementTest
{
    @Test
    void shouldRunTheWrappedCommandInTheGroupOnCpuZero() throws Exception
    {
        final CpuConfinement cpu = confinement(40);
        final Path group;
        try (cpu)
        {
            final Process p = new ProcessBuilder(cpu.wrap(List.of("/bin/sh", "-c",
                "cat /proc/self/cgroup; grep Cpus_allowed_list /proc/self/status"))).redirectErrorStream(true).start();
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(10, TimeUnit.SECONDS), out);
            assertEquals(0, p.exitValue(), out);
            final String name = "sipline-bench-" + ProcessHandle.current().pid();
            assertTrue(out.contains("/" + name), out);
            assertTrue(out.matches("(?s).*Cpus_allowed_list:\\s+0\\s.*"), out);
            group = Files.isDirectory(Path.of("/sys/fs/cgroup/cpu", name)) ? Path.of("/sys/fs/cgroup/cpu", name)
                : Path.of("/sys/fs/cgroup", name);
            final String quota = Files.exists(group.resolve("cpu.cfs_quota_us"))
                ? Files.readString(group.resolve("cpu.cfs_quota_us")).strip()
                : Files.readString(group.resolve("cpu.max")).strip().split(" ")[0];
            assertEquals(Integer.toString(CpuConfinement.quotaUs(40)), quota);
            assertTrue(cpu.describe().startsWith("server confined to 40% of CPU 0"), cpu.describe());
        }
        assertFalse(Files.exists(group), group + " left behind");
    }

    @Test
    void shouldLengthenThePeriodWhereTheQuotaWouldBeBelowTheKernelsLeast()
    {
        assertEquals(2000, CpuConfinement.periodUs(50));
        assertEquals(1000, CpuConfinement.quotaUs(50));
        assertEquals(2000, CpuConfinement.periodUs(80));
        assertEquals(1600, CpuConfinement.quotaUs(80));
        assertEquals(4000, CpuConfinement.periodUs(25));
        assertEquals(1000, CpuConfinement.quotaUs(25));
        assertEquals(3334, CpuConfinement.periodUs(30));
        assertTrue(CpuConfinement.quotaUs(30) >= 1000);
    }

    @Test
    void shouldRefuseAShareOutsideOneToAHundred()
    {
        assertThrows(IllegalArgumentException.class, () -> CpuConfinement.create(0));
        assertThrows(IllegalArgumentException.class, () -> CpuConfinement.create(101));
    }

    private static CpuConfinement confinement(final int percent)
    {
        try
        {
            return CpuConfinement.create(percent);
        }
        catch (final IOException ex)
        {
            assumeTrue(false, ex.getMessage());
            throw new AssertionError(ex);
        }
    }
}
