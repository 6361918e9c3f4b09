package io.sipline.container.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * What every command-line test does: run {@link Cli#execute} with a starter that only records the {@link RunOptions}
 * it would start with, and read the one error line of a refusal.
 */
abstract class CliCase
{
    protected final StringWriter out = new StringWriter();
    protected final StringWriter err = new StringWriter();
    /** The options the last {@link #run} started with; null when it refused. */
    protected RunOptions started;

    protected int run(final String... args)
    {
        started = null;
        err.getBuffer().setLength(0);
        return Cli.execute(args, new PrintWriter(out, true), new PrintWriter(err, true), (options, o, e) ->
        {
            started = options;
            return Cli.SERVING;
        });
    }

    /** @return the one line of the last refusal, asserting it is one line and that nothing was started. */
    protected String errorLine()
    {
        final String text = err.toString();
        assertEquals(1, text.lines().count(), "exactly one error line, got:\n" + text);
        assertNull(started);
        return text.strip();
    }
}
