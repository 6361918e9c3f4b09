package io.sipline.container.logging;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.logging.log4j.Level;

/**
 * What {@code --log-level} and {@code --log-format} of {@code sipline run} ask for: the level of every logger
 * ({@code --log-level info}), the level of some ({@code --log-level io.sipline.sip=debug}, repeatable), and the
 * layout of each line (text, or one JSON object a line for log shippers).
 *
 * @param root    the level of every logger not named in {@code loggers}.
 * @param loggers levels by logger name (a name covers its descendants: {@code io.sipline.sip} covers
 *                {@code io.sipline.sip.transport}), in the order given.
 * @param json    true for the JSON layout, false for text lines {@code sipline: LEVEL: message}.
 */
public record LogSettings(Level root, Map<String, Level> loggers, boolean json)
{
    /** Info for every logger, text lines. */
    public static final LogSettings DEFAULT = new LogSettings(Level.INFO, Map.of(), false);

    /** The level names {@code --log-level} takes. */
    public static final List<String> LEVELS = List.of("off", "error", "warn", "info", "debug", "trace", "all");

    public LogSettings
    {
        loggers = Map.copyOf(loggers);
    }

    /**
     * Parses the flags.
     *
     * @param levels each {@code --log-level}: {@code LEVEL} or {@code LOGGER=LEVEL}; may be null.
     * @param format the {@code --log-format}: {@code text}, {@code json}, or null for text.
     * @throws IllegalArgumentException naming the flag and the value refused.
     */
    public static LogSettings parse(final List<String> levels, final String format)
    {
        final boolean json;
        if (null == format || "text".equalsIgnoreCase(format.strip()))
        {
            json = false;
        }
        else if ("json".equalsIgnoreCase(format.strip()))
        {
            json = true;
        }
        else
        {
            throw new IllegalArgumentException("--log-format: expected text or json, not '" + format + "'");
        }
        Level root = Level.INFO;
        final Map<String, Level> loggers = new LinkedHashMap<>();
        for (final String spec : null == levels ? List.<String>of() : levels)
        {
            final int eq = spec.indexOf('=');
            if (eq < 0)
            {
                root = level(spec, spec);
                continue;
            }
            final String name = spec.substring(0, eq).strip();
            if (name.isEmpty() || name.chars().anyMatch(Character::isWhitespace))
            {
                throw new IllegalArgumentException("--log-level: '" + spec + "' names no logger (expected LEVEL or "
                    + "LOGGER=LEVEL, e.g. io.sipline.sip=debug)");
            }
            loggers.put(name, level(spec.substring(eq + 1), spec));
        }
        return new LogSettings(root, loggers, json);
    }

    private static Level level(final String name, final String spec)
    {
        final String n = name.strip().toLowerCase(Locale.ROOT);
        if (!LEVELS.contains(n))
        {
            throw new IllegalArgumentException("--log-level: '" + spec + "': the level is one of "
                + String.join(", ", LEVELS));
        }
        return Level.toLevel(n);
    }
}
