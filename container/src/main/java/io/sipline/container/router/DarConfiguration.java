package io.sipline.container.router;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

import javax.servlet.sip.ar.SipApplicationRoutingRegion;

/**
 * The default application router's configuration (JSR 289 Appendix C, "DAR"), in the standard properties format:
 * one line per SIP method, each with one or more comma-separated tuples of six quoted strings:
 * <pre>
 * INVITE: ("b2bua", "DAR:From", "ORIGINATING", "", "NO_ROUTE", "0"), \
 *         ("voicemail", "DAR:To", "TERMINATING", "", "NO_ROUTE", "1")
 * </pre>
 * <ul>
 *   <li>the separator after the method is {@code :} or {@code =}; blank lines and lines starting with {@code #} or
 *       {@code !} are ignored; a line ending in a backslash continues on the next (as in {@code .properties});</li>
 *   <li>subscriber identity: {@code DAR:<header name>} or a literal URI ({@code scheme:...}), or empty;</li>
 *   <li>routing region: {@code ORIGINATING}, {@code TERMINATING} or {@code NEUTRAL};</li>
 *   <li>route modifier: {@code NO_ROUTE}, {@code ROUTE}, {@code ROUTE_BACK} or {@code ROUTE_FINAL}; {@code ROUTE} and
 *       {@code ROUTE_FINAL} need a route;</li>
 *   <li>a quoted string may contain {@code \"} and {@code \\}.</li>
 * </ul>
 * Any other shape, an unknown keyword, or a method defined twice is refused with the line number and the reason.
 * <p>
 * Threading: immutable once built; shared by all shards.
 */
public final class DarConfiguration
{
    /** The system property naming the DAR file (JSR 289 Appendix C): a file path or a {@code file:} URI. */
    public static final String CONFIGURATION_PROPERTY = "javax.servlet.sip.ar.dar.configuration";

    private static final int FIELDS = 6;
    private static final DarConfiguration EMPTY = new DarConfiguration("(none)", Map.of());

    private final String source;
    private final Map<String, List<DarTuple>> tuplesByMethod;

    private DarConfiguration(final String source, final Map<String, List<DarTuple>> tuplesByMethod)
    {
        this.source = source;
        this.tuplesByMethod = tuplesByMethod;
    }

    /**
     * @return the configuration of a router started without a DAR file.
     */
    public static DarConfiguration empty()
    {
        return EMPTY;
    }

