package io.sipline.junit;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A SIP request or response as text (RFC 3261 §7): the start line, the header fields in order and the body, for
 * tests to build, send, read and assert on. Compact header names (RFC 3261 §7.3.3) are read as their long forms;
 * names compare case-insensitively; the values of Via, Route, Record-Route and Contact that several fields or one
 * comma-separated field carry are listed one per entry by {@link #headers(String)}. {@code Content-Length} is
 * written from the body, never taken from the caller.
 * <p>
 * Threading: not threadsafe; a message is built or read by one test thread at a time. A received message is
 * handed over once and not touched again by the user agent's reader.
 */
public final class SipMessage
{
    private static final Map<String, String> COMPACT = Map.ofEntries(Map.entry("v", "Via"), Map.entry("f", "From"),
        Map.entry("t", "To"), Map.entry("i", "Call-ID"), Map.entry("m", "Contact"), Map.entry("l", "Content-Length"),
        Map.entry("c", "Content-Type"), Map.entry("k", "Supported"), Map.entry("s", "Subject"),
        Map.entry("e", "Content-Encoding"), Map.entry("o", "Event"), Map.entry("r", "Refer-To"));
    private static final List<String> LISTS = List.of("via", "route", "record-route", "contact");

    private final String startLine;
    private final List<String[]> fields = new ArrayList<>();
    private String body = "";

    private SipMessage(final String startLine)
    {
        this.startLine = startLine;
    }

    /** A request with an empty header: {@code METHOD uri SIP/2.0}. */
    public static SipMessage request(final String method, final String requestUri)
    {
        return new SipMessage(method + " " + requestUri + " SIP/2.0");
    }

    /** A response with an empty header: {@code SIP/2.0 status reason}. */
    public static SipMessage response(final int status, final String reason)
    {
        return new SipMessage("SIP/2.0 " + status + " " + reason);
    }

    /**
     * Parses one message as a datagram carries it.
     *
     * @throws IllegalArgumentException naming what is malformed.
     */
    public static SipMessage parse(final String text)
    {
        final int end = text.indexOf("\r\n\r\n");
        if (end < 0)
        {
            throw new IllegalArgumentException("no empty line after the header: " + firstLine(text));
        }
        final String[] lines = text.substring(0, end).split("\r\n");
        final String start = lines[0];
        if (!start.startsWith("SIP/2.0 ") && !start.endsWith(" SIP/2.0"))
        {
            throw new IllegalArgumentException("not a SIP/2.0 start line: " + start);
        }
        final SipMessage message = new SipMessage(start);
        for (int i = 1; i < lines.length; i++)
        {
            final String line = lines[i];
            if (!message.fields.isEmpty() && (line.startsWith(" ") || line.startsWith("\t")))
            {
                final String[] last = message.fields.getLast(); // a folded line continues the field (§7.3.1)
                last[1] = last[1] + " " + line.strip();
                continue;
            }
            final int colon = line.indexOf(':');
            if (colon <= 0)
            {
                throw new IllegalArgumentException("header line without a name: " + line + " in " + start);
            }
            message.add(line.substring(0, colon).strip(), line.substring(colon + 1).strip());
        }
        message.body = text.substring(end + 4);
        return message;
    }

    private static String firstLine(final String text)
    {
        final int eol = text.indexOf('\r');
        return eol < 0 ? text : text.substring(0, eol);
    }

    private static String longName(final String name)
    {
        return COMPACT.getOrDefault(name.toLowerCase(Locale.ROOT), name);
    }

    public boolean isRequest()
    {
        return !startLine.startsWith("SIP/2.0 ");
    }

    /** The request's method, or for a response the method of its CSeq. */
    public String method()
    {
        if (isRequest())
        {
            return startLine.substring(0, startLine.indexOf(' '));
        }
        final String cseq = header("CSeq");
        return null == cseq ? "" : cseq.substring(cseq.indexOf(' ') + 1).strip();
    }

    /** The Request-URI of a request. */
    public String requestUri()
    {
        return startLine.substring(startLine.indexOf(' ') + 1, startLine.lastIndexOf(' '));
    }

    /** The status code of a response, 0 for a request. */
    public int status()
    {
        return isRequest() ? 0 : Integer.parseInt(startLine.substring(8, 11));
    }

    public String startLine()
    {
        return startLine;
    }

    /** The first value of the field, or {@code null} when absent. */
    public String header(final String name)
    {
        final List<String> values = headers(name);
        return values.isEmpty() ? null : values.getFirst();
    }

    /** Every value of the field in order, one per entry for the list headers (Via, Route, Record-Route, Contact). */
    public List<String> headers(final String name)
    {
        final String wanted = longName(name);
        final boolean list = LISTS.contains(wanted.toLowerCase(Locale.ROOT));
        final List<String> values = new ArrayList<>();
        for (final String[] field : fields)
        {
            if (field[0].equalsIgnoreCase(wanted))
            {
                if (list)
                {
                    values.addAll(splitList(field[1]));
                }
                else
                {
                    values.add(field[1]);
                }
            }
        }
        return values;
    }

    /** Appends a field. */
    public SipMessage add(final String name, final String value)
    {
        fields.add(new String[] {longName(name), value});
        return this;
    }

    /** Replaces every field of that name by one (appended when absent). */
    public SipMessage set(final String name, final String value)
    {
        final String wanted = longName(name);
        for (int i = 0; i < fields.size(); i++)
        {
            if (fields.get(i)[0].equalsIgnoreCase(wanted))
            {
                fields.set(i, new String[] {wanted, value});
                fields.subList(i + 1, fields.size()).removeIf(f -> f[0].equalsIgnoreCase(wanted));
                return this;
            }
        }
        return add(wanted, value);
    }

    /** Removes every field of that name. */
    public SipMessage remove(final String name)
    {
        final String wanted = longName(name);
        fields.removeIf(f -> f[0].equalsIgnoreCase(wanted));
        return this;
    }

    public String body()
    {
        return body;
    }

    /** Sets the body and its Content-Type. */
    public SipMessage body(final String contentType, final String text)
    {
        set("Content-Type", contentType);
        this.body = text;
        return this;
    }

    public String callId()
    {
        return header("Call-ID");
    }

    /** The CSeq sequence number. */
    public long cseq()
    {
        final String cseq = header("CSeq");
        return Long.parseLong(cseq.substring(0, cseq.indexOf(' ')).strip());
    }

    public String fromTag()
    {
        return param(header("From"), "tag");
    }

    public String toTag()
    {
        return param(header("To"), "tag");
    }

    /** The branch of the top Via. */
    public String branch()
    {
        return param(header("Via"), "branch");
    }

    /** The wire form, {@code Content-Length} computed from the body (UTF-8). */
    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder(256 + body.length()).append(startLine).append("\r\n");
        for (final String[] field : fields)
        {
            if (!"Content-Length".equalsIgnoreCase(field[0]))
            {
                text.append(field[0]).append(": ").append(field[1]).append("\r\n");
            }
        }
        text.append("Content-Length: ").append(body.getBytes(StandardCharsets.UTF_8).length).append("\r\n\r\n");
        return text.append(body).toString();
    }

    /** A copy of this message that can be changed without changing this one. */
    public SipMessage copy()
    {
        final SipMessage copy = new SipMessage(startLine);
        for (final String[] field : fields)
        {
            copy.fields.add(field.clone());
        }
        copy.body = body;
        return copy;
    }

    /**
     * A header parameter of a name-addr or Via value, outside its angle brackets ({@code tag}, {@code branch},
     * {@code expires}), or {@code null} when absent; a parameter without a value reads as the empty string.
     */
    public static String param(final String value, final String name)
    {
        if (null == value)
        {
            return null;
        }
        final int close = value.lastIndexOf('>');
        final String params = close < 0 ? value.substring(Math.max(0, value.indexOf(';'))) : value.substring(close);
        for (final String part : params.split(";"))
        {
            final int eq = part.indexOf('=');
            final String key = (eq < 0 ? part : part.substring(0, eq)).strip();
            if (key.equalsIgnoreCase(name))
            {
                return eq < 0 ? "" : part.substring(eq + 1).strip();
            }
        }
        return null;
    }

    /** The URI of a name-addr ({@code "Bob" <sip:bob@host>;tag=1} gives {@code sip:bob@host}) or of a plain URI. */
    public static String uri(final String nameAddr)
    {
        final int open = nameAddr.indexOf('<');
        if (open >= 0)
        {
            return nameAddr.substring(open + 1, nameAddr.indexOf('>', open));
        }
        final int semi = nameAddr.indexOf(';');
        return (semi < 0 ? nameAddr : nameAddr.substring(0, semi)).strip();
    }

    /** Splits a comma-separated list value, ignoring commas inside quotes and angle brackets. */
    static List<String> splitList(final String value)
    {
        final List<String> parts = new ArrayList<>();
        boolean quoted = false;
        boolean bracketed = false;
        int from = 0;
        for (int i = 0; i < value.length(); i++)
        {
            final char c = value.charAt(i);
            if ('"' == c && !bracketed)
            {
                quoted = !quoted;
            }
            else if ('<' == c && !quoted)
            {
                bracketed = true;
            }
            else if ('>' == c && !quoted)
            {
                bracketed = false;
            }
            else if (',' == c && !quoted && !bracketed)
            {
                parts.add(value.substring(from, i).strip());
                from = i + 1;
            }
        }
        parts.add(value.substring(from).strip());
        return parts;
    }
}
