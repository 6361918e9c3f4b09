package io.sipline.media.sdp;

/**
 * One {@code a=} line (RFC 8866 §5.13): a property attribute ({@code a=rtcp-mux}, value null) or a value attribute
 * ({@code a=rtpmap:0 PCMU/8000}, value {@code "0 PCMU/8000"}).
 *
 * @param name  the attribute name, as written.
 * @param value what follows the first colon, or null for a property attribute.
 */
public record SdpAttribute(String name, String value)
{
    /**
     * @param name  the attribute name.
     * @param value the value or null.
     */
    public SdpAttribute
    {
        if (null == name || name.isEmpty())
        {
            throw new SdpException("a=: empty attribute name");
        }
    }

    /**
     * @param out receives {@code a=name[:value]} and CRLF.
     */
    void appendTo(final StringBuilder out)
    {
        out.append("a=").append(name);
        if (null != value)
        {
            out.append(':').append(value);
        }
        out.append("\r\n");
    }
}
