package io.sipline.media.sdp;

import java.util.ArrayList;
import java.util.List;

/**
 * A session description (RFC 8866), as much of it as anchoring media needs: the origin, the session-level connection,
 * bandwidth, timing and attributes, and the media sections in order. Lines of other types ({@code i=}, {@code u=},
 * {@code e=}, {@code p=}, {@code k=}) are kept at session level as written; media-level ones are dropped.
 * <pre>
 *   v=0
 *   o=- 4242 1 IN IP4 192.0.2.1       username sess-id sess-version nettype addrtype address
 *   s=-
 *   c=IN IP4 192.0.2.1
 *   t=0 0
 *   a=...                             session attributes
 *   m=...                             media sections, each with its c=, b= and a= lines
 * </pre>
 * {@link #parse(String)} accepts CRLF or LF line ends (RFC 8866 §5: a parser should accept LF) and throws only
 * {@link SdpException}; {@link #format()} writes CRLF.
 *
 * <p>Mutable; not thread-safe. Made per offer or answer, never per packet.
 */
public final class SessionDescription
{
    private static final int MAX_LENGTH = 64 * 1024;
    private static final int MAX_MEDIA = 64;

    private String origin = "- 0 0 IN IP4 0.0.0.0";
    private String sessionName = "-";
    private final List<String> otherLines = new ArrayList<>();
    private SdpConnection connection;
    private final List<String> bandwidths = new ArrayList<>();
    private final List<String> timing = new ArrayList<>(List.of("t=0 0"));
    private final List<SdpAttribute> attributes = new ArrayList<>();
    private final List<MediaDescription> media = new ArrayList<>();

    /**
     * Parses a session description.
     *
     * @param sdp the text.
     * @return the description.
     * @throws SdpException when malformed: the message names the line.
     */
    public static SessionDescription parse(final String sdp)
    {
        if (null == sdp || sdp.isBlank())
        {
            throw new SdpException("empty session description");
        }
        if (sdp.length() > MAX_LENGTH)
        {
            throw new SdpException("session description over " + MAX_LENGTH + " characters");
        }
        final SessionDescription d = new SessionDescription();
        d.timing.clear();
        MediaDescription current = null;
        boolean sawVersion = false;
        boolean sawOrigin = false;
        for (final String raw : sdp.split("\r?\n"))
        {
            if (raw.isEmpty())
            {
                continue;
            }
            if (raw.length() < 2 || '=' != raw.charAt(1))
            {
                throw new SdpException("'" + shorten(raw) + "' is not a type=value line");
            }
            final char type = raw.charAt(0);
            final String value = raw.substring(2);
            if (!sawVersion)
            {
                if ('v' != type || !"0".equals(value.trim()))
                {
                    throw new SdpException("the first line must be v=0, not '" + shorten(raw) + "'");
                }
                sawVersion = true;
                continue;
            }
            if ('m' == type)
            {
                if (d.media.size() == MAX_MEDIA)
                {
                    throw new SdpException("more than " + MAX_MEDIA + " m= lines");
                }
                current = MediaDescription.parseMediaLine(value);
                d.media.add(current);
            }
            else if (null != current)
            {
                mediaLine(current, type, value);
            }
            else
            {
                sawOrigin |= d.sessionLine(type, value, raw);
            }
        }
        if (!sawOrigin)
        {
            throw new SdpException("no o= line");
        }
        if (d.timing.isEmpty())
        {
            d.timing.add("t=0 0");
        }
        return d;
    }

    private boolean sessionLine(final char type, final String value, final String raw)
    {
        switch (type)
        {
            case 'o' ->
            {
                if (value.trim().split(" +").length != 6)
                {
                    throw new SdpException("o=" + shorten(value) + ": needs six fields");
                }
                origin = value.trim();
                return true;
            }
            case 's' -> sessionName = value;
            case 'c' -> connection = SdpConnection.parse(value);
            case 'b' -> bandwidths.add(value);
            case 't', 'r', 'z' -> timing.add(raw);
            case 'a' -> attributes.add(parseAttribute(value));
            default -> otherLines.add(raw);
        }
        return false;
    }

