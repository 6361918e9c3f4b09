package io.sipline.bench.calls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

import picocli.CommandLine.Option;

/**
 * The options every bench command shares, as a picocli mixin: where the repository is ({@code --root}) and where the
 * results go ({@code --out}), and the {@link SystemUnderTest.Layout} made from them and the harness's own JDK and
 * class path.
 *
 * <p>Not threadsafe; filled by picocli and read by the command's thread.
 */
public final class HarnessOptions
{
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

    @Option(names = "--out", paramLabel = "DIR",
        description = "result directory (default bench-results/<command>-<yyyyMMdd-HHmmss>)")
    Path out;

    @Option(names = "--root", paramLabel = "DIR",
        description = "repository root (default: -Dsipline.root or the working directory)")
    Path root;

    /** @return the repository root: {@code --root}, else {@code -Dsipline.root}, else the working directory. */
    public Path home()
    {
        return (null != root ? root : Path.of(System.getProperty("sipline.root", "."))).toAbsolutePath().normalize();
    }

    /** @return the repository, the JDK running the harness and its class path. */
    public SystemUnderTest.Layout layout()
    {
        return new SystemUnderTest.Layout(home(), Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            System.getProperty("java.class.path"));
    }

    /**
     * Creates the result directory.
     *
     * @param prefix the command's name before the time stamp, e.g. {@code "soak-"}; empty for {@code bench calls}.
     * @return {@code --out}, else {@code bench-results/<prefix><yyyyMMdd-HHmmss>} under the root; absolute, created.
     * @throws IOException when it cannot be created.
     */
    public Path resultDir(final String prefix) throws IOException
    {
        final Path dir = (null != out ? out
            : home().resolve("bench-results").resolve(prefix + LocalDateTime.now().format(STAMP))).toAbsolutePath();
        Files.createDirectories(dir);
        return dir;
    }
}
