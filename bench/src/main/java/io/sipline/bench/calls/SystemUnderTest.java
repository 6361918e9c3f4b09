package io.sipline.bench.calls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

import io.sipline.bench.baseline.jainsip.JainSipB2bua;

/**
 * The systems the harness can put between sipp's callers and sipp's far end, each relaying to the far end at
 * {@code 127.0.0.1:uasPort} and listening on {@code 127.0.0.1:port}:
 * <ul>
 * <li>{@link #SIPLINE}: {@code bin/sipline run --bind 127.0.0.1 --port P --profile X --deploy DIR} with the
 * {@code b2bua} example WAR exploded into the run directory and its context parameter {@code target} set to the far
 * end; {@code SIPLINE_LOG_DIR} points its GC log into the run directory.</li>
 * <li>{@link #JAINSIP}: {@link JainSipB2bua} in a child JVM started with the same profile's options.</li>
 * <li>{@link #KAMAILIO}: Kamailio as a record-routing stateful proxy with {@code bench/kamailio/kamailio.cfg},
 * {@code -DD -E} (foreground, log to stderr), its listen address and the far end given on the command line.</li>
 * </ul>
 * Stateless; the harness's main thread.
 */
public enum SystemUnderTest
{
    SIPLINE("sipline", true),
    JAINSIP("jainsip", true),
    KAMAILIO("kamailio", false);

    /** Where the harness finds the repository, the JDK and its own class path. */
    public record Layout(Path root, String java, String classpath)
    {
        public Path profiles()
        {
            return root.resolve("jvm-profiles");
        }
    }

    private static final Pattern TARGET = Pattern.compile(
        "(<(?:\\w+:)?param-name>\\s*target\\s*</(?:\\w+:)?param-name>\\s*<(?:\\w+:)?param-value>)[^<]*(<)");
    private static final long READY_SECONDS = 600; // bin/sipline run may build first

    private final String label;
    private final boolean jvm;

    SystemUnderTest(final String label, final boolean jvm)
    {
        this.label = label;
        this.jvm = jvm;
    }

    public String label()
    {
        return label;
    }

    /** Whether it is a JVM (GC log, heap, profiles) or Kamailio (none of those). */
    public boolean jvm()
    {
        return jvm;
    }

