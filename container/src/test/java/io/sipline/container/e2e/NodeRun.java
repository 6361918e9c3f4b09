package io.sipline.container.e2e;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One run of a Node client of the WebSocket end-to-end tests: its output kept line by line, the process stopped by
 * its handle; and the {@code npm ci} of a client's test resources (package.json and package-lock.json with exact
 * versions) into {@code target/e2e/NAME}.
 */
final class NodeRun
{
    static final long NODE_MS = 30_000;

    final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private NodeRun(final Process process)
    {
        this.process = process;
    }

    /** Whether {@code command} is an executable on the PATH. */
    static boolean onPath(final String command)
    {
        for (final String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
        {
            if (Files.isExecutable(Path.of(dir, command)))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Copies the resources {@code /e2e/NAME/FILE} into {@code target/e2e/NAME} and runs {@code npm ci} there (bounded).
     *
     * @return the directory.
     */
    static Path install(final String name, final List<String> files) throws IOException, InterruptedException
    {
        final Path dir = Files.createDirectories(Path.of("target", "e2e", name)).toAbsolutePath();
        for (final String file : files)
        {
            try (InputStream in = NodeRun.class.getResourceAsStream("/e2e/" + name + "/" + file))
            {
                Files.copy(in, dir.resolve(file), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        final Process npm = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund").directory(dir.toFile())
            .redirectErrorStream(true).redirectOutput(dir.resolve("npm.log").toFile()).start();
        try
        {
            assertTrue(npm.waitFor(5, TimeUnit.MINUTES) && 0 == npm.exitValue(),
                "npm ci failed:\n" + Files.readString(dir.resolve("npm.log")));
        }
        finally
        {
            npm.toHandle().destroyForcibly();
        }
        return dir;
    }

    /** Starts {@code node SCRIPT ARGS...} in the script's directory. */
    static NodeRun start(final Path script, final List<String> args) throws IOException
    {
        final List<String> cmd = new ArrayList<>(List.of("node", script.toString()));
        cmd.addAll(args);
        final Process p = new ProcessBuilder(cmd).directory(script.getParent().toFile()).redirectErrorStream(true)
            .start();
        final NodeRun run = new NodeRun(p);
        Thread.ofPlatform().daemon().name("node-" + args.get(Math.min(1, args.size() - 1))).start(() ->
        {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8)))
            {
                for (String line = in.readLine(); null != line; line = in.readLine())
                {
                    run.lines.add(line);
                }
            }
            catch (final IOException e)
            {
                run.lines.add("(output closed: " + e + ")");
            }
        });
        return run;
    }

    /** Waits for the exit (bounded); the exit code, or -1 after killing it. */
    int await() throws InterruptedException
    {
        try
        {
            return process.waitFor(NODE_MS, TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
        }
        finally
        {
            process.toHandle().destroyForcibly();
        }
    }

    /** Stops the process (by its handle) if it still runs. */
    void stop()
    {
        process.toHandle().destroyForcibly();
    }

    boolean has(final String prefix)
    {
        return lines.stream().anyMatch(l -> l.startsWith(prefix));
    }

    /** The first line starting with {@code prefix}, or null. */
    String line(final String prefix)
    {
        return lines.stream().filter(l -> l.startsWith(prefix)).findFirst().orElse(null);
    }

    String output()
    {
        return String.join("\n", lines);
    }
}
