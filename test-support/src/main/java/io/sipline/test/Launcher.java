package io.sipline.test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code bin/sipline} as a process from a test, with the test's own JDK and class path: {@code JAVA_HOME} is
 * the running JVM's home and {@code SIPLINE_CLASSPATH} its class path, so the launcher builds nothing and runs the
 * classes the test was compiled against. For the launcher's cheap commands ({@code --help}); not for the server.
 *
 * <p>Threading: each call blocks its caller until the process ends (at most {@link #TIMEOUT_SECONDS}).
 */
public final class Launcher
{
    /** The bound on one launcher run. */
    public static final long TIMEOUT_SECONDS = 60;

    /**
     * What one run printed.
     *
     * @param exitCode the launcher's exit code.
     * @param output   its standard output and error, merged.
     */
    public record Run(int exitCode, String output)
    {
    }

    private Launcher()
    {
    }

    /** The repository root: the {@code sipline.root} system property that surefire sets, else the parent folder. */
    public static Path root()
    {
        return Path.of(System.getProperty("sipline.root", "..")).toAbsolutePath().normalize();
    }

    /** True when {@code bin/sipline} and {@code bash} are there to run (a Linux checkout). */
    public static boolean available()
    {
        return Files.isExecutable(root().resolve("bin/sipline")) && Files.isExecutable(Path.of("/bin/bash"));
    }

    /**
     * Runs {@code bin/sipline ARGS} and waits for it.
     *
     * @param args the launcher's arguments, e.g. {@code run --help}.
     * @return its exit code and output.
     */
    public static Run run(final String... args) throws IOException, InterruptedException
    {
        final List<String> cmd = new ArrayList<>();
        cmd.add(root().resolve("bin/sipline").toString());
        cmd.addAll(List.of(args));
        final Path output = Files.createTempFile("sipline-launcher", ".txt");
        try
        {
            final ProcessBuilder builder = new ProcessBuilder(cmd).directory(root().toFile())
                .redirectErrorStream(true).redirectOutput(output.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
            builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
            builder.environment().put("SIPLINE_CLASSPATH", System.getProperty("java.class.path"));
            final Process process = builder.start();
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                throw new IllegalStateException("bin/sipline " + String.join(" ", args) + " did not end in "
                    + TIMEOUT_SECONDS + " s");
            }
            return new Run(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        }
        finally
        {
            Files.deleteIfExists(output);
        }
    }
}
