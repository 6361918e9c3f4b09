package io.sipline.container.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** One line per class of refused message whose count grew in an interval; nothing for what did not change. */
class RefusalLogTest
{
    private final Map<String, Long> counts = new LinkedHashMap<>();
    private final List<String> lines = new ArrayList<>();

    private RefusalLog log()
    {
        return new RefusalLog(() -> new LinkedHashMap<>(counts), ServerRefusals.meanings(), Duration.ofHours(1),
            (level, line) -> lines.add(level + " " + line));
    }

    @Test
    void shouldLogOneLinePerClassThatGrew()
    {
        counts.put("parse_bad_via", 5L); // before the start: not logged
        counts.put("overloaded", 0L);
        counts.put("servlet_error", 0L);
        try (RefusalLog log = log().start())
        {
            log.report();
            assertEquals(List.of(), lines, "nothing new since the start");

            counts.put("parse_bad_via", 5L + 1000);
            counts.put("overloaded", 1L);
            log.report();
            assertEquals(List.of(
                "WARNING refused 1000 messages (parse_bad_via) in the last 3600 s, 1005 in all: malformed, Bad Via "
                    + "(answered 400 when it can be)",
                "WARNING refused 1 message (overloaded) in the last 3600 s, 1 in all: answered 503: it waited longer "
                    + "than --overload-wait, a new INVITE past the admission limit, or a REGISTER past its budget"),
                lines);

            lines.clear();
            log.report();
            assertEquals(List.of(), lines, "a flood makes one line per interval, not one per message");

            counts.put("servlet_error", 2L);
            counts.put("some_new_class", 3L);
        }
        // close makes a last pass: the last interval's counts are not lost
        assertEquals(2, lines.size(), lines::toString);
        assertTrue(lines.get(0).startsWith("WARNING failed 2 messages (servlet_error)"), lines.get(0));
        assertEquals("WARNING refused 3 messages (some_new_class) in the last 3600 s, 3 in all", lines.get(1));
    }

    @Test
    void shouldNameEveryParserErrorAndTheContainersRefusals()
    {
        final Map<String, String> meanings = ServerRefusals.meanings();
        for (final String name : List.of("parse_bad_start_line", "parse_message_too_large", "handoff_queue_full",
            "declined", "no_application", "overloaded", "servlet_error"))
        {
            assertTrue(meanings.containsKey(name), name);
        }
    }
}
