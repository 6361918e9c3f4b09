package io.sipline.media.sdp;

import java.util.ArrayList;
import java.util.List;

/**
 * One media section (RFC 8866 §5.14): its {@code m=} line, its optional {@code c=} line, its {@code b=} lines and its
 * attributes in order. The attributes that anchoring reads have helpers: {@code rtpmap}/{@code fmtp} (RFC 8866
 * §6.6, §6.15), {@code crypto} (RFC 4568), {@code rtcp} (RFC 3605), {@code rtcp-mux} (RFC 5761), the direction
 * (RFC 3264 §5.1) and the ICE and DTLS attributes, which are kept as lines for whoever reads them.
 * <pre>
 *   m=audio 49170 RTP/AVP 0 8 101        media port[/count] proto fmt...
 *   c=IN IP4 192.0.2.1                   optional, overrides the session's
 *   a=rtpmap:101 telephone-event/8000
 * </pre>
 *
 * <p>Mutable; not thread-safe. Made per offer or answer, never per packet.
 */
public final class MediaDescription
{
    /** The direction attributes of RFC 3264 §5.1 / RFC 8866 §6.7. */
    public static final List<String> DIRECTIONS = List.of("sendrecv", "sendonly", "recvonly", "inactive");

    private String media;
    private int port;
    private int portCount;
    private String proto;
    private final List<String> formats = new ArrayList<>();
    private SdpConnection connection;
    private final List<String> bandwidths = new ArrayList<>();
    private final List<SdpAttribute> attributes = new ArrayList<>();

    /**
     * @param media  {@code audio}, {@code video}, {@code application}, ...
     * @param port   the transport port, 0 for a rejected or disabled stream.
     * @param proto  {@code RTP/AVP}, {@code RTP/SAVP}, {@code UDP/TLS/RTP/SAVPF}, ...
     * @param formats payload types (or other format descriptions).
     */
    public MediaDescription(final String media, final int port, final String proto, final List<String> formats)
    {
        this.media = media;
        port(port);
        this.proto = proto;
        this.formats.addAll(formats);
    }

    /**
     * Parses the value of an {@code m=} line.
     *
     * @param value for example {@code audio 49170 RTP/AVP 0 8 101}.
     * @return the media section, without attributes yet.
     * @throws SdpException naming the field that is wrong.
     */
    static MediaDescription parseMediaLine(final String value)
    {
        final String[] f = value.trim().split(" +");
        if (f.length < 3)
        {
            throw new SdpException("m=" + value + ": needs media, port and proto");
        }
        final String portText = f[1];
        final int slash = portText.indexOf('/');
        final int port = number(slash < 0 ? portText : portText.substring(0, slash), 65535, "m= port", value);
        final MediaDescription m = new MediaDescription(f[0], port, f[2], List.of(f).subList(3, f.length));
        if (slash >= 0)
        {
            m.portCount = number(portText.substring(slash + 1), 65535, "m= port count", value);
        }
        return m;
    }

