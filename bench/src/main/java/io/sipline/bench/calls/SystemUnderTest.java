package io.sipline.bench.calls;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

import io.sipline.bench.baseline.jainsip.JainSipB2bua;
import io.sipline.bench.machine.CpuConfinement;
import io.sipline.test.Sipp;

/**
 * The systems the harness can put between sipp's callers and sipp's far end, each relaying to the far end at
 * {@code 127.0.0.1:uasPort} and listening on {@code 127.0.0.1:port}:
 * <ul>
 * <li>{@link #SIPLINE}: {@code bin/sipline run --bind 127.0.0.1 --port P --profile X --deploy DIR} with an example
 * WAR exploded into the run directory and pointed at the far end: {@code typical-b2bua} or {@code b2bua} (context
 * parameter {@code target}) or {@code proxy} (init parameters {@code targets}, {@code record-route=true},
 * {@code parallel=true});
 * {@code SIPLINE_LOG_DIR} points its GC log into the run directory; for the load steps {@code --admin-port} on a free
 * TCP port of 127.0.0.1, so that each step can read the server's own INVITE response times from {@code /metrics}.</li>
 * <li>{@link #JAINSIP}: {@link JainSipB2bua} in a child JVM started with the same profile's options (a minimal
 * B2BUA: the baseline of {@code b2bua} only).</li>
 * <li>{@link #KAMAILIO}: Kamailio as a record-routing stateful proxy with {@code bench/kamailio/kamailio.cfg},
 * {@code -DD -E} (foreground, log to stderr), its listen address and the far end given on the command line; the
 * baseline of every application.</li>
 * </ul>
 * Stateless; the harness's main thread.
 */
public enum SystemUnderTest
{
    SIPLINE("sipline", true),
    JAINSIP("jainsip", true),
    KAMAILIO("kamailio", false);

    /**
     * Where the harness finds the repository, the JDK and its own class path; {@code cpu}, when not null, the cgroup
     * and CPU every server is started in.
     */
    public record Layout(Path root, String java, String classpath, CpuConfinement cpu)
    {
        /** A layout whose servers run wherever the scheduler puts them. */
        public Layout(final Path root, final String java, final String classpath)
        {
            this(root, java, classpath, null);
        }

        /** This layout with every server started in {@code confinement} (see {@link CpuConfinement}). */
        public Layout confined(final CpuConfinement confinement)
        {
            return new Layout(root, java, classpath, confinement);
        }

        public Path profiles()
        {
            return root.resolve("jvm-profiles");
        }
    }

