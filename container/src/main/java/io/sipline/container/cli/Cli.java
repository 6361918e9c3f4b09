package io.sipline.container.cli;

import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import io.sipline.container.deploy.SharedLibraries;
import io.sipline.container.logging.LogSettings;
import io.sipline.container.logging.LogSetup;
import io.sipline.container.os.GcThreadScheduling;
import io.sipline.container.router.DarConfiguration;
import io.sipline.container.router.DarConfigurationException;
import io.sipline.container.security.UserRealm;
import io.sipline.container.security.UsersFileException;
import io.sipline.sip.stack.SipStackConfig;
import io.sipline.sip.transport.UdpTransportConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * The command line of the server ({@code io.sipline.container.Main}, started by {@code bin/sipline run}): the one
 * parser of {@code sipline run}. It parses and validates the options and hands valid ones to a {@link Server}; its
 * usage text is what {@code bin/sipline run --help} prints, so every option the launcher reads ({@code --profile})
 * and every variable of the environment it honours is documented here.
 *
 * <p>Exit codes: 0 for help, 2 for a usage error (unknown flag, bad value) with one line on the error stream naming
 * the flag; otherwise whatever the server returns ({@link #SERVING} while it runs, 1 when it could not start).
 *
 * <p>Not threadsafe; used once, on the main thread.
 */
public final class Cli
{
    /** Returned by a server that started and keeps running: the caller must not exit. */
    public static final int SERVING = -1;
    /** A usage error. */
    public static final int USAGE = 2;
    /** Upper bound of {@code --shards}: ids the stack makes carry the shard in two hex digits. */
    public static final int MAX_SHARDS = UdpTransportConfig.MAX_SHARDS;
    /** The most {@code --warmup} calls: a minute at the warm-up's rate. */
    public static final int MAX_WARMUP_CALLS = 120_000;

    /** Starts the server with valid options. */
    @FunctionalInterface
    public interface Server
    {
        /**
         * @return {@link #SERVING} when the server runs, or an exit code (1 when it could not start).
         */
        int serve(RunOptions options, PrintWriter out, PrintWriter err);
    }

    private Cli()
    {
    }

    /**
     * Runs the command line.
     *
     * @param args the arguments after the program name ({@code run --port 5060 ...}).
     * @return the exit code, or {@link #SERVING}.
     */
    public static int execute(final String[] args, final PrintWriter out, final PrintWriter err, final Server server)
    {
        final int code = withConfig(args, commandLine(out, err, server), err);
        out.flush();
        err.flush();
        return code;
    }

    /**
     * Runs {@code cmd} on {@code args}, with the {@code --config} file of {@code run} (if any) read first: its
     * settings come before the command line's, which replace them; an error in a value the file gave names the
     * file's line.
     */
    private static int withConfig(final String[] args, final CommandLine cmd, final PrintWriter err)
    {
        final List<String> list = List.of(args);
        final String file = list.isEmpty() || !"run".equals(list.getFirst()) ? null :
            ConfigFile.find(list.subList(1, list.size()));
        if (null == file)
        {
            return cmd.execute(args);
        }
        final CommandLine run = cmd.getSubcommands().get("run");
        final ConfigFile config;
        try
        {
            config = ConfigFile.load(file, run.getCommandSpec(), list.subList(1, list.size()));
        }
        catch (final ConfigFile.ConfigFileException e)
        {
            err.println("sipline: " + e.getMessage());
            return USAGE;
        }
        cmd.setParameterExceptionHandler((final CommandLine.ParameterException e, final String[] ignored) ->
        {
            final String origin = e.getArgSpec() instanceof OptionSpec o ? config.origin(o) : null;
            err.println("sipline: " + (null == origin ? "" : origin + ": ") + e.getMessage());
            err.flush();
            return USAGE;
        });
        final List<String> merged = new ArrayList<>();
        merged.add("run");
        merged.addAll(config.arguments());
        return cmd.execute(merged.toArray(String[]::new));
    }

    /**
     * The parser: the {@code sipline} command with its {@code run} subcommand, writing help to {@code out} and usage
     * errors, one line each, to {@code err}.
     */
    static CommandLine commandLine(final PrintWriter out, final PrintWriter err, final Server server)
    {
        final CommandLine cmd = new CommandLine(new Sipline());
        cmd.addSubcommand("run", new Run(server));
        cmd.setOut(out);
        cmd.setErr(err);
        cmd.setParameterExceptionHandler((final CommandLine.ParameterException e, final String[] ignored) ->
        {
            err.println("sipline: " + e.getMessage());
            err.flush();
            return USAGE;
        });
        return cmd;
    }

    @Command(
        name = "sipline",
        description = "Sipline, a SIP Servlet (JSR 289) container that barely makes garbage.",
        synopsisSubcommandLabel = "COMMAND")
    static final class Sipline implements Callable<Integer>
    {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
        boolean help;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call()
        {
            spec.commandLine().usage(spec.commandLine().getErr());
            return USAGE;
        }
    }

    @Command(
        name = "run",
        sortOptions = false,
        description = "Start the server: SIP over UDP and TCP (and TLS with --tls-cert and --tls-key, WebSocket with "
            + "--ws-port or --wss-port) on every --bind address, with the applications of --deploy. Without "
            + "applications it answers OPTIONS with 200 and other requests with 404.",
        footer = {
            "%nEnvironment (read by bin/sipline, which starts the JVM):",
            "  SIPLINE_JAVA_OPTS  more JVM options, after the profile's (the last of a",
            "                     repeated option wins), e.g. '-Xms8g -Xmx8g', or",
            "                     '-Dio.netty.leakDetection.level=simple' (Netty's leak",
            "                     detector is off in a running server unless set).",
            "  SIPLINE_LOG_DIR    where the GC log of each run goes, one file per run",
            "                     (gc-PROFILE-DATE-TIME-PID.log; default: logs/ in the",
            "                     repository, or in the unpacked distribution).",
            "%nExit codes: 0 help; 1 the server could not start (a port taken, a key refused); 2 a usage error, one "
                + "line naming the flag. SIGTERM or SIGINT stops the server gracefully with 0."})
    static final class Run implements Callable<Integer>
    {
        private final Server server;

        @Spec
        CommandSpec spec;

        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help.")
        boolean help;

        @Option(names = ConfigFile.OPTION, paramLabel = "FILE",
            description = "Read options from FILE first, one 'key = value' a line, the keys being these options "
                + "without their -- (port = 5060, bind = 0.0.0.0, deploy = ../webapps; '#' starts a comment); "
                + "relative FILE and PATH values are against FILE's directory; options on the command line "
                + "replace the file's.")
        String config;

        @Option(names = "--bind", paramLabel = "ADDR", split = ",", converter = AddressConverter.class,
            description = "IP address to listen on (IPv4 or IPv6; comma list or repeated for several; "
                + "default 127.0.0.1).")
        List<InetAddress> bind;

        @Option(names = "--port", paramLabel = "N", converter = PortConverter.class, defaultValue = "5060",
            description = "SIP port (UDP and TCP) (default ${DEFAULT-VALUE}).")
        int port;

        @Option(names = "--udp-ports", paramLabel = "LIST", converter = PortListConverter.class,
            description = "Extra UDP ports, e.g. 5062,5070-5079.")
        PortList udpPorts;

        @Option(names = "--shards", paramLabel = "N", converter = ShardsConverter.class,
            description = "Event-loop shards (default: the number of cores).")
        Integer shards;

        @Option(names = "--profile", paramLabel = "NAME", defaultValue = "zgc",
            description = "GC profile: bin/sipline starts the JVM with the options of jvm-profiles/NAME.args: "
                + "zgc (generational ZGC, the default), shenandoah, g1-lowpause, parallel (throughput baseline, "
                + "long pauses) or epsilon (no collection: for counting allocated bytes). Default ${DEFAULT-VALUE}.")
        String profile;

        @Option(names = "--deploy", paramLabel = "PATH",
            description = "A .war, an exploded application directory, or a folder of them, watched for WARs "
                + "dropped, replaced or deleted (repeatable).")
        List<String> deploy;

        @Option(names = "--dar", paramLabel = "FILE",
            description = "Default application router configuration (DAR properties: one line per method); "
                + "without it a single deployed application receives every initial request.")
        String dar;

        @Option(names = "--admin-port", paramLabel = "N", converter = PortConverter.class,
            description = "HTTP port for GET /health and GET /metrics (Prometheus text format) on the first --bind "
                + "address; none without it.")
        Integer adminPort;

        @Option(names = "--http-port", paramLabel = "N", converter = PortConverter.class,
            description = "HTTP port of the web half of converged applications (servlets, filters, static files of "
                + "each WAR at /<WAR name>, on an embedded Jetty); off without it.")
        Integer httpPort;

        @Option(names = "--http-bind", paramLabel = "ADDR", converter = AddressConverter.class,
            description = "IP address of --http-port (default: the first --bind address).")
        InetAddress httpBind;

        @Option(names = "--users", paramLabel = "FILE",
            description = "Users for digest authentication of protected servlets (sip.xml security-constraint), "
                + "one per line: NAME:plain:PASSWORD[:ROLES] or NAME:digest:REALM:ALG=HA1[,...][:ROLES].")
        String users;

        @Option(names = "--tls-port", paramLabel = "N", converter = PortConverter.class,
            description = "SIP over TLS port on every --bind address (default 5061 when --tls-cert and --tls-key "
                + "are given; TLS is off without them).")
        Integer tlsPort;

        @Option(names = "--tls-cert", paramLabel = "FILE",
            description = "PEM certificate chain of the TLS listeners (with --tls-key).")
        String tlsCert;

        @Option(names = "--tls-key", paramLabel = "FILE",
            description = "PEM PKCS#8 private key of --tls-cert (with --tls-cert).")
        String tlsKey;

        @Option(names = "--gc-threads", paramLabel = "MODE",
            description = "idle: ZGC's concurrent threads run under SCHED_IDLE, so the shards never wait for a core "
                + "behind a GC cycle; normal: as the JVM made them. Default: the profile's -Dsipline.gc.threads "
                + "(zgc: idle), else normal.")
        String gcThreads;

        @Option(names = "--warmup", paramLabel = "CALLS", converter = WarmupConverter.class, defaultValue = "0",
            description = "Before binding its ports, place CALLS calls through a B2BUA of the server's own on "
                + "loopback (never the deployed applications), so that the JIT has compiled the container before "
                + "the first real call: a server started under full load then keeps up from its first second "
                + "(about 5 s for 10000; default ${DEFAULT-VALUE}, none). With overload control on, a share of "
                + "them is refused with a 503, so that refusing is compiled too.")
        int warmup;

        @Option(names = "--overload-wait", paramLabel = "MS", converter = OverloadWaitConverter.class,
            defaultValue = "" + DEFAULT_OVERLOAD_WAIT_MILLIS,
            description = "Overload control: once requests that waited longer than MS milliseconds since the "
                + "kernel received them have kept coming for 100 ms (the shard has a standing backlog; one slow "
                + "message is not enough), each new request outside a dialog that waited longer than MS is refused "
                + "with 503 Service Unavailable and Retry-After: 1 until the waits have stayed within MS for "
                + "100 ms, so that the calls already up finish and the server does not collapse under "
                + "retransmissions; requests in dialogs and responses are always served. "
                + "1-10000, or 0 for off (default ${DEFAULT-VALUE}).")
        int overloadWait;

        @Option(names = "--shared-lib", paramLabel = "PATH", split = ",",
            description = "A jar, or a directory of jars, that every application sees, as a web container's lib/ "
                + "folder: the libraries WARs were built against as 'provided' by their old container (repeatable).")
        List<String> sharedLib;

        @Option(names = "--log-level", paramLabel = "[LOGGER=]LEVEL",
            description = "Log level of every logger (LEVEL), or of one logger and those under it (LOGGER=LEVEL, "
                + "e.g. io.sipline.sip=debug); repeatable. Levels: off, error, warn, info (default), debug, trace, "
                + "all.")
        List<String> logLevel;

        @Option(names = "--log-format", paramLabel = "FORMAT", defaultValue = "text",
            description = "text: 'sipline: LEVEL: message' lines on standard error; json: one JSON object a line "
                + "(Elastic Common Schema) on standard output for log shippers, the server's status lines included. "
                + "Default ${DEFAULT-VALUE}.")
        String logFormat;

        @CommandLine.Mixin
        WebSocketFlags webSocket = new WebSocketFlags();

        @CommandLine.Mixin
        StreamFlags streamFlags = new StreamFlags();

        @CommandLine.Mixin
        MediaFlags mediaFlags = new MediaFlags();

        @CommandLine.Mixin
        HepFlags hep = new HepFlags();

        @CommandLine.Mixin
        ClusterFlags cluster = new ClusterFlags();

        Run(final Server server)
        {
            this.server = server;
        }

        @Override
        public Integer call()
        {
            final PrintWriter err = spec.commandLine().getErr();
            final LogSettings logs;
            try
            {
                logs = LogSettings.parse(logLevel, logFormat);
            }
            catch (final IllegalArgumentException e)
            {
                err.println("sipline: " + e.getMessage());
                return USAGE;
            }
            final List<InetAddress> unique = bindAddresses(err);
            if (null == unique)
            {
                return USAGE;
            }
            final PortList extra = null == udpPorts ? PortList.EMPTY : udpPorts;
            if (extra.contains(port))
            {
                err.println("sipline: --udp-ports: " + port + " is already the --port");
                return USAGE;
            }
            final List<Path> paths = new ArrayList<>();
            final String badDeploy = deployPaths(paths);
            if (null != badDeploy)
            {
                err.println("sipline: --deploy: " + badDeploy);
                return USAGE;
            }
            final Path darFile;
            try
            {
                darFile = darFile();
            }
            catch (final DarConfigurationException e)
            {
                err.println("sipline: --dar: " + e.getMessage());
                return USAGE;
            }
            final Path usersFile;
            final RunOptions.Tls tls;
            final RunOptions.WebSocket ws;
            final RunOptions.Media media;
            final io.sipline.sip.capture.HepConfig capture;
            final RunOptions.Cluster clusterOptions;
            try
            {
                usersFile = usersFile();
                tls = tls();
                final int[] streamPorts = new int[extra.ports().length + 1];
                streamPorts[0] = port;
                System.arraycopy(extra.ports(), 0, streamPorts, 1, extra.ports().length);
                ws = webSocket.options(streamPorts, null != tls);
                media = mediaFlags.options();
                capture = hep.options();
                clusterOptions = cluster.options();
            }
            catch (final UsersFileException e)
            {
                err.println("sipline: --users: " + e.getMessage());
                return USAGE;
            }
            catch (final IllegalArgumentException e)
            {
                err.println("sipline: " + e.getMessage());
                return USAGE;
            }
            final GcThreadScheduling.Mode gcMode;
            try
            {
                gcMode = null == gcThreads ? null : GcThreadScheduling.parse(gcThreads);
            }
            catch (final IllegalArgumentException e)
            {
                err.println("sipline: --gc-threads: expected idle or normal, not '" + gcThreads + "'");
                return USAGE;
            }
            final List<Path> shared;
            final InetSocketAddress http;
            final RunOptions.StreamLimits streamLimits;
            try
            {
                shared = sharedLibraries();
                http = httpAddress(unique.getFirst());
                streamLimits = streamFlags.options();
            }
            catch (final IllegalArgumentException e)
            {
                err.println("sipline: " + e.getMessage());
                return USAGE;
            }
            final int n = null == shards ? Runtime.getRuntime().availableProcessors() : shards;
            LogSetup.apply(logs);
            return server.serve(new RunOptions(unique, port, extra, Math.min(n, MAX_SHARDS), profile, paths,
                darFile, adminPort, usersFile, tls, gcMode, warmup, overloadWait, shared, ws, http, media, capture,
                clusterOptions, streamLimits),
                LogSetup.out(logs, spec.commandLine().getOut()), LogSetup.err(logs, err));
        }

        /** The {@code --bind} addresses (loopback when none), or null after saying which one is listed twice. */
        private List<InetAddress> bindAddresses(final PrintWriter err)
        {
            final List<InetAddress> addresses = null == bind || bind.isEmpty() ?
                List.of(InetAddress.getLoopbackAddress()) : bind;
            final List<InetAddress> unique = new ArrayList<>();
            for (final InetAddress a : addresses)
            {
                if (unique.contains(a))
                {
                    err.println("sipline: --bind: " + a.getHostAddress() + " is listed twice");
                    return null;
                }
                unique.add(a);
            }
            return unique;
        }

        /** The {@code --shared-lib} jars; an argument that is none is an {@link IllegalArgumentException}. */
        private List<Path> sharedLibraries()
        {
            try
            {
                return SharedLibraries.jars(null == sharedLib ? List.of() : sharedLib);
            }
            catch (final IllegalArgumentException | UncheckedIOException e)
            {
                throw new IllegalArgumentException("--shared-lib: " + e.getMessage(), e);
            }
        }

        /** The web half's address ({@code --http-port} on {@code --http-bind}, else {@code first}); null when off. */
        private InetSocketAddress httpAddress(final InetAddress first)
        {
            if (null != httpBind && null == httpPort)
            {
                throw new IllegalArgumentException("--http-bind needs --http-port");
            }
            return null == httpPort ? null : new InetSocketAddress(null == httpBind ? first : httpBind, httpPort);
        }

        /**
         * The {@code --users} file, read once here so that a malformed line stops the start with its line number
         * (the server reads it again when it starts).
         */
        private Path usersFile() throws UsersFileException
        {
            if (null == users)
            {
                return null;
            }
            final Path file = readableFile(users, "--users");
            UserRealm.load(file);
            return file;
        }

        /**
         * The TLS listeners: {@code --tls-cert} and {@code --tls-key} together (both readable files) turn TLS on, on
         * {@code --tls-port} or {@value SipStackConfig#TLS_PORT_DEFAULT}; {@code --tls-port} alone is refused.
         *
         * @return the listeners, or null when TLS is off.
         * @throws IllegalArgumentException naming the flag that is wrong.
         */
        private RunOptions.Tls tls()
        {
            if (null == tlsCert && null == tlsKey)
            {
                if (null != tlsPort)
                {
                    throw new IllegalArgumentException("--tls-port needs --tls-cert and --tls-key");
                }
                return null;
            }
            if (null == tlsCert)
            {
                throw new IllegalArgumentException("--tls-key needs --tls-cert");
            }
            if (null == tlsKey)
            {
                throw new IllegalArgumentException("--tls-cert needs --tls-key");
            }
            final Path certificate = readableFile(tlsCert, "--tls-cert");
            final Path key = readableFile(tlsKey, "--tls-key");
            final int p = null == tlsPort ? SipStackConfig.TLS_PORT_DEFAULT : tlsPort;
            if (p == port || null != udpPorts && udpPorts.contains(p))
            {
                // TCP listens on the UDP ports; TLS on the same port would collide with it
                throw new IllegalArgumentException("--tls-port: " + p + " is already a UDP/TCP port");
            }
            return new RunOptions.Tls(p, certificate, key);
        }

        /**
         * @return the absolute path of a readable regular file.
         * @throws IllegalArgumentException naming the flag and what is wrong.
         */
        private static Path readableFile(final String raw, final String flag)
        {
            final Path file;
            try
            {
                file = Path.of(raw).toAbsolutePath().normalize();
            }
            catch (final InvalidPathException e)
            {
                throw new IllegalArgumentException(flag + ": '" + raw + "' is not a valid path");
            }
            if (!Files.isRegularFile(file))
            {
                throw new IllegalArgumentException(flag + ": " + raw + (Files.isDirectory(file) ?
                    " is a directory, not a file" : " does not exist"));
            }
            if (!Files.isReadable(file))
            {
                throw new IllegalArgumentException(flag + ": " + raw + " cannot be read");
            }
            return file;
        }

        /**
         * Checks every {@code --deploy} path exists (a {@code .war} file, or a directory: an exploded application
         * or a folder to watch; which of the two is the deployment side's call) and adds it to {@code paths}.
         *
         * @return the reason the first bad path is refused, or null.
         */
        private String deployPaths(final List<Path> paths)
        {
            if (null == deploy)
            {
                return null;
            }
            for (final String raw : deploy)
            {
                final Path path;
                try
                {
                    path = Path.of(raw).toAbsolutePath().normalize();
                }
                catch (final InvalidPathException e)
                {
                    return "'" + raw + "' is not a valid path";
                }
                // a directory is an exploded application or a folder to watch; a file must be a readable WAR
                final String bad = Files.isDirectory(path) ? null : !Files.exists(path) ? " does not exist" :
                    !raw.toLowerCase(Locale.ROOT).endsWith(".war") ? " is neither a .war file nor a directory" :
                    !Files.isReadable(path) ? " cannot be read" : null;
                if (null != bad)
                {
                    return raw + bad;
                }
                if (paths.contains(path))
                {
                    return raw + " is listed twice";
                }
                paths.add(path);
            }
            return null;
        }

        /**
         * The {@code --dar} file, parsed once here so that a malformed line stops the start with its line number
         * (the server parses it again when it builds the router).
         */
        private Path darFile() throws DarConfigurationException
        {
            if (null == dar)
            {
                return null;
            }
            final Path file;
            try
            {
                file = Path.of(dar).toAbsolutePath().normalize();
            }
            catch (final InvalidPathException e)
            {
                throw new DarConfigurationException(dar, 0, "not a valid path");
            }
            if (!Files.isRegularFile(file))
            {
                throw new DarConfigurationException(dar, 0, Files.isDirectory(file) ? "is a directory, not a file" :
                    "does not exist");
            }
            if (!Files.isReadable(file))
            {
                throw new DarConfigurationException(dar, 0, "cannot be read");
            }
            DarConfiguration.load(file);
            return file;
        }
    }

    /** A port number, 1 to 65535. */
    static final class PortConverter implements ITypeConverter<Integer>
    {
        @Override
        public Integer convert(final String value)
        {
            try
            {
                return PortList.port(value.strip(), value.strip());
            }
            catch (final IllegalArgumentException e)
            {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** A port list ({@link PortList#parse}). */
    static final class PortListConverter implements ITypeConverter<PortList>
    {
        @Override
        public PortList convert(final String value)
        {
            try
            {
                return PortList.parse(value);
            }
            catch (final IllegalArgumentException e)
            {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** A shard count, 1 to {@link #MAX_SHARDS}. */
    static final class ShardsConverter implements ITypeConverter<Integer>
    {
        @Override
        public Integer convert(final String value)
        {
            return count(value, 1, MAX_SHARDS, "shards");
        }
    }

    /** The {@code --warmup} call count: 0 (none) to {@link #MAX_WARMUP_CALLS}. */
    static final class WarmupConverter implements ITypeConverter<Integer>
    {
        @Override
        public Integer convert(final String value)
        {
            return count(value, 0, MAX_WARMUP_CALLS, "calls");
        }
    }

    /** The {@code --overload-wait} in milliseconds: 0 (off) to {@link #MAX_OVERLOAD_WAIT_MILLIS}. */
    static final class OverloadWaitConverter implements ITypeConverter<Integer>
    {
        @Override
        public Integer convert(final String value)
        {
            return count(value, 0, MAX_OVERLOAD_WAIT_MILLIS, "milliseconds");
        }
    }

    /**
     * The {@code --overload-wait} by default: 30 ms, the target that held goodput at the maximum with twice the
     * maximum offered ({@code docs/reliability.md}). The waits must stand above it for an interval
     * ({@code SipStackConfig#overloadIntervalNs}) before anything is refused, so a server still loading and
     * compiling its classes, slower than 30 ms over its first requests, serves them.
     */
    static final int DEFAULT_OVERLOAD_WAIT_MILLIS = 30;

    /** The longest {@code --overload-wait}: 10 s, far beyond any SIP timer that would matter (64*T1 = 32 s aside). */
    static final int MAX_OVERLOAD_WAIT_MILLIS = 10_000;

    /** A whole number from {@code min} to {@code max}, else the refusal "... is not a number of {@code what}". */
    private static int count(final String value, final int min, final int max, final String what)
    {
        final String v = value.strip();
        final int n;
        try
        {
            n = Integer.parseInt(v);
        }
        catch (final NumberFormatException e)
        {
            throw new TypeConversionException("'" + v + "' is not a number of " + what + " (" + min + "-" + max + ")");
        }
        if (n < min || n > max)
        {
            throw new TypeConversionException(n + " is not a number of " + what + " (" + min + "-" + max + ")");
        }
        return n;
    }

    /** An IP address literal, IPv4 or IPv6 (brackets allowed); no name lookup. */
    static final class AddressConverter implements ITypeConverter<InetAddress>
    {
        @Override
        public InetAddress convert(final String value)
        {
            String v = value.strip();
            if (v.length() > 2 && v.startsWith("[") && v.endsWith("]"))
            {
                v = v.substring(1, v.length() - 1);
            }
            try
            {
                return InetAddress.ofLiteral(v);
            }
            catch (final IllegalArgumentException e)
            {
                throw new TypeConversionException("'" + value + "' is not an IP address (like 127.0.0.1, ::1 or "
                    + "0.0.0.0)");
            }
        }
    }
}
