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
 * class path (it takes the process for a web application). Nothing on a shard logs per message: a fault is logged
 * once per kind, refused messages by {@link RefusalLog}, from its own thread.
 *
 * <p>Threading: {@link #apply} on the main thread before the server starts; the loggers are threadsafe.
 */
public final class LogSetup
{
    /** The logger of the server's status lines in the JSON layout. */
    public static final String SERVER_LOGGER = "io.sipline.server";
    /** The text layout: the prefix of every line of the server. */
    static final String TEXT_PATTERN = "sipline: %level: %msg%n%throwable";
    /** Log4j's configuration from its start to {@link #apply}: {@link LogSettings#DEFAULT}'s. */
    static final String STARTUP_CONFIGURATION = "io/sipline/container/logging/log4j2-startup.xml";
    /** The JSON layout's event template (shipped in log4j-layout-template-json). */
    static final String JSON_TEMPLATE = "classpath:EcsLayout.json";

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
    }

    /** Configures Log4j: the layout, the root level and each named logger's level. */
    public static void apply(final LogSettings settings)
    {
        Configurator.reconfigure(configuration(settings, settings.json() ?
            ConsoleAppender.Target.SYSTEM_OUT : ConsoleAppender.Target.SYSTEM_ERR));
    }

    /** The configuration of {@link #apply}, with its console on {@code target}. */
    static BuiltConfiguration configuration(final LogSettings settings, final ConsoleAppender.Target target)
    {
        final ConfigurationBuilder<BuiltConfiguration> b = ConfigurationBuilderFactory.newConfigurationBuilder();
        b.setConfigurationName("sipline");
        b.setStatusLevel(Level.WARN);
        // follow: the stream System.out/err is when a line is written (a test's capture, a redirection)
        final AppenderComponentBuilder console = b.newAppender("console", "Console")
            .addAttribute("target", target).addAttribute("follow", true);
        console.add(settings.json() ?
            b.newLayout("JsonTemplateLayout").addAttribute("eventTemplateUri", JSON_TEMPLATE) :
            b.newLayout("PatternLayout").addAttribute("pattern", TEXT_PATTERN));
        b.add(console);
        b.add(b.newRootLogger(settings.root()).add(b.newAppenderRef("console")));
        for (final Map.Entry<String, Level> e : settings.loggers().entrySet())
        {
            b.add(b.newLogger(e.getKey(), e.getValue())); // additive: the root's console prints it
        }
        return b.build(false);
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