    /**
     * The applications {@code --app} can name: the examples whose WARs Sipline runs. {@code typical-b2bua} is a B2BUA
     * written as applications usually are (listeners, session attributes, a header map, a log line every 10 calls);
     * {@code b2bua} the minimal forwarding servlet.
     */
    public static final List<String> APPS = List.of("typical-b2bua", "b2bua", "proxy");
    private static final long READY_SECONDS = 600; // bin/sipline run may build first
    /** The element of sip.xml (JSR 289 §B, the deployment descriptor) that makes an application distributable. */
    private static final Pattern DISTRIBUTABLE = Pattern.compile("<(?:\\w+:)?distributable\\s*/>");

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
     * Whether this system can play {@code app} ({@link #APPS}): the JAIN-SIP baseline is a minimal B2BUA and stands
     * for {@code b2bua} only; Kamailio for every application.
     */
    public boolean plays(final String app)
    {
        return APPS.contains(app) && (JAINSIP != this || "b2bua".equals(app));
    }

    /** Whether this system deploys the application it plays (Sipline), rather than being the same for every one. */
    public boolean deploys()
    {
        return SIPLINE == this;
    }

    /** Whether {@code app} is a proxy, whose calls follow a record-routed route set; else a B2BUA. */
    public static boolean proxy(final String app)
    {
        return "proxy".equals(app);
    }

    /**
     * Starts the system in {@code dir} and returns once it listens (and, for the JVMs, says it is ready).
     *
     * @param app       one of {@link #APPS} (only Sipline deploys it; Kamailio proxies for every one)
     * @param profile   a {@code jvm-profiles/} name (ignored by Kamailio).
     * @param extraJvm  JVM options after the profile's (e.g. {@code -XX:-UseTLAB} for the allocation run).
     * @param serverArgs options of {@code bin/sipline run} after the harness's own (e.g. {@code --overload-wait 100});
     *                  Sipline only, none for the baselines.
     * @param metrics   whether Sipline serves {@code /metrics} on an admin port (the load steps read its own response
     *                  times there); false for the memory runs, whose heap figures a scrape would disturb. The
     *                  baselines have none either way.
     */
    public ServerProcess start(final Layout layout, final Path dir, final String app, final String profile,
        final int port, final int uasPort, final List<String> extraJvm, final List<String> serverArgs,
        final boolean metrics) throws IOException, InterruptedException
    {
        return start(layout, dir, app, profile, port, uasPort, extraJvm, serverArgs, metrics, Map.of());
    }

    /**
     * {@link #start} with {@code env} added to the environment of {@code bin/sipline run} (e.g. {@code SIPLINE_AOT=off}
     * for a server started without its AOT cache); Sipline only, none for the baselines.
     */
    public ServerProcess start(final Layout layout, final Path dir, final String app, final String profile,
        final int port, final int uasPort, final List<String> extraJvm, final List<String> serverArgs,
        final boolean metrics, final Map<String, String> env) throws IOException, InterruptedException
    {
        return start(layout, dir, app, profile, port, uasPort, extraJvm, serverArgs, metrics, env, true);
    }

    /**
     * {@link #start} with the application's {@code <distributable/>} taken out of its {@code sip.xml} when {@code
     * distributable} is false (Sipline only): the same application, its sessions kept on the node alone.
     */
    public ServerProcess start(final Layout layout, final Path dir, final String app, final String profile,
        final int port, final int uasPort, final List<String> extraJvm, final List<String> serverArgs,
        final boolean metrics, final Map<String, String> env, final boolean distributable)
        throws IOException, InterruptedException
    {
        if (SIPLINE != this && (!env.isEmpty() || !distributable))
        {
            throw new IllegalArgumentException(label + " takes no Sipline environment: " + env);
        }
        if (!plays(app))
        {
            throw new IllegalArgumentException(label + " cannot run the application '" + app + "'");
        }
        if (SIPLINE != this && !serverArgs.isEmpty())
        {
            throw new IllegalArgumentException(label + " takes no Sipline options: " + serverArgs);
        }
        Files.createDirectories(dir);
        final Path output = dir.resolve(label + "-" + profile + "-" + port + ".out");
        final String target = "127.0.0.1:" + uasPort;
        final List<String> cmd = new ArrayList<>();
        final ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
            .redirectOutput(output.toFile());
        Path gcLog = null;
        String marker = null;
        int adminPort = 0;
        switch (this)
        {
            case SIPLINE ->
            {
                final String far = "sip:service@" + target;
                final Path war = explode(layout.root(), app, dir.resolve(app + "-" + port), proxy(app) ?
                    Map.of("targets", far, "record-route", "true", "parallel", "true") : Map.of("target", far),
                    distributable);
                cmd.addAll(List.of(layout.root().resolve("bin/sipline").toString(), "run", "--bind", "127.0.0.1",
                    "--port", Integer.toString(port), "--profile", profile, "--deploy", war.toString()));
                cmd.addAll(serverArgs);
                if (metrics)
                {
                    adminPort = freeTcpPort();
                    cmd.addAll(List.of("--admin-port", Integer.toString(adminPort)));
                }
                pb.environment().put("SIPLINE_LOG_DIR", dir.toString());
                pb.environment().putAll(env);
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
        if (null != layout.cpu())
        {
            pb.command(layout.cpu().wrap(cmd));
        }
        final ServerProcess server = new ServerProcess(this, jvm ? profile : "-", pb.start(), port, adminPort, output,
            gcLog);
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

    /**
     * Kamailio as the front of a Sipline cluster, with the repository's {@code cluster/kamailio/kamailio.cfg} (its
     * dispatcher, Record-Route and in-dialog routing, its own workers) on {@code 127.0.0.1:port}, {@code -DD -E}
     * (foreground, log to its output file in {@code dir}), its dispatcher list the Sipline nodes on the UDP ports
     * {@code nodes} of 127.0.0.1, probed with OPTIONS every second; returns once it listens. The nodes send their own
     * outbound legs through it with {@code bin/sipline run --cluster-front sip:127.0.0.1:PORT}.
     */
    public static ServerProcess clusterFront(final Layout layout, final Path dir, final int port,
        final List<Integer> nodes) throws IOException, InterruptedException
    {
        Files.createDirectories(dir.resolve("run"));
        final StringBuilder list = new StringBuilder();
        for (int i = 0; i < nodes.size(); i++)
        {
            list.append("1 sip:127.0.0.1:").append(nodes.get(i)).append(" 0 0 node=").append(i + 1).append('\n');
        }
        final Path listFile = Files.writeString(dir.resolve("dispatcher.list"), list);
        final Path output = dir.resolve("kamailio-front-" + port + ".out");
        final List<String> cmd = List.of("/usr/sbin/kamailio", "-f",
            layout.root().resolve("cluster/kamailio/kamailio.cfg").toString(), "-DD", "-E", "-Y",
            dir.resolve("run").toString(), "-w", dir.toString(), "-P", dir.resolve("kamailio-" + port + ".pid")
            .toString(), "-m", "256", "-M", "16", "-l", "udp:127.0.0.1:" + port,
            "-A", "DISPATCHER_LIST=\"" + listFile + "\"", "-A", "PING_INTERVAL=1", "-A", "PROBE_TIMEOUT_MS=1000");
        final ServerProcess front = new ServerProcess(KAMAILIO, "-", new ProcessBuilder(cmd).directory(dir.toFile())
            .redirectErrorStream(true).redirectOutput(output.toFile()).start(), port, 0, output, null);
        try
        {
            front.awaitReady(null, READY_SECONDS);
            return front;
        }
        catch (final IOException | InterruptedException | RuntimeException ex)
        {
            front.close();
            throw ex;
        }
    }

    /** Starts a system may make, each on new ports, when another process took a probed port before the bind. */
    static final int START_ATTEMPTS = 3;

    /** A source of ports to listen on (the harness's probe of a free one; a test's own sequence). */
    @FunctionalInterface
    interface PortSource
    {
        int next() throws IOException;
    }

    /**
     * {@link #start} on a port of 127.0.0.1 free for UDP and TCP now (Sipline binds both on its port), other than the
     * far end's. A port probed free may be taken by another process before the server binds it (a Maven build's
     * connection took one in a search, which then stopped on "cannot listen on tcp ...: Address
     * already in use"): a start that fails so is made again on new ports, up to {@link #START_ATTEMPTS} in all. Any
     * other failure is reported at once.
     */
    public ServerProcess startOnFreePort(final Layout layout, final Path dir, final String app, final String profile,
        final int uasPort, final List<String> extraJvm, final List<String> serverArgs, final boolean metrics)
        throws IOException, InterruptedException
    {
        return startOnFreePort(layout, dir, app, profile, uasPort, extraJvm, serverArgs, metrics, Map.of(),
            () -> freeServerPort(uasPort));
    }

    /** {@link #startOnFreePort} with {@code env} added to the server's environment (see {@link #start}). */
    public ServerProcess startOnFreePort(final Layout layout, final Path dir, final String app, final String profile,
        final int uasPort, final List<String> extraJvm, final List<String> serverArgs, final boolean metrics,
        final Map<String, String> env) throws IOException, InterruptedException
    {
        return startOnFreePort(layout, dir, app, profile, uasPort, extraJvm, serverArgs, metrics, env,
            () -> freeServerPort(uasPort));
    }

    ServerProcess startOnFreePort(final Layout layout, final Path dir, final String app, final String profile,
        final int uasPort, final List<String> extraJvm, final List<String> serverArgs, final boolean metrics,
        final PortSource ports) throws IOException, InterruptedException
    {
        return startOnFreePort(layout, dir, app, profile, uasPort, extraJvm, serverArgs, metrics, Map.of(), ports);
    }

    private ServerProcess startOnFreePort(final Layout layout, final Path dir, final String app, final String profile,
        final int uasPort, final List<String> extraJvm, final List<String> serverArgs, final boolean metrics,
        final Map<String, String> env, final PortSource ports) throws IOException, InterruptedException
    {
        IOException taken = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++)
        {
            final int port = ports.next();
            try
            {
                return start(layout, dir, app, profile, port, uasPort, extraJvm, serverArgs, metrics, env);
            }
            catch (final IOException e)
            {
                if (!portTaken(e))
                {
                    throw e;
                }
                taken = e;
                System.out.printf("bench calls: %s: port %d (or its admin port) was taken before the server bound it; "
                    + "%s%n", label, port, attempt < START_ATTEMPTS ? "starting again on new ports" : "giving up");
            }
        }
        throw new IOException(label + " found its ports taken in " + START_ATTEMPTS + " starts; the last: "
            + taken.getMessage(), taken);
    }

    /** Whether a start failed because a port it was to listen on was in use (the server's output says so). */
    static boolean portTaken(final IOException startFailure)
    {
        final String m = startFailure.getMessage();
        return null != m && m.contains("Address already in use");
    }

    /** A port of 127.0.0.1 free for both UDP and TCP now, other than {@code avoid}. */
    public static int freeServerPort(final int avoid) throws IOException
    {
        for (int i = 0; i < 20; i++)
        {
            final int p = Sipp.freeUdpPort();
            if (p == avoid)
            {
                continue;
            }
            try (ServerSocket tcp = new ServerSocket(p, 1, InetAddress.ofLiteral("127.0.0.1")))
            {
                return tcp.getLocalPort();
            }
            catch (final java.net.BindException inUse)
            {
                // this port is taken for TCP: another
            }
        }
        throw new IOException("no port of 127.0.0.1 free for both UDP and TCP in 20 probes");
    }

    /** A TCP port of 127.0.0.1 free now (bound and released: the server binds it a moment later). */
    public static int freeTcpPort() throws IOException
    {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.ofLiteral("127.0.0.1")))
        {
            return probe.getLocalPort();
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
     * Extracts {@code examples/APP/target/APP.war} into {@code into} and sets the values of the parameters named in
     * {@code params} (context or servlet init parameters of WEB-INF/sip.xml, each of which must be there).
     */
    static Path explode(final Path root, final String app, final Path into, final Map<String, String> params)
        throws IOException
    {
        return explode(root, app, into, params, true);
    }

    /**
     * {@link #explode(Path, String, Path, Map)}, with the {@code <distributable/>} of {@code sip.xml} taken out when
     * {@code distributable} is false (it must be there then).
     */
    static Path explode(final Path root, final String app, final Path into, final Map<String, String> params,
        final boolean distributable) throws IOException
    {
        final Path war = root.resolve("examples").resolve(app).resolve("target").resolve(app + ".war");
        if (!Files.isRegularFile(war))
        {
            throw new IOException("the " + app + " example is not built: " + war + " is missing (./mvnw -B -q "
                + "-DskipTests -pl examples/" + app + " -am package)");
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
        String xml = Files.readString(sipXml);
        for (final Map.Entry<String, String> p : new TreeMap<>(params).entrySet())
        {
            final Matcher m = Pattern.compile("(<(?:\\w+:)?param-name>\\s*" + Pattern.quote(p.getKey())
                + "\\s*</(?:\\w+:)?param-name>\\s*<(?:\\w+:)?param-value>)[^<]*(<)").matcher(xml);
            if (!m.find())
            {
                throw new IOException(sipXml + " has no parameter '" + p.getKey() + "' to set");
            }
            xml = m.replaceFirst("$1" + Matcher.quoteReplacement(p.getValue()) + "$2");
        }
        if (!distributable)
        {
            final Matcher m = DISTRIBUTABLE.matcher(xml);
            if (!m.find())
            {
                throw new IOException(sipXml + " has no <distributable/> to take out");
            }
            xml = m.replaceAll("");
        }
        Files.writeString(sipXml, xml);
        return into;
    }
}
