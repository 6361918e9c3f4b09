package io.sipline.container.logging;

import java.io.PrintWriter;
import java.io.Writer;
import java.util.Map;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.core.appender.ConsoleAppender;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.config.builder.api.AppenderComponentBuilder;
import org.apache.logging.log4j.core.config.builder.api.LayoutComponentBuilder;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilder;
import org.apache.logging.log4j.core.config.builder.api.ConfigurationBuilderFactory;
import org.apache.logging.log4j.core.config.builder.impl.BuiltConfiguration;

/**
 * The server's logs: Log4j 2 configured from {@link LogSettings}, one console appender. The JDK's
 * {@code System.Logger} (every logger of the stack and the container) reaches it through {@code log4j-jpl}.
 * <ul>
 *   <li>text: {@code sipline: LEVEL: message} on standard error, as the server's other lines;</li>
 *   <li>json: one JSON object a line on standard output, in the Elastic Common Schema of Log4j's
 *       {@code JsonTemplateLayout} ({@code @timestamp}, {@code log.level}, {@code log.logger}, {@code message},
 *       {@code error.*}); the server's own status lines ({@code listening on ...}, {@code deployed ...},
 *       {@code ready}) go through the logger {@value #SERVER_LOGGER} then, so that every line is JSON.</li>
 * </ul>
 * Both layouts and the console appender are garbage-free in Log4j's sense (a record formats into reused buffers);
 * {@link #beforeFirstUse()} turns on Log4j's thread-local reuse, which it leaves off when it finds a servlet API on the
 * class path (it takes the process for a web application). Nothing of the stack on a shard logs per message: a fault
 * is logged once per kind, refused messages by {@link RefusalLog}, from its own thread.
 * <p>
 * Applications do log per call ({@code ServletContext.log}, on the shard that runs the call): their logger
 * {@value #APPLICATION_LOGGER} is one of Log4j's asynchronous loggers. The shard copies the record into Log4j's ring
 * (LMAX Disruptor, preallocated records: no garbage) and goes on; Log4j's thread wakes every
 * {@link #APPLICATION_WAKE_NANOS} ns (a sleeping wait: the shard never signals it, no system call per line), formats
 * the lines that came and writes them with one flush at the end of the batch. {@link #drain()} writes what is left.
 *
 * <p>Threading: {@link #apply} on the main thread before the server starts, {@link #drain} on the thread that stops
 * it; the loggers are threadsafe.
 */
public final class LogSetup
{
    /** The logger of the server's status lines in the JSON layout. */
    public static final String SERVER_LOGGER = "io.sipline.server";
    /** The logger of {@code ServletContext.log}: asynchronous (see the class). */
    public static final String APPLICATION_LOGGER = "io.sipline.container.app";
    /** How often Log4j's thread looks for application lines: a line is written this long after it was logged. */
    static final long APPLICATION_WAKE_NANOS = 50_000_000L;
    /** The text layout: the prefix of every line of the server. */
    static final String TEXT_PATTERN = "sipline: %level: %msg%n%throwable";
    /** Log4j's configuration from its start to {@link #apply}: {@link LogSettings#DEFAULT}'s. */
    static final String STARTUP_CONFIGURATION = "io/sipline/container/logging/log4j2-startup.xml";
    /** The JSON layout's event template (shipped in log4j-layout-template-json). */
    static final String JSON_TEMPLATE = "classpath:EcsLayout.json";

    /** What {@link #apply} configured last, for {@link #drain}. */
    private static volatile LogSettings applied;

    private LogSetup()
    {
    }

    /**
     * Before Log4j's first use (the start of {@code main}): its garbage-free mode in a process that has the servlet
     * API on its class path, a clock that does not allocate, and no shutdown hook of its own, so that the server's
     * hook logs its last lines (the console needs no stopping). A property the user set is left as it is.
     */
    public static void beforeFirstUse()
    {
        if (null == System.getProperty("log4j2.shutdownHookEnabled"))
        {
            System.setProperty("log4j2.shutdownHookEnabled", "false");
        }
        if (null == System.getProperty("log4j2.isWebapp"))
        {
            System.setProperty("log4j2.isWebapp", "false");
        }
        if (null == System.getProperty("log4j2.enableThreadlocals"))
        {
            System.setProperty("log4j2.enableThreadlocals", "true");
        }
        if (null == System.getProperty("log4j2.configurationFile"))
        {
            // what Log4j starts with until apply: the text layout at info, not its warning that it found no file
            System.setProperty("log4j2.configurationFile", STARTUP_CONFIGURATION);
        }
        if (null == System.getProperty("log4j2.clock"))
        {
            // the default clock reads an Instant (24 bytes) per record; milliseconds are precise enough for a log
            System.setProperty("log4j2.clock", "SystemMillisClock");
        }
        if (null == System.getProperty("AsyncLoggerConfig.WaitStrategy"))
        {
            // the application logger's thread sleeps between batches: a blocking wait would cost the logging shard a
            // wake-up (a futex call) per line, more than formatting the line itself
            System.setProperty("AsyncLoggerConfig.WaitStrategy", "Sleep");
            System.setProperty("AsyncLoggerConfig.Retries", "0");
            System.setProperty("AsyncLoggerConfig.SleepTimeNs", Long.toString(APPLICATION_WAKE_NANOS));
        }
    }

    /** Configures Log4j: the layout, the root level and each named logger's level. */
    public static void apply(final LogSettings settings)
    {
        Configurator.reconfigure(configuration(settings, target(settings), true));
        applied = settings;
    }

