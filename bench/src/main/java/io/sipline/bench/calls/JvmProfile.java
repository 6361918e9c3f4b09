package io.sipline.bench.calls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * One GC profile of {@code jvm-profiles/NAME.args} read the way {@code bin/sipline run} reads it: comments and blank
 * lines dropped, and the one {@code -Xlog:...file=...} option pointed at a log file of the caller's choosing. Used to
 * start the JAIN-SIP baseline's JVM with exactly the flags Sipline runs with. Immutable; any thread.
 */
public record JvmProfile(String name, List<String> options)
{
    /** The profiles the load runs use: every {@code *.args} but {@code epsilon}, which never collects. */
    public static List<String> serverProfiles(final Path profilesDir) throws IOException
    {
        try (Stream<Path> files = Files.list(profilesDir))
        {
            return files.map(p -> p.getFileName().toString())
                .filter(n -> n.endsWith(".args"))
                .map(n -> n.substring(0, n.length() - ".args".length()))
                .filter(n -> !"epsilon".equals(n))
                .sorted()
                .toList();
        }
    }

    /**
     * Reads {@code profilesDir/name.args} and rewrites its {@code file=} target to {@code gcLog}.
     *
     * @throws IllegalArgumentException naming the profiles there when {@code name} is not one of them.
     */
    public static JvmProfile load(final Path profilesDir, final String name, final Path gcLog) throws IOException
    {
        final Path file = profilesDir.resolve(name + ".args");
        if (!Files.isRegularFile(file))
        {
            throw new IllegalArgumentException("unknown profile '" + name + "'; choose one of: "
                + String.join(" ", serverProfiles(profilesDir)) + " epsilon");
        }
        final List<String> options = new ArrayList<>();
        for (final String raw : Files.readAllLines(file))
        {
            final int hash = raw.indexOf('#');
            final String line = (hash >= 0 ? raw.substring(0, hash) : raw).strip();
            if (line.isEmpty())
            {
                continue;
            }
            options.add(line.startsWith("-Xlog:") && line.contains("file=") ?
                line.replaceFirst("file=[^:]*", "file=" + gcLog) : line);
        }
        return new JvmProfile(name, List.copyOf(options));
    }
}
