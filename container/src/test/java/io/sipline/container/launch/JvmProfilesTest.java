package io.sipline.container.launch;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.sipline.container.os.GcThreadScheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Proves that every JVM profile in {@code jvm-profiles/} (a {@code java @file} argument file) boots the JDK that
 * runs this test, collects with the collector it promises and writes its GC log where {@code bin/sipline} expects
 * it; and that every profile file keeps the shape the launcher and the readers rely on: it starts with comment
 * lines that name each flag it sets, and it has exactly one {@code -Xlog:} line with a {@code file=} value, alone on
 * its line, so that the launcher can rewrite the log path with a plain substitution.
 *
 * <p>Each boot runs {@link GcProbe} in a child JVM whose working directory is a fresh temporary directory, so the
 * profile's relative log path lands there. The child is waited for with a timeout and destroyed through its handle
 * if it does not finish.
 */
class JvmProfilesTest
{
    private static final String PROFILES_DIR = "jvm-profiles";
    private static final String PROFILE_SUFFIX = ".args";
    private static final String ROOT_PROPERTY = "sipline.root";

    /** The one GC log option every profile carries; bin/sipline replaces the {@code file=} value. */
    private static final String GC_LOG_OPTION =
        "-Xlog:gc*,safepoint:file=sipline-gc-%p.log:time,uptime,level,tags:filecount=5,filesize=20m";

    /** Booting includes pre-touching a 4 GiB heap, a few seconds on a quiet 2-core box; this allows for a busy one. */
    private static final long CHILD_TIMEOUT_SECONDS = 180;

    /** Launcher variables that would add options to the child behind the profile's back. */
    private static final List<String> INHERITED_OPTION_VARIABLES =
        List.of("JDK_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS");

    /**
     * Lines each profile's GC log must contain (the collector's own start-up line, checked on JDK 25.0.3), besides
     * the mention of the probe's {@code System.gc()} that every collector logs, Epsilon included ("is ignored").
     */
    private static final Map<String, List<String>> EXPECTED_LOG_TEXT = Map.of(
        "zgc", List.of("Using The Z Garbage Collector"),
        "shenandoah", List.of("Using Shenandoah", "Mode: Generational"),
        "g1-lowpause", List.of("Using G1"),
        "parallel", List.of("Using Parallel"),
        "epsilon", List.of("Using Epsilon"));