    /**
     * Writes the application lines still waiting for Log4j's thread, before the server's last lines: the
     * configuration is made again with the application logger synchronous, and Log4j stops the old one once its
     * thread has written every line it was given. Does nothing before {@link #apply}.
     */
    public static void drain()
    {
        final LogSettings settings = applied;
        if (null != settings)
        {
            Configurator.reconfigure(configuration(settings, target(settings), false));
        }
    }

    private static ConsoleAppender.Target target(final LogSettings settings)
    {
        return settings.json() ? ConsoleAppender.Target.SYSTEM_OUT : ConsoleAppender.Target.SYSTEM_ERR;
    }

    /**
     * The configuration of {@link #apply}, with its console on {@code target}; {@code asynchronous}: the application
     * logger's lines written by Log4j's thread (else on the caller's, as every other logger's).
     */
    static BuiltConfiguration configuration(final LogSettings settings, final ConsoleAppender.Target target,
        final boolean asynchronous)
    {
        final ConfigurationBuilder<BuiltConfiguration> b = ConfigurationBuilderFactory.newConfigurationBuilder();
        b.setConfigurationName("sipline");
        b.setStatusLevel(Level.WARN);
        b.add(console(b, "console", settings, target, true));
        b.add(b.newRootLogger(settings.root()).add(b.newAppenderRef("console")));
        for (final Map.Entry<String, Level> e : settings.loggers().entrySet())
        {
            if (!APPLICATION_LOGGER.equals(e.getKey()))
            {
                b.add(b.newLogger(e.getKey(), e.getValue())); // additive: the root's console prints it
            }
        }
        final Level application = levelOf(settings, APPLICATION_LOGGER);
        if (asynchronous)
        {
            // not additive: the root's console would print its lines on the caller's thread as well; the same
            // console stream, flushed at the end of each batch instead of each line
            b.add(console(b, "application-console", settings, target, false));
            b.add(b.newAsyncLogger(APPLICATION_LOGGER, application, false).addAttribute("additivity", false)
                .add(b.newAppenderRef("application-console")));
        }
        else
        {
            b.add(b.newLogger(APPLICATION_LOGGER, application));
        }
        return b.build(false);
    }

    /** A console appender in the layout of {@code settings}. */
    private static AppenderComponentBuilder console(final ConfigurationBuilder<BuiltConfiguration> b,
        final String name, final LogSettings settings, final ConsoleAppender.Target target, final boolean flushEach)
    {
        // follow: the stream System.out/err is when a line is written (a test's capture, a redirection)
        final AppenderComponentBuilder console = b.newAppender(name, "Console").addAttribute("target", target)
            .addAttribute("follow", true).addAttribute("immediateFlush", flushEach);
        final LayoutComponentBuilder layout = settings.json() ?
            b.newLayout("JsonTemplateLayout").addAttribute("eventTemplateUri", JSON_TEMPLATE) :
            b.newLayout("PatternLayout").addAttribute("pattern", TEXT_PATTERN);
        return console.add(layout);
    }

    /** The level {@code settings} give logger {@code name}: its own, its nearest named ancestor's, or the root's. */
    static Level levelOf(final LogSettings settings, final String name)
    {
        for (String n = name; ; n = n.substring(0, n.lastIndexOf('.')))
        {
            final Level level = settings.loggers().get(n);
            if (null != level)
            {
                return level;
            }
            if (n.indexOf('.') < 0)
            {
                return settings.root();
            }
        }
    }

    /** The writer for the server's status lines: {@code out} itself, or in JSON its lines logged at INFO. */
    public static PrintWriter out(final LogSettings settings, final PrintWriter out)
    {
        return settings.json() ? new PrintWriter(new LineLog(LogManager.getLogger(SERVER_LOGGER), Level.INFO), true)
            : out;
    }

    /** The writer for the server's problem lines: {@code err} itself, or in JSON its lines logged at WARN. */
    public static PrintWriter err(final LogSettings settings, final PrintWriter err)
    {
        return settings.json() ? new PrintWriter(new LineLog(LogManager.getLogger(SERVER_LOGGER), Level.WARN), true)
            : err;
    }

    /**
     * A writer that logs each line written to it, without the {@code sipline: } prefix of the server's lines.
     * Threadsafe: a line is assembled under the writer's lock.
     */
    static final class LineLog extends Writer
    {
        private static final String PREFIX = "sipline: ";

        private final Logger logger;
        private final Level level;
        private final StringBuilder line = new StringBuilder(128);

        LineLog(final Logger logger, final Level level)
        {
            this.logger = logger;
            this.level = level;
        }

        @Override
        public void write(final char[] chars, final int offset, final int length)
        {
            synchronized (lock)
            {
                for (int i = offset; i < offset + length; i++)
                {
                    final char c = chars[i];
                    if ('\n' == c)
                    {
                        emit();
                    }
                    else if ('\r' != c)
                    {
                        line.append(c);
                    }
                }
            }
        }

        private void emit()
        {
            final int from = line.indexOf(PREFIX) == 0 ? PREFIX.length() : 0;
            logger.log(level, line.substring(from));
            line.setLength(0);
        }

        @Override
        public void flush()
        {
            // a line is logged when it ends; a partial line waits for its end
        }

        @Override
        public void close()
        {
            synchronized (lock)
            {
                if (!line.isEmpty())
                {
                    emit();
                }
            }
        }
    }
}
