package io.sipline.examples.clicktocall;

import java.time.Instant;

/**
 * What the status page shows of one third-party call: its id (the application session's), the two parties, where it
 * stands and why, and when it started and ended. Immutable: a change is a new record in the {@link CallBook}.
 *
 * @param id      the application session's id, which the HTTP requests name the call by.
 * @param from    the first party, called first (RFC 3725 flow I).
 * @param to      the second party, called with the first party's offer.
 * @param state   where the call stands.
 * @param detail  why it ended or failed, or empty.
 * @param started when it was asked for.
 * @param ended   when it ended or failed, or null while it goes on.
 */
public record Call(String id, String from, String to, State state, String detail, Instant started, Instant ended)
{
    /** The stages of a call. */
    public enum State
    {
        /** INVITE without an offer sent to the first party. */
        CALLING_FIRST,
        /** The first party answered with an offer; INVITE with it sent to the second party. */
        CALLING_SECOND,
        /** Both parties answered and were ACKed: they talk to each other. */
        CONNECTED,
        /** A hang-up was asked for over HTTP: BYE or CANCEL sent to the legs. */
        ENDING,
        /** Both legs are over after a hang-up. */
        ENDED,
        /** A party refused or could not be reached; the other leg, if any, was ended. */
        FAILED;

        /** Whether nothing follows this state. */
        public boolean isFinal()
        {
            return this == ENDED || this == FAILED;
        }

        /** The name in JSON: lower case, words joined by '-'. */
        public String json()
        {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }

    /** A new call, calling the first party. */
    public static Call begin(final String id, final String from, final String to)
    {
        return new Call(id, from, to, State.CALLING_FIRST, "", Instant.now(), null);
    }

    /** This call in {@code next} for {@code why}; a final state keeps its time of end. */
    public Call with(final State next, final String why)
    {
        return new Call(id, from, to, next, null == why ? "" : why, started, next.isFinal() ? Instant.now() : null);
    }

    /** The call as a JSON object. */
    public String toJson()
    {
        return "{\"id\":" + quote(id) + ",\"from\":" + quote(from) + ",\"to\":" + quote(to) + ",\"state\":"
            + quote(state.json()) + ",\"detail\":" + quote(detail) + ",\"started\":" + quote(started.toString())
            + ",\"ended\":" + (null == ended ? "null" : quote(ended.toString())) + "}";
    }

    /** A JSON string (RFC 8259 §7): quotes, backslashes and control characters escaped. */
    static String quote(final String s)
    {
        final StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            if ('"' == c || '\\' == c)
            {
                sb.append('\\').append(c);
            }
            else if (c < 0x20)
            {
                sb.append(String.format("\\u%04x", (int)c));
            }
            else
            {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }
}