    /** The system named {@code label}, case-insensitive. */
    public static SystemUnderTest of(final String label)
    {
        for (final SystemUnderTest s : values())
        {
            if (s.label.equals(label.toLowerCase(Locale.ROOT)))
            {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown system '" + label + "' (sipline, jainsip, kamailio)");
    }

    /**
     * Starts the system in {@code dir} and returns once it listens (and, for the JVMs, says it is ready).
     *
     * @param profile   a {@code jvm-profiles/} name (ignored by Kamailio).
     * @param extraJvm  JVM options after the profile's (e.g. {@code -XX:-UseTLAB} for the allocation run).
     */
    public ServerProcess start(final Layout layout, final Path dir, final String profile, final int port,
        final int uasPort, final List<String> extraJvm) throws IOException, InterruptedException
    {
        Files.createDirectories(dir);
        final Path output = dir.resolve(label + "-" + profile + "-" + port + ".out");
        final String target = "127.0.0.1:" + uasPort;
        final List<String> cmd = new ArrayList<>();
        final ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
            .redirectOutput(output.toFile());
        Path gcLog = null;
        String marker = null;
        switch (this)
        {
            case SIPLINE ->
            {
                final Path app = explodeB2bua(layout.root(), dir.resolve("b2bua-" + port), "sip:service@" + target);
                cmd.addAll(List.of(layout.root().resolve("bin/sipline").toString(), "run", "--bind", "127.0.0.1",
                    "--port", Integer.toString(port), "--profile", profile, "--deploy", app.toString()));
                pb.environment().put("SIPLINE_LOG_DIR", dir.toString());
                pb.environment().put("JAVA_HOME", Path.of(layout.java()).getParent().getParent().toString());
                if (!extraJvm.isEmpty())
                {
                    pb.environment().put("JAVA_TOOL_OPTIONS", String.join(" ", extraJvm));
                }
                marker = "sipline: ready";
            }
            case JAINSIP ->
            {
                gcLog = dir.resolve("gc-jainsip-" + profile + "-" + port + ".log");
                cmd.add(layout.java());
                cmd.addAll(JvmProfile.load(layout.profiles(), profile, gcLog).options());
                cmd.addAll(extraJvm);
                cmd.addAll(List.of("-cp", layout.classpath(), JainSipB2bua.class.getName(), "127.0.0.1",
                    Integer.toString(port), "127.0.0.1", Integer.toString(uasPort)));
                marker = "jainsip-b2bua: ready";
            }
            case KAMAILIO ->
            {
                final Path cfg = layout.root().resolve("bench/kamailio/kamailio.cfg");
                cmd.addAll(List.of("/usr/sbin/kamailio", "-DD", "-E", "-f", cfg.toString(),
                    "-l", "udp:127.0.0.1:" + port, "-A", "UAS_ADDR=\"" + target + "\"", "-w", dir.toString(),
                    "-P", dir.resolve("kamailio-" + port + ".pid").toString(), "-m", "256", "-M", "16"));
            }
        }
        final ServerProcess server = new ServerProcess(this, jvm ? profile : "-", pb.start(), port, output, gcLog);
        try
        {
            server.awaitReady(marker, READY_SECONDS);
            if (SIPLINE == this)
            {
                server.gcLog(newestGcLog(dir, profile));
            }
            return server;
        }
        catch (final IOException | InterruptedException | RuntimeException ex)
        {
            server.close();
            throw ex;
        }
    }

    /** The GC log {@code bin/sipline run} just opened in {@code dir} ({@code gc-<profile>-<date>-<pid>.log}). */
    private static Path newestGcLog(final Path dir, final String profile) throws IOException
    {
        try (Stream<Path> files = Files.list(dir))
        {
            return files.filter(p -> p.getFileName().toString().startsWith("gc-" + profile + "-")
                    && p.getFileName().toString().endsWith(".log"))
                .max(Comparator.comparingLong(p -> p.toFile().lastModified()))
                .orElse(null);
        }
    }

    /**
     * Extracts {@code examples/b2bua/target/b2bua.war} into {@code into} and points its {@code target} context
     * parameter (WEB-INF/sip.xml) at {@code targetUri}.
     */
    static Path explodeB2bua(final Path root, final Path into, final String targetUri) throws IOException
    {
        final Path war = root.resolve("examples/b2bua/target/b2bua.war");
        if (!Files.isRegularFile(war))
        {
            throw new IOException("the b2bua example is not built: " + war
                + " is missing (./mvnw -B -q -DskipTests -pl examples/b2bua -am package)");
        }
        if (Files.exists(into))
        {
            try (Stream<Path> old = Files.walk(into))
            {
                for (final Path p : old.sorted(Comparator.reverseOrder()).toList())
                {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(into);
        try (InputStream in = Files.newInputStream(war); ZipInputStream zip = new ZipInputStream(in))
        {
            for (ZipEntry e = zip.getNextEntry(); null != e; e = zip.getNextEntry())
            {
                final Path out = into.resolve(e.getName()).normalize();
                if (!out.startsWith(into))
                {
                    throw new IOException(war + ": entry outside the archive: " + e.getName());
                }
                if (e.isDirectory())
                {
                    Files.createDirectories(out);
                }
                else
                {
                    Files.createDirectories(out.getParent());
                    Files.copy(zip, out);
                }
            }
        }
        final Path sipXml = into.resolve("WEB-INF/sip.xml");
        final String xml = Files.readString(sipXml);
        final Matcher m = TARGET.matcher(xml);
        if (!m.find())
        {
            throw new IOException(sipXml + " has no context parameter 'target' to point at the far end");
        }
        Files.writeString(sipXml, m.replaceFirst("$1" + Matcher.quoteReplacement(targetUri) + "$2"));
        return into;
    }
}
