package io.sipline.media.service;

import org.junit.jupiter.api.Assumptions;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * libsrtp 2 as a phone's SRTP stack: {@code src/test/c/srtp_oracle.c} (the oracle of the SRTP interop test, whose
 * header documents its line protocol) compiled with gcc into {@code target/} and driven over stdin/stdout. The test
 * using it is skipped (JUnit assumption) only when gcc or the libsrtp2 headers are missing.
 */
final class LibsrtpOracle implements AutoCloseable
{
    private static final Path SOURCE = Path.of("src/test/c/srtp_oracle.c");
    private static final Path BINARY = Path.of("target/srtp_oracle_relay");

    private final Process process;
    private final BufferedWriter in;
    private final BufferedReader out;

    private LibsrtpOracle(final Process process)
    {
        this.process = process;
        this.in = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.US_ASCII));
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
    }

    /** Builds the oracle (once per JVM run) and starts it. */
    static LibsrtpOracle start() throws Exception
    {
        build();
        final LibsrtpOracle oracle =
            new LibsrtpOracle(new ProcessBuilder(BINARY.toAbsolutePath().toString()).redirectErrorStream(true).start());
        final String version = oracle.command("version");
        if (!version.startsWith("ok libsrtp2 2."))
        {
            oracle.close();
            fail("not libsrtp 2: " + version);
        }
        return oracle;
    }

    private static synchronized void build() throws Exception
    {
        if (Files.isExecutable(BINARY))
        {
            return;
        }
        Assumptions.assumeTrue(0 == run(null, "gcc", "--version"),
            "gcc is not installed: libsrtp relay test skipped (CI installs gcc and libsrtp2-dev)");
        Assumptions.assumeTrue(0 == run("#include <srtp2/srtp.h>\n", "gcc", "-E", "-x", "c", "-o", "/dev/null", "-"),
            "libsrtp2 headers missing (apt-get install libsrtp2-dev): libsrtp relay test skipped");
        Files.createDirectories(BINARY.getParent());
        if (0 != run(null, "gcc", "-O2", "-Wall", "-o", BINARY.toString(), SOURCE.toString(), "-lsrtp2"))
        {
            fail("could not build the libsrtp oracle from " + SOURCE);
        }
    }

    /** @return the exit code, or -1 when the command cannot run or does not end in time. */
    private static int run(final String stdin, final String... command) throws InterruptedException
    {
        final Process p;
        try
        {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        }
        catch (final IOException e)
        {
            return -1;
        }
        try
        {
            if (null != stdin)
            {
                p.getOutputStream().write(stdin.getBytes(StandardCharsets.US_ASCII));
            }
            p.getOutputStream().close();
            p.getInputStream().readAllBytes();
            return p.waitFor(120, TimeUnit.SECONDS) ? p.exitValue() : -1;
        }
        catch (final IOException e)
        {
            return -1;
        }
        finally
        {
            p.destroyForcibly();
        }
    }

    /**
     * @param line one command of the oracle's protocol.
     * @return its answer line.
     */
    String command(final String line) throws IOException
    {
        in.write(line);
        in.write('\n');
        in.flush();
        final String answer = out.readLine();
        if (null == answer)
        {
            fail("libsrtp oracle exited");
        }
        return answer;
    }

    @Override
    public void close()
    {
        try
        {
            in.write("quit\n");
            in.close();
        }
        catch (final IOException gone)
        {
            // Already exited: destroyed below if not.
        }
        try
        {
            if (!process.waitFor(5, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        }
        catch (final InterruptedException e)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
