package io.sipline.container.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;

import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.sipline.container.cli.Cli;

/** {@code --log-level} and {@code --log-format}: what they accept, and the one line naming the flag otherwise. */
class LogSettingsTest
{
    private final StringWriter err = new StringWriter();
    private final PrintWriter givenOut = new PrintWriter(new StringWriter(), true);
    private final PrintWriter givenErr = new PrintWriter(err, true);
    private final PrintWriter[] served = new PrintWriter[2];

    @AfterEach
    void restoreTheDefaultLogs()
    {
        LogSetup.apply(LogSettings.DEFAULT);
    }

    private int run(final String... args)
    {
        return Cli.execute(args, givenOut, givenErr, (options, o, e) ->
            {
                served[0] = o;
                served[1] = e;
                return Cli.SERVING;
            });
    }

    @Test
    void shouldDefaultToInfoAndText()
    {
        assertEquals(LogSettings.DEFAULT, LogSettings.parse(null, null));
        assertEquals(LogSettings.DEFAULT, LogSettings.parse(List.of(), "text"));
    }

    @Test
    void shouldSetTheRootAndNamedLoggers()
    {
        final LogSettings s = LogSettings.parse(List.of("warn", "io.sipline.sip=debug", "io.sipline.container.app=OFF"),
            "JSON");
        assertEquals(Level.WARN, s.root());
        assertEquals(Map.of("io.sipline.sip", Level.DEBUG, "io.sipline.container.app", Level.OFF), s.loggers());
        assertTrue(s.json());
    }

    @Test
    void shouldRefuseAnUnknownLevelNamingTheFlag()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> LogSettings.parse(List.of("io.sipline.sip=loud"), null));
        assertEquals("--log-level: 'io.sipline.sip=loud': the level is one of off, error, warn, info, debug, trace, "
            + "all", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LogSettings.parse(List.of("=debug"), null));
        assertThrows(IllegalArgumentException.class, () -> LogSettings.parse(null, "xml"));
    }

    @Test
    void shouldApplyTheFlagsOfTheCommandLine()
    {
        assertEquals(Cli.SERVING, run("run", "--log-level", "error", "--log-level", "io.sipline.sip=debug"));
        assertEquals("", err.toString());
        assertTrue(org.apache.logging.log4j.LogManager.getLogger("io.sipline.sip.transport").isDebugEnabled());
        assertFalse(org.apache.logging.log4j.LogManager.getLogger("io.sipline.container").isWarnEnabled());
        assertTrue(org.apache.logging.log4j.LogManager.getLogger("io.sipline.container").isErrorEnabled());
    }

    @Test
    void shouldRefuseABadFlagInOneLine()
    {
        assertEquals(Cli.USAGE, run("run", "--log-level", "loud"));
        assertEquals("sipline: --log-level: 'loud': the level is one of off, error, warn, info, debug, trace, all",
            err.toString().strip());
        err.getBuffer().setLength(0);
        assertEquals(Cli.USAGE, run("run", "--log-format", "xml"));
        assertEquals("sipline: --log-format: expected text or json, not 'xml'", err.toString().strip());
    }

    @Test
    void shouldHandTheServerItsOwnWritersInTextAndLogWritersInJson()
    {
        assertEquals(Cli.SERVING, run("run"));
        assertSame(givenOut, served[0]);
        assertSame(givenErr, served[1]);
        assertEquals(Cli.SERVING, run("run", "--log-format", "json"));
        assertNotSame(givenOut, served[0], "the status lines go through the logger");
        assertNotSame(givenErr, served[1]);
    }
}