    static int number(final String text, final int max, final String what, final String line)
    {
        if (text.isEmpty() || text.length() > 10)
        {
            throw new SdpException(what + " in '" + line + "' is not a number");
        }
        long v = 0;
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c < '0' || c > '9')
            {
                throw new SdpException(what + " in '" + line + "' is not a number");
            }
            v = v * 10 + (c - '0');
        }
        if (v > max)
        {
            throw new SdpException(what + " in '" + line + "' is over " + max);
        }
        return (int)v;
    }

    /** @return the media type ({@code audio}, {@code video}, ...). */
    public String media()
    {
        return media;
    }

    /** @return the port of the {@code m=} line; 0 means the stream is rejected or disabled (RFC 3264 §6). */
    public int port()
    {
        return port;
    }

    /**
     * @param port the new port, 0 to 65535.
     * @return this.
     */
    public MediaDescription port(final int port)
    {
        if (port < 0 || port > 65535)
        {
            throw new SdpException("m= port " + port + " is not within 0-65535");
        }
        this.port = port;
        return this;
    }

    /** @return the transport protocol of the {@code m=} line. */
    public String proto()
    {
        return proto;
    }

    /**
     * @param proto the new transport protocol.
     * @return this.
     */
    public MediaDescription proto(final String proto)
    {
        this.proto = proto;
        return this;
    }

    /** @return the formats (payload types for RTP), modifiable. */
    public List<String> formats()
    {
        return formats;
    }

    /** @return the media-level connection, or null when the session's applies. */
    public SdpConnection connection()
    {
        return connection;
    }

    /**
     * @param connection the media-level {@code c=} line, or null.
     * @return this.
     */
    public MediaDescription connection(final SdpConnection connection)
    {
        this.connection = connection;
        return this;
    }

    /** @return the {@code b=} line values, modifiable. */
    public List<String> bandwidths()
    {
        return bandwidths;
    }

    /** @return the attributes in order, modifiable. */
    public List<SdpAttribute> attributes()
    {
        return attributes;
    }

    /**
     * @param name an attribute name.
     * @return the value of the first attribute of that name ({@code ""} for a property attribute), or null.
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

    /**
     * @param name an attribute name.
     * @return the values of every attribute of that name, in order.
     */
    public List<String> attributes(final String name)
    {
        final List<String> values = new ArrayList<>();
        for (final SdpAttribute a : attributes)
        {
            if (a.name().equalsIgnoreCase(name))
            {
                values.add(null == a.value() ? "" : a.value());
            }
        }
        return values;
    }

    /**
     * @param name  the attribute name.
     * @param value the value, or null for a property attribute.
     * @return this.
     */
    public MediaDescription add(final String name, final String value)
    {
        attributes.add(new SdpAttribute(name, value));
        return this;
    }

    /**
     * @param name removes every attribute of this name.
     * @return this.
     */
    public MediaDescription remove(final String name)
    {
        attributes.removeIf(a -> a.name().equalsIgnoreCase(name));
        return this;
    }

    /** @return whether {@code a=rtcp-mux} is present (RFC 5761 §5.1.1). */
    public boolean rtcpMux()
    {
        return null != attribute("rtcp-mux");
    }

    /**
     * @return the RTCP port of {@code a=rtcp} (RFC 3605 §2.1), or the RTP port plus one when absent (RFC 3550 §11).
     */
    public int rtcpPort()
    {
        final String rtcp = attribute("rtcp");
        if (null == rtcp)
        {
            return 0 == port ? 0 : port + 1;
        }
        final String trimmed = rtcp.trim();
        final int space = trimmed.indexOf(' ');
        return number(space < 0 ? trimmed : trimmed.substring(0, space), 65535, "a=rtcp port", "a=rtcp:" + rtcp);
    }

    /**
     * @return the address of {@code a=rtcp:port IN IP4 addr} (RFC 3605 §2.1), or null when it names none.
     */
    public String rtcpAddress()
    {
        final String rtcp = attribute("rtcp");
        if (null == rtcp)
        {
            return null;
        }
        final String[] f = rtcp.trim().split(" +");
        return 4 == f.length ? f[3] : null;
    }

    /**
     * @param sessionDirection the session-level direction, or null.
     * @return the direction attribute that applies (RFC 3264 §5.1: media-level over session-level, sendrecv by
     * default).
     */
    public String direction(final String sessionDirection)
    {
        for (final SdpAttribute a : attributes)
        {
            if (null == a.value() && DIRECTIONS.contains(a.name()))
            {
                return a.name();
            }
        }
        return null == sessionDirection ? "sendrecv" : sessionDirection;
    }

    /**
     * @param payloadType an RTP payload type of this section.
     * @return the encoding of its {@code a=rtpmap} ({@code "opus/48000/2"}), or null when none is given.
     */
    public String rtpmap(final String payloadType)
    {
        return valueFor("rtpmap", payloadType);
    }

    /**
     * @param payloadType an RTP payload type of this section.
     * @return the parameters of its {@code a=fmtp} ({@code "0-16"}), or null when none is given.
     */
    public String fmtp(final String payloadType)
    {
        return valueFor("fmtp", payloadType);
    }

    private String valueFor(final String name, final String payloadType)
    {
        for (final SdpAttribute a : attributes)
        {
            final String v = a.value();
            if (a.name().equalsIgnoreCase(name) && null != v && v.startsWith(payloadType) &&
                v.length() > payloadType.length() && ' ' == v.charAt(payloadType.length()))
            {
                return v.substring(payloadType.length() + 1).trim();
            }
        }
        return null;
    }

    /** @return whether the proto is RTP-based (RFC 8866 §5.14: {@code RTP/...} or {@code .../RTP/...}). */
    public boolean isRtp()
    {
        return proto.startsWith("RTP/") || proto.contains("/RTP/");
    }

    /**
     * @param out receives the section's lines, CRLF-terminated, in the order of RFC 8866 §5.
     */
    void appendTo(final StringBuilder out)
    {
        out.append("m=").append(media).append(' ').append(port);
        if (portCount > 0)
        {
            out.append('/').append(portCount);
        }
        out.append(' ').append(proto);
        for (final String format : formats)
        {
            out.append(' ').append(format);
        }
        out.append("\r\n");
        if (null != connection)
        {
            connection.appendTo(out);
        }
        for (final String b : bandwidths)
        {
            out.append("b=").append(b).append("\r\n");
        }
        for (final SdpAttribute a : attributes)
        {
            a.appendTo(out);
        }
    }
}