    /**
     * @param file a DAR file (UTF-8; ASCII in practice).
     * @return the parsed configuration.
     * @throws DarConfigurationException when the file cannot be read or a line is malformed.
     */
    public static DarConfiguration load(final Path file) throws DarConfigurationException
    {
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8))
        {
            return parse(reader, file.toString());
        }
        catch (final IOException ex)
        {
            throw new DarConfigurationException(file.toString(), 0, "cannot read: " + ex, ex);
        }
    }

    /**
     * @param text   DAR text.
     * @param source the name used in error messages.
     * @return the parsed configuration.
     * @throws DarConfigurationException when a line is malformed.
     */
    public static DarConfiguration parse(final String text, final String source) throws DarConfigurationException
    {
        try
        {
            return parse(new StringReader(text), source);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("reading a string failed", ex);
        }
    }

    /**
     * @param reader DAR text (not closed here).
     * @param source the name used in error messages.
     * @return the parsed configuration.
     * @throws DarConfigurationException when a line is malformed.
     * @throws IOException when the reader fails.
     */
    public static DarConfiguration parse(final Reader reader, final String source)
        throws DarConfigurationException, IOException
    {
        final BufferedReader lines = reader instanceof BufferedReader buffered ? buffered : new BufferedReader(reader);
        final Map<String, List<DarTuple>> byMethod = new LinkedHashMap<>();
        final Map<String, Integer> definedAt = new LinkedHashMap<>();
        final StringBuilder logical = new StringBuilder();
        int lineNumber = 0;
        int logicalStart = 0;
        String line;
        while (null != (line = lines.readLine()))
        {
            lineNumber++;
            if (logical.isEmpty())
            {
                final String stripped = line.strip();
                if (stripped.isEmpty() || stripped.startsWith("#") || stripped.startsWith("!"))
                {
                    continue;
                }
                logicalStart = lineNumber;
            }
            if (endsWithContinuation(line))
            {
                logical.append(line, 0, line.length() - 1);
                continue;
            }
            logical.append(line);
            addLine(source, logicalStart, logical.toString(), byMethod, definedAt);
            logical.setLength(0);
        }
        if (!logical.isEmpty())
        {
            addLine(source, logicalStart, logical.toString(), byMethod, definedAt);
        }
        return new DarConfiguration(source, freeze(byMethod));
    }

    /**
     * Builds a configuration from {@link Properties} already loaded (the form
     * {@link javax.servlet.sip.ar.SipApplicationRouter#init(Properties)} receives); line numbers are unknown, so
     * errors name the method instead.
     *
     * @param properties method to tuples.
     * @param source     the name used in error messages.
     * @return the parsed configuration.
     * @throws DarConfigurationException when a value is malformed.
     */
    public static DarConfiguration fromProperties(final Properties properties, final String source)
        throws DarConfigurationException
    {
        final Map<String, List<DarTuple>> byMethod = new LinkedHashMap<>();
        for (final String method : new TreeSet<>(properties.stringPropertyNames()))
        {
            checkMethod(source, 0, method);
            byMethod.put(method, new TupleParser(source, 0, method, properties.getProperty(method), 0).tuples());
        }
        return new DarConfiguration(source, freeze(byMethod));
    }

    /**
     * @return the file (or description) this configuration came from.
     */
    public String source()
    {
        return source;
    }

    /**
     * @return whether no method is configured (the router then gives every initial request to a sole application).
     */
    public boolean isEmpty()
    {
        return tuplesByMethod.isEmpty();
    }

    /**
     * @return the configured methods, in file order.
     */
    public Set<String> methods()
    {
        return tuplesByMethod.keySet();
    }

    /**
     * @param method a SIP method (case-sensitive, RFC 3261 §7.1).
     * @return its tuples in order, empty when the method is not configured.
     */
    public List<DarTuple> tuples(final String method)
    {
        final List<DarTuple> tuples = tuplesByMethod.get(method);
        return null == tuples ? List.of() : tuples;
    }

    @Override
    public String toString()
    {
        return "DarConfiguration{" + source + ", " + tuplesByMethod + '}';
    }

    private static boolean endsWithContinuation(final String line)
    {
        int backslashes = 0;
        for (int i = line.length() - 1; i >= 0 && '\\' == line.charAt(i); i--)
        {
            backslashes++;
        }
        return 1 == (backslashes & 1);
    }

    private static void addLine(
        final String source,
        final int line,
        final String text,
        final Map<String, List<DarTuple>> byMethod,
        final Map<String, Integer> definedAt) throws DarConfigurationException
    {
        final String content = text.strip();
        int separator = -1;
        for (int i = 0; i < content.length(); i++)
        {
            final char c = content.charAt(i);
            if (':' == c || '=' == c || Character.isWhitespace(c))
            {
                separator = i;
                break;
            }
        }
        if (separator <= 0)
        {
            throw new DarConfigurationException(source, line,
                "expected 'METHOD: (\"app\", \"DAR:From\", \"ORIGINATING\", \"\", \"NO_ROUTE\", \"0\")', found '"
                    + abbreviate(content) + '\'');
        }
        final String method = content.substring(0, separator);
        checkMethod(source, line, method);
        int valueStart = separator;
        while (valueStart < content.length() && Character.isWhitespace(content.charAt(valueStart)))
        {
            valueStart++;
        }
        if (valueStart < content.length() && (':' == content.charAt(valueStart) || '=' == content.charAt(valueStart)))
        {
            valueStart++;
        }
        else
        {
            throw new DarConfigurationException(source, line, "expected ':' or '=' after method " + method);
        }
        final Integer previous = definedAt.putIfAbsent(method, line);
        if (null != previous)
        {
            throw new DarConfigurationException(source, line,
                "method " + method + " is already defined at line " + previous + "; put all its tuples on one line");
        }
        byMethod.put(method, new TupleParser(source, line, method, content, valueStart).tuples());
    }

    private static void checkMethod(final String source, final int line, final String method)
        throws DarConfigurationException
    {
        for (int i = 0; i < method.length(); i++)
        {
            if (!isTokenChar(method.charAt(i)))
            {
                throw new DarConfigurationException(source, line,
                    "'" + method + "' is not a SIP method name (RFC 3261 token)");
            }
        }
    }

    private static boolean isTokenChar(final char c)
    {
        // RFC 3261 §25.1 token = 1*(alphanum / "-" / "." / "!" / "%" / "*" / "_" / "+" / "`" / "'" / "~")
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
            || "-.!%*_+`'~".indexOf(c) >= 0;
    }

    private static String abbreviate(final String text)
    {
        return text.length() > 60 ? text.substring(0, 57) + "..." : text;
    }

    private static Map<String, List<DarTuple>> freeze(final Map<String, List<DarTuple>> byMethod)
    {
        final Map<String, List<DarTuple>> frozen = new LinkedHashMap<>();
        byMethod.forEach((method, tuples) -> frozen.put(method, List.copyOf(tuples)));
        return Collections.unmodifiableMap(frozen);
    }

    /**
     * Parses the tuple list of one line with a cursor; every error names the column.
     */
    private static final class TupleParser
    {
        private final String source;
        private final int line;
        private final String method;
        private final String text;
        private int pos;

        TupleParser(final String source, final int line, final String method, final String text, final int start)
        {
            this.source = source;
            this.line = line;
            this.method = method;
            this.text = null == text ? "" : text;
            this.pos = start;
        }

        List<DarTuple> tuples() throws DarConfigurationException
        {
            final List<DarTuple> tuples = new ArrayList<>();
            skipSpace();
            if (pos >= text.length())
            {
                throw error("method " + method + " has no tuples");
            }
            while (true)
            {
                tuples.add(tuple(tuples.size() + 1));
                skipSpace();
                if (pos >= text.length())
                {
                    return tuples;
                }
                expect(',', "',' between tuples or the end of the line");
                skipSpace();
            }
        }

        private DarTuple tuple(final int ordinal) throws DarConfigurationException
        {
            final int tupleStart = pos;
            expect('(', "'(' starting tuple " + ordinal);
            final List<String> fields = new ArrayList<>(FIELDS);
            skipSpace();
            if (peek() != ')')
            {
                while (true)
                {
                    skipSpace();
                    fields.add(quoted());
                    skipSpace();
                    if (peek() == ',')
                    {
                        pos++;
                        continue;
                    }
                    break;
                }
            }
            expect(')', "',' or ')' in tuple " + ordinal);
            if (FIELDS != fields.size())
            {
                throw errorAt(tupleStart, "tuple " + ordinal + " has " + fields.size() + " fields, expected 6: "
                    + "(\"application name\", \"subscriber identity\", \"routing region\", \"route\", "
                    + "\"route modifier\", \"state info\")");
            }
            return toTuple(ordinal, tupleStart, fields);
        }

        private DarTuple toTuple(final int ordinal, final int at, final List<String> fields)
            throws DarConfigurationException
        {
            final String application = fields.get(0).strip();
            if (application.isEmpty())
            {
                throw errorAt(at, "tuple " + ordinal + " has an empty application name");
            }
            final String identity = fields.get(1).strip();
            String header = null;
            String uri = null;
            if (identity.regionMatches(true, 0, "DAR:", 0, 4))
            {
                header = identity.substring(4).strip();
                if (header.isEmpty() || !isHeaderName(header))
                {
                    throw errorAt(at, "tuple " + ordinal + ": subscriber identity '" + identity
                        + "' must be DAR:<header name>");
                }
            }
            else if (!identity.isEmpty())
            {
                if (!looksLikeUri(identity))
                {
                    throw errorAt(at, "tuple " + ordinal + ": subscriber identity '" + identity
                        + "' is neither DAR:<header name> nor a URI");
                }
                uri = identity;
            }
            final SipApplicationRoutingRegion region = region(ordinal, at, fields.get(2).strip());
            final String route = fields.get(3).strip();
            final DarRouteModifier modifier = modifier(ordinal, at, fields.get(4).strip());
            if (modifier.needsRoute() && route.isEmpty())
            {
                throw errorAt(at, "tuple " + ordinal + ": route modifier " + modifier + " needs a route");
            }
            if (!route.isEmpty() && !looksLikeUri(route))
            {
                throw errorAt(at, "tuple " + ordinal + ": route '" + route + "' is not a URI");
            }
            return new DarTuple(application, header, uri, region, route, modifier, fields.get(5).strip(), line);
        }

        private SipApplicationRoutingRegion region(final int ordinal, final int at, final String value)
            throws DarConfigurationException
        {
            return switch (value.toUpperCase(Locale.ROOT))
            {
                case "ORIGINATING" -> SipApplicationRoutingRegion.ORIGINATING_REGION;
                case "TERMINATING" -> SipApplicationRoutingRegion.TERMINATING_REGION;
                case "NEUTRAL" -> SipApplicationRoutingRegion.NEUTRAL_REGION;
                default -> throw errorAt(at, "tuple " + ordinal + ": routing region '" + value
                    + "' is not ORIGINATING, TERMINATING or NEUTRAL");
            };
        }

        private DarRouteModifier modifier(final int ordinal, final int at, final String value)
            throws DarConfigurationException
        {
            try
            {
                return DarRouteModifier.valueOf(value.toUpperCase(Locale.ROOT));
            }
            catch (final IllegalArgumentException ex)
            {
                throw errorAt(at, "tuple " + ordinal + ": route modifier '" + value
                    + "' is not NO_ROUTE, ROUTE, ROUTE_BACK or ROUTE_FINAL");
            }
        }

        private String quoted() throws DarConfigurationException
        {
            expect('"', "'\"' starting a quoted field");
            final StringBuilder value = new StringBuilder();
            while (pos < text.length())
            {
                final char c = text.charAt(pos++);
                if ('"' == c)
                {
                    return value.toString();
                }
                if ('\\' == c && pos < text.length())
                {
                    value.append(text.charAt(pos++));
                }
                else
                {
                    value.append(c);
                }
            }
            throw error("unterminated quoted field");
        }

        private void expect(final char c, final String what) throws DarConfigurationException
        {
            if (peek() != c)
            {
                throw error("expected " + what + ", found "
                    + (pos < text.length() ? "'" + text.charAt(pos) + "'" : "the end of the line"));
            }
            pos++;
        }

        private char peek()
        {
            return pos < text.length() ? text.charAt(pos) : '\0';
        }

        private void skipSpace()
        {
            while (pos < text.length() && Character.isWhitespace(text.charAt(pos)))
            {
                pos++;
            }
        }

        private DarConfigurationException error(final String reason)
        {
            return errorAt(pos, reason);
        }

        private DarConfigurationException errorAt(final int column, final String reason)
        {
            final String where = line > 0 ? "column " + (column + 1) + ": " : "method " + method + ": ";
            return new DarConfigurationException(source, line, where + reason);
        }

        private static boolean isHeaderName(final String name)
        {
            for (int i = 0; i < name.length(); i++)
            {
                if (!isTokenChar(name.charAt(i)))
                {
                    return false;
                }
            }
            return true;
        }

        private static boolean looksLikeUri(final String value)
        {
            // RFC 3986 §3.1 scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), then ':' and something
            final int colon = value.indexOf(':');
            if (colon <= 0 || colon == value.length() - 1 || !Character.isLetter(value.charAt(0)))
            {
                return false;
            }
            for (int i = 1; i < colon; i++)
            {
                final char c = value.charAt(i);
                if (!Character.isLetterOrDigit(c) && '+' != c && '-' != c && '.' != c)
                {
                    return false;
                }
            }
            return true;
        }
    }
}
