package io.sipline.container.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.apache.logging.log4j.util.Unbox;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.sipline.test.AllocationMeter;

/**
 * The lines Log4j writes with {@link LogSetup}'s configuration, text and JSON, the application logger's lines written
 * by Log4j's thread and all there after {@link LogSetup#drain()}, and what a log call allocates: Log4j's garbage-free
 * path against the JDK's logging, which {@code System.Logger} used before.
 */
class LogSetupTest
{
    private static final PrintStream STDOUT = System.out;
    private static final PrintStream STDERR = System.err;

    @AfterEach
    void restore()
    {
        System.setOut(STDOUT);
        System.setErr(STDERR);
        LogSetup.apply(LogSettings.DEFAULT);
    }

    /** Applies {@code settings} with the console captured (the appender takes the stream when it is made). */
    private static ByteArrayOutputStream capture(final LogSettings settings)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream stream = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        System.setOut(stream);
        System.setErr(stream);
        LogSetup.apply(settings);
        return bytes;
    }

    @Test
    void shouldWriteTextLinesWithTheServersPrefix()
    {
        final ByteArrayOutputStream bytes = capture(LogSettings.DEFAULT);
        LogManager.getLogger("io.sipline.sip.transport").warn("udp: receive buffer is {} bytes", Unbox.box(212992));
        LogManager.getLogger("io.sipline.sip.transport").debug("not at info");
        assertEquals("sipline: WARN: udp: receive buffer is 212992 bytes", bytes.toString(StandardCharsets.UTF_8)
            .strip());
    }

    @Test
    void shouldWriteOneJsonObjectALine()
    {
        final ByteArrayOutputStream bytes = capture(LogSettings.parse(List.of("io.sipline.sip=debug"), "json"));
        LogManager.getLogger("io.sipline.sip.transport").debug("a \"quoted\" word");
        LogManager.getLogger("io.sipline.container").warn("failed", new IllegalStateException("boom"));
        final PrintWriter status = LogSetup.out(LogSettings.parse(null, "json"), null);
        status.println("sipline: deployed registrar (servlets registrar)");
        final List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(3, lines.size(), String.join("\n", lines));
        for (final String line : lines)
        {
            assertTrue(line.startsWith("{") && line.endsWith("}"), line);
            assertTrue(line.contains("\"@timestamp\":"), line);
        }
        assertTrue(lines.get(0).contains("\"log.level\":\"DEBUG\"") && lines.get(0).contains(
            "\"message\":\"a \\\"quoted\\\" word\"") && lines.get(0).contains("\"log.logger\":\"io.sipline.sip."
            + "transport\""), lines.get(0));
        assertTrue(lines.get(1).contains("\"error.type\":\"java.lang.IllegalStateException\"")
            && lines.get(1).contains("\"error.message\":\"boom\""), lines.get(1));
        assertTrue(lines.get(2).contains("\"message\":\"deployed registrar (servlets registrar)\"")
            && lines.get(2).contains("\"log.logger\":\"" + LogSetup.SERVER_LOGGER + "\"")
            && lines.get(2).contains("\"log.level\":\"INFO\""), lines.get(2));
    }

    /**
     * {@code ServletContext.log}'s logger: its lines are written by Log4j's thread, not the caller's (a shard), in the
     * order logged, and none is missing once {@link LogSetup#drain()} returned (the server's stop), in either layout;
     * after it the logger writes on the caller's thread.
     */
    @Test
    void shouldWriteApplicationLinesOnLog4jsThreadAndDrainThemAtStop()
    {
        for (final String format : List.of("text", "json"))
        {
            final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            final List<Thread> writers = Collections.synchronizedList(new ArrayList<>());
            final PrintStream stream = new PrintStream(new OutputStream()
            {
                @Override
                public void write(final int b)
                {
                    write(new byte[] {(byte)b}, 0, 1);
                }

                @Override
                public void write(final byte[] b, final int off, final int len)
                {
                    writers.add(Thread.currentThread());
                    synchronized (bytes)
                    {
                        bytes.write(b, off, len);
                    }
                }
            }, true, StandardCharsets.UTF_8);
            System.setOut(stream);
            System.setErr(stream);
            LogSetup.apply(LogSettings.parse(null, format));
            final Logger app = LogManager.getLogger(LogSetup.APPLICATION_LOGGER);
            for (int i = 0; i < 100; i++)
            {
                app.info("typical-b2bua: {} calls placed", Unbox.box(i));
            }
            LogSetup.drain();
            assertTrue(!writers.isEmpty() && !writers.contains(Thread.currentThread()), format + ": " + writers);
            final List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
            assertEquals(IntStream.range(0, 100).mapToObj(i -> "typical-b2bua: " + i + " calls placed").toList(),
                lines.stream().map(l -> "text".equals(format) ? l.substring("sipline: INFO: ".length()) :
                    l.replaceAll(".*\"message\":\"([^\"]*)\".*", "$1")).toList(), format);
            writers.clear();
            app.info("after the stop");
            assertEquals(List.of(Thread.currentThread()), writers, format);
        }
    }

    /** The application logger takes the level of its nearest named ancestor, else the root's. */
    @Test
    void shouldGiveTheApplicationLoggerTheLevelOfItsNearestNamedAncestor()
    {
        assertEquals(Level.INFO, LogSetup.levelOf(LogSettings.DEFAULT, LogSetup.APPLICATION_LOGGER));
        assertEquals(Level.DEBUG, LogSetup.levelOf(LogSettings.parse(List.of("warn", "io.sipline.container=debug"),
            null), LogSetup.APPLICATION_LOGGER));
        assertEquals(Level.OFF, LogSetup.levelOf(LogSettings.parse(List.of("io.sipline=debug",
            "io.sipline.container.app=off"), null), LogSetup.APPLICATION_LOGGER));
        assertEquals(Level.WARN, LogSetup.levelOf(LogSettings.parse(List.of("warn"), null),
            LogSetup.APPLICATION_LOGGER));
        final ByteArrayOutputStream bytes = capture(LogSettings.parse(List.of("io.sipline.container.app=warn"), null));
        LogManager.getLogger(LogSetup.APPLICATION_LOGGER).info("not at warn");
        LogManager.getLogger(LogSetup.APPLICATION_LOGGER).warn("at warn");
        LogSetup.drain();
        assertEquals("sipline: WARN: at warn", bytes.toString(StandardCharsets.UTF_8).strip());
    }

    /**
     * A refusal line logged through Log4j in this configuration allocates nothing per call (parameters boxed by
     * {@link Unbox}); the same line through {@code System.Logger} on the JDK's logging allocates a record, the
     * formatted message and more each time. Both figures are printed.
     */
    @Test
    void shouldLogWithoutGarbageThroughLog4j()
    {
        final PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream(), false, StandardCharsets.UTF_8);
        System.setErr(nowhere);
        LogSetup.apply(LogSettings.DEFAULT);
        final Logger log4j = LogManager.getLogger("io.sipline.container.refusals");
        final int calls = 10_000;
        final Runnable viaLog4j = () ->
        {
            for (int i = 0; i < calls; i++)
            {
                log4j.warn("refused {} messages ({}) in the last {} s", Unbox.box(i), "parse_bad_via", Unbox.box(10));
            }
        };
        final long log4jBytes = AllocationMeter.leastBytes(viaLog4j, viaLog4j, 5, calls / 10);
        final Logger app = LogManager.getLogger(LogSetup.APPLICATION_LOGGER);
        final Runnable viaRing = () ->
        {
            for (int i = 0; i < calls; i++)
            {
                app.info("typical-b2bua: {} calls placed", Unbox.box(i));
            }
        };
        // the caller's part of an asynchronous line: the record copied into Log4j's preallocated ring
        final long ringBytes = AllocationMeter.leastBytes(viaRing, viaRing, 5, calls / 10);

        final System.Logger jdk = System.getLogger("io.sipline.test.jul");
        final java.util.logging.Logger jul = java.util.logging.Logger.getLogger("io.sipline.test.jul");
        jul.setUseParentHandlers(false);
        final java.util.logging.StreamHandler handler = new java.util.logging.StreamHandler(nowhere,
            new java.util.logging.SimpleFormatter());
        jul.addHandler(handler);
        final Runnable viaJdk = () ->
        {
            for (int i = 0; i < calls; i++)
            {
                jdk.log(System.Logger.Level.WARNING, "refused {0} messages ({1}) in the last {2} s", i,
                    "parse_bad_via", 10);
            }
        };
        final long jdkBytes = AllocationMeter.leastBytes(viaJdk, viaJdk, 2, 0);
        jul.removeHandler(handler);
        System.out.printf("bytes allocated per log call: Log4j garbage-free %.2f, System.Logger on java.util.logging "
            + "%.1f%n", log4jBytes / (double)calls, jdkBytes / (double)calls);
        assertTrue(log4jBytes <= calls / 10, "Log4j allocated " + log4jBytes + " bytes for " + calls + " calls");
        assertTrue(ringBytes <= calls / 10, "the application logger allocated " + ringBytes + " bytes for " + calls
            + " calls");
        assertTrue(jdkBytes > 100L * calls, "the JDK's logging allocates per call: " + jdkBytes);
    }
}
