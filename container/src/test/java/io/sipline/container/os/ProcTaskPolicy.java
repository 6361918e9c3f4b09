package io.sipline.container.os;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The kernel's own account of a thread's scheduling policy, for tests that check it independently of
 * {@link GcThreadScheduling}: field 41 ({@code policy}) of {@code /proc/<pid>/task/<tid>/stat}, counted after the
 * parenthesised command name (which may hold blanks); 0 = SCHED_OTHER, 5 = SCHED_IDLE.
 */
public final class ProcTaskPolicy
{
    private ProcTaskPolicy()
    {
    }

    /** The policy of the thread whose {@code /proc} folder is {@code task}, as the kernel writes it. */
    public static String of(final Path task) throws IOException
    {
        final String stat = Files.readString(task.resolve("stat"), StandardCharsets.UTF_8);
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ")[41 - 3];
    }
}