    @Test
    void shouldShipEveryDocumentedProfile() throws IOException
    {
        final Set<String> names = new TreeSet<>(profileNames().toList());

        assertEquals(new TreeSet<>(EXPECTED_LOG_TEXT.keySet()), names,
            "profiles in " + profilesDir() + " (a new profile needs its expected log text in this test)");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("profileNames")
    void shouldStartWithCommentsNamingEachFlagAndHaveOneRewritableGcLogLine(final String profile) throws IOException
    {
        final List<String> lines = Files.readAllLines(profileFile(profile), StandardCharsets.UTF_8);
        assertFalse(lines.isEmpty(), profile + " is empty");
        assertTrue(isComment(lines.getFirst()), profile + " must start with a comment line");

        final StringBuilder header = new StringBuilder();
        int index = 0;
        while (index < lines.size() && isCommentOrBlank(lines.get(index)))
        {
            header.append(lines.get(index)).append('\n');
            index++;
        }

        final List<String> options = new ArrayList<>();
        for (; index < lines.size(); index++)
        {
            final String line = lines.get(index).strip();
            if (!isCommentOrBlank(line))
            {
                options.add(line);
            }
        }
        assertFalse(options.isEmpty(), profile + " sets no option");

        int logFileLines = 0;
        for (final String option : options)
        {
            assertTrue(option.startsWith("-"), profile + ": not an option: " + option);
            assertFalse(option.chars().anyMatch(Character::isWhitespace),
                profile + ": one option per line: " + option);
            // The java launcher starts a comment at any '#' outside quotes, and drops a token it cuts short.
            assertFalse(option.contains("#"), profile + ": '#' in an option line is read as a comment: " + option);
            assertTrue(header.indexOf(flagName(option)) >= 0,
                profile + ": the leading comments must explain " + flagName(option));
            if (option.contains("file="))
            {
                logFileLines++;
                assertEquals(GC_LOG_OPTION, option, profile + ": the GC log line bin/sipline rewrites");
            }
        }
        assertEquals(1, logFileLines, profile + ": lines with file=");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("profileNames")
    void shouldBootTheProfileAndLogItsCollector(final String profile, @TempDir final Path workDir)
        throws IOException, InterruptedException, URISyntaxException
    {
        final List<String> expectedText = EXPECTED_LOG_TEXT.get(profile);
        assertNotNull(expectedText, "no expected log text for profile " + profile);

        final Path output = workDir.resolve("child-output.txt");
        final ProcessBuilder builder = new ProcessBuilder(
            javaExecutable(),
            "--enable-native-access=ALL-UNNAMED", // as bin/sipline: the profile's GC thread scheduling calls libc
            "@" + profileFile(profile).toAbsolutePath(),
            "-cp", testClassesDir() + File.pathSeparator + mainClassesDir(),
            GcProbe.class.getName())
            .directory(workDir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
        for (final String variable : INHERITED_OPTION_VARIABLES)
        {
            builder.environment().remove(variable);
        }

        final Process child = builder.start();
        if (!child.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS))
        {
            child.destroyForcibly();
            child.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            fail(profile + ": child JVM did not finish within " + CHILD_TIMEOUT_SECONDS + " s; output:\n" +
                Files.readString(output));
        }

        final String childOutput = Files.readString(output);
        assertEquals(0, child.exitValue(), profile + ": exit code; output:\n" + childOutput);
        assertTrue(childOutput.contains(GcProbe.DONE), profile + ": probe did not finish; output:\n" + childOutput);
        assertFalse(childOutput.toLowerCase(Locale.ROOT).contains("warning"),
            profile + ": the JVM warned about the profile; output:\n" + childOutput);
        // every profile lays objects out with 8-byte headers, the AOT cache included (made with the same options)
        assertTrue(childOutput.contains(GcProbe.COMPACT_HEADERS + "true"),
            profile + ": compact object headers are off; output:\n" + childOutput);

        final Path gcLog = workDir.resolve("sipline-gc-" + child.pid() + ".log");
        if (!Files.isRegularFile(gcLog))
        {
            try (Stream<Path> files = Files.list(workDir))
            {
                fail(profile + ": no " + gcLog.getFileName() + " in the working directory, only " +
                    files.map(path -> path.getFileName().toString()).toList());
            }
        }
        final String logText = Files.readString(gcLog);
        for (final String text : expectedText)
        {
            assertTrue(logText.contains(text), profile + ": GC log lacks \"" + text + "\"");
        }
        assertTrue(logText.contains("System.gc()"), profile + ": GC log does not mention the probe's System.gc()");

        // zgc sets -Dsipline.gc.threads=idle: every ZGC concurrent thread runs under SCHED_IDLE (policy 5)
        final List<String> threadLines = childOutput.lines().filter(line -> line.startsWith(GcProbe.THREAD_LINE))
            .toList();
        if ("zgc".equals(profile))
        {
            assertTrue(childOutput.contains("run under SCHED_IDLE"),
                "zgc: no SCHED_IDLE line; output:\n" + childOutput);
            assertFalse(threadLines.isEmpty(), "zgc: no ZGC thread found; output:\n" + childOutput);
            for (final String line : threadLines)
            {
                assertTrue(line.endsWith(" policy 5"), "zgc: " + line);
            }
        }
        else
        {
            assertFalse(childOutput.contains("SCHED_IDLE"), profile + ": " + childOutput);
        }
    }

    /**
     * Names of the profiles: the {@code *.args} files in {@code jvm-profiles/}, without the suffix, sorted.
     *
     * @return the profile names.
     * @throws IOException if the folder cannot be listed.
     */
    static Stream<String> profileNames() throws IOException
    {
        try (Stream<Path> files = Files.list(profilesDir()))
        {
            return files
                .map(path -> path.getFileName().toString())
                .filter(name -> name.endsWith(PROFILE_SUFFIX))
                .map(name -> name.substring(0, name.length() - PROFILE_SUFFIX.length()))
                .sorted()
                .toList()
                .stream();
        }
    }

    private static Path profileFile(final String profile)
    {
        return profilesDir().resolve(profile + PROFILE_SUFFIX);
    }

    /**
     * The repository's {@code jvm-profiles/}: under the {@code sipline.root} system property that the container's
     * surefire configuration sets, or else under the nearest folder above the working directory that holds one.
     */
    private static Path profilesDir()
    {
        final String root = System.getProperty(ROOT_PROPERTY);
        if (null != root && !root.isBlank())
        {
            final Path candidate = Path.of(root).toAbsolutePath().resolve(PROFILES_DIR);
            if (Files.isDirectory(candidate))
            {
                return candidate;
            }
        }

        for (Path dir = Path.of("").toAbsolutePath(); null != dir; dir = dir.getParent())
        {
            final Path candidate = dir.resolve(PROFILES_DIR);
            if (Files.isDirectory(candidate))
            {
                return candidate;
            }
        }
        throw new IllegalStateException("no " + PROFILES_DIR + "/ under -D" + ROOT_PROPERTY + "=" + root +
            " nor above " + Path.of("").toAbsolutePath());
    }

    /** The {@code java} of the JDK running this test, so each profile is booted by that same JDK. */
    private static String javaExecutable()
    {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The class path root holding {@link GcProbe}: {@code target/test-classes} under Maven. */
    private static Path testClassesDir() throws URISyntaxException
    {
        return Path.of(GcProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /** The class path root holding the container's classes: {@code target/classes} under Maven. */
    private static Path mainClassesDir() throws URISyntaxException
    {
        return Path.of(GcThreadScheduling.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private static boolean isComment(final String line)
    {
        return line.strip().startsWith("#");
    }

    private static boolean isCommentOrBlank(final String line)
    {
        return line.isBlank() || isComment(line);
    }

    /**
     * The name under which the profile's comments must mention an option: {@code -XX:+AlwaysPreTouch} and
     * {@code -XX:MaxGCPauseMillis=50} become {@code AlwaysPreTouch} and {@code MaxGCPauseMillis}; {@code -Xms4g}
     * becomes {@code -Xms}; {@code -Xlog:...} becomes {@code -Xlog}; any other option is cut at its first ':' or '='.
     */
    private static String flagName(final String option)
    {
        if (option.startsWith("-XX:"))
        {
            final String flag = option.substring("-XX:".length());
            final String name = flag.startsWith("+") || flag.startsWith("-") ? flag.substring(1) : flag;
            final int equals = name.indexOf('=');
            return equals < 0 ? name : name.substring(0, equals);
        }
        for (final String sizeOption : List.of("-Xms", "-Xmx", "-Xmn", "-Xss"))
        {
            if (option.startsWith(sizeOption))
            {
                return sizeOption;
            }
        }
        int end = option.length();
        final int colon = option.indexOf(':');
        final int equals = option.indexOf('=');
        if (colon >= 0)
        {
            end = colon;
        }
        if (equals >= 0 && equals < end)
        {
            end = equals;
        }
        return option.substring(0, end);
    }
}