    private static void mediaLine(final MediaDescription m, final char type, final String value)
    {
        switch (type)
        {
            case 'c' -> m.connection(SdpConnection.parse(value));
            case 'b' -> m.bandwidths().add(value);
            case 'a' -> m.attributes().add(parseAttribute(value));
            default ->
            {
                // i= and k= at media level: not needed to anchor media, not passed on.
            }
        }
    }

    private static SdpAttribute parseAttribute(final String value)
    {
        final int colon = value.indexOf(':');
        return colon < 0 ? new SdpAttribute(value.trim(), null)
            : new SdpAttribute(value.substring(0, colon).trim(), value.substring(colon + 1));
    }

    private static String shorten(final String s)
    {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }

    /** @return the {@code o=} value (six fields). */
    public String origin()
    {
        return origin;
    }

    /**
     * @param username    the user name, {@code -} for none.
     * @param sessionId   the session id.
     * @param version     the session version, increased by one on every change (RFC 3264 §8).
     * @param connection  the address of the origin.
     * @return this.
     */
    public SessionDescription origin(final String username, final long sessionId, final long version,
        final SdpConnection connection)
    {
        origin = username + ' ' + sessionId + ' ' + version + " IN " + connection.addressType() + ' ' +
            connection.address();
        return this;
    }

    /** @return the {@code s=} value. */
    public String sessionName()
    {
        return sessionName;
    }

    /** @return the session-level connection, or null. */
    public SdpConnection connection()
    {
        return connection;
    }

    /**
     * @param connection the session-level {@code c=} line, or null.
     * @return this.
     */
    public SessionDescription connection(final SdpConnection connection)
    {
        this.connection = connection;
        return this;
    }

    /**
     * @param m a media section of this description.
     * @return its connection: the media-level one, else the session-level one, else null.
     */
    public SdpConnection connectionOf(final MediaDescription m)
    {
        return null != m.connection() ? m.connection() : connection;
    }

    /** @return the session-level {@code b=} values, modifiable. */
    public List<String> bandwidths()
    {
        return bandwidths;
    }

    /** @return the session-level attributes, modifiable. */
    public List<SdpAttribute> attributes()
    {
        return attributes;
    }

    /**
     * @param name an attribute name.
     * @return the value of the first session-level attribute of that name ({@code ""} for a property), or null.
     */
    public String attribute(final String name)
    {
        for (final SdpAttribute a : attributes)
        {
            if (a.name().equalsIgnoreCase(name))
            {
                return null == a.value() ? "" : a.value();
            }
        }
        return null;
    }

    /** @return the session-level direction attribute, or null when none is given. */
    public String direction()
    {
        for (final SdpAttribute a : attributes)
        {
            if (null == a.value() && MediaDescription.DIRECTIONS.contains(a.name()))
            {
                return a.name();
            }
        }
        return null;
    }

    /** @return the media sections in order, modifiable. */
    public List<MediaDescription> media()
    {
        return media;
    }

    /** @return the description as SDP text with CRLF line ends. */
    public String format()
    {
        final StringBuilder out = new StringBuilder(512);
        out.append("v=0\r\no=").append(origin).append("\r\ns=").append(sessionName).append("\r\n");
        for (final String line : otherLines)
        {
            out.append(line).append("\r\n");
        }
        if (null != connection)
        {
            connection.appendTo(out);
        }
        for (final String b : bandwidths)
        {
            out.append("b=").append(b).append("\r\n");
        }
        for (final String t : timing)
        {
            out.append(t).append("\r\n");
        }
        for (final SdpAttribute a : attributes)
        {
            a.appendTo(out);
        }
        for (final MediaDescription m : media)
        {
            m.appendTo(out);
        }
        return out.toString();
    }

    @Override
    public String toString()
    {
        return format();
    }
}
