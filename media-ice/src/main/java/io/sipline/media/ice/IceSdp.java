package io.sipline.media.ice;

/**
 * Reads and writes the ICE SDP attributes of RFC 8839 §5: {@code candidate}, {@code ice-ufrag}, {@code ice-pwd},
 * {@code ice-options}, {@code ice-lite} and {@code end-of-candidates}. No regular expressions, no name resolution.
 *
 * <p>Grammar of §5.1 as parsed here:
 * <pre>
 * candidate-attribute = "candidate" ":" foundation SP component-id SP transport SP priority SP
 *                       connection-address SP port SP cand-type [SP rel-addr] [SP rel-port] *(SP cand-extension)
 * foundation = 1*32ice-char        component-id = 1*3DIGIT (1..256)     transport = "UDP" / token
 * priority = 1*10DIGIT (1..2^31-1) port = 1*5DIGIT (0..65535)          cand-type = "typ" SP candidate-types
 * rel-addr = "raddr" SP connection-address                           rel-port = "rport" SP port
 * cand-extension = extension-att-name SP extension-att-value
 * </pre>
 * Connection addresses are IPv4, IPv6 or FQDN. A transport other than UDP or an unknown candidate type throws an
 * {@link IceParseException} that {@linkplain IceParseException#isIgnorable() is ignorable}; anything else malformed
 * throws one with reason {@link IceParseException#MALFORMED}. No other exception escapes for any input string.
 *
 * <p>Stateless; thread-safe. Parsing allocates the candidate and its strings (once per candidate, never per packet).
 */
public final class IceSdp
{
    /** {@code ice-options:trickle} (RFC 8840 §4.1.1). */
    public static final int OPTION_TRICKLE = 1;
    /** {@code ice-options:ice2} (RFC 8445 §10: this agent implements RFC 8445, not only RFC 5245). */
    public static final int OPTION_ICE2 = 1 << 1;
    /** Set when an option tag other than the known ones was present (it is ignored, RFC 8839 §5.6). */
    public static final int OPTION_UNKNOWN = 1 << 31;

    private static final int MAX_FOUNDATION = 32;
    private static final int MIN_UFRAG = 4;
    private static final int MIN_PWD = 22;
    private static final int MAX_UFRAG_PWD = 256;

    private IceSdp()
    {
    }

    /**
     * Parses one candidate. Accepts {@code a=candidate:...}, {@code candidate:...} or the bare value, with an
     * optional trailing CRLF.
     *
     * @param line the attribute.
     * @return a new candidate; its base is its own address.
     * @throws IceParseException if malformed or unsupported; the message names the field.
     */
    public static IceCandidate parseCandidate(final CharSequence line) throws IceParseException
    {
        return parseCandidate(line, new IceCandidate());
    }

    /**
     * Parses one candidate into a reused instance (cleared first).
     *
     * @param line the attribute.
     * @param into receives the fields.
     * @return {@code into}.
     * @throws IceParseException if malformed or unsupported.
     */
    public static IceCandidate parseCandidate(final CharSequence line, final IceCandidate into) throws IceParseException
    {
        if (line == null)
        {
            throw malformed("candidate: null line");
        }
        into.clear();
        int end = line.length();
        while (end > 0 && (line.charAt(end - 1) == '\n' || line.charAt(end - 1) == '\r'))
        {
            end--;
        }
        int position = 0;
        if (startsWith(line, 0, end, "a="))
        {
            position = 2;
        }
        if (startsWith(line, position, end, "candidate:"))
        {
            position += "candidate:".length();
        }

        // foundation
        int stop = field(line, position, end, "foundation");
        final String foundation = foundation(line, position, stop);

        // component-id
        position = stop + 1;
        stop = field(line, position, end, "component-id");
        final long component = IceText.parseDigits(line, position, stop, 3);
        if (component < 1 || component > 256)
        {
            throw malformed("candidate: component-id is not a number in 1..256");
        }

        // transport
        position = stop + 1;
        stop = field(line, position, end, "transport");
        requireToken(line, position, stop, "candidate: transport is not a token");
        final boolean udp = IceText.regionEqualsIgnoreCase(line, position, stop, "UDP");
        final boolean lowerCase = IceText.regionEquals(line, position, stop, "udp");
        final int transportStart = position;
        final int transportEnd = stop;

        // priority
        position = stop + 1;
        stop = field(line, position, end, "priority");
        final long priority = IceText.parseDigits(line, position, stop, 10);
        if (priority < 1 || priority > Integer.MAX_VALUE)
        {
            throw malformed("candidate: priority is not a number in 1..2^31-1");
        }

        // connection-address
        position = stop + 1;
        stop = field(line, position, end, "connection-address");
        final int addressStart = position;
        final int addressEnd = stop;

        // port
        position = stop + 1;
        stop = field(line, position, end, "port");
        final int port = port(line, position, stop, "candidate: port is not a number in 0..65535");

        // "typ" SP cand-type
        position = stop + 1;
        stop = field(line, position, end, "typ");
        if (!IceText.regionEquals(line, position, stop, "typ"))
        {
            throw malformed("candidate: expected 'typ' after the port");
        }
        position = stop + 1;
        stop = field(line, position, end, "cand-type");
        requireToken(line, position, stop, "candidate: cand-type is not a token");
        final IceCandidateType type = IceCandidateType.fromSdp(line, position, stop);

        into.set(type == null ? IceCandidateType.HOST : type, (int) component, (int) priority, foundation);
        into.lowerCaseTransport(lowerCase);
        setAddress(into, line, addressStart, addressEnd, port, false, "connection-address");

        // [raddr] [rport] *(extension)
        position = related(line, stop + 1, end, into);
        if (position < end)
        {
            extensions(line, position, end, into);
        }
        if (!udp)
        {
            throw new IceParseException(IceParseException.UNSUPPORTED_TRANSPORT,
                "candidate: transport '" + line.subSequence(transportStart, transportEnd) + "' is not UDP; ignore");
        }
        if (type == null)
        {
            throw new IceParseException(IceParseException.UNSUPPORTED_TYPE, "candidate: unknown cand-type; ignore");
        }
        return into;
    }

    /** foundation = 1*32ice-char (RFC 8839 §5.1). */
    private static String foundation(final CharSequence line, final int position, final int stop)
        throws IceParseException
    {
        if (stop - position > MAX_FOUNDATION)
        {
            throw malformed("candidate: foundation longer than 32 characters");
        }
        for (int i = position; i < stop; i++)
        {
            if (!IceText.isIceChar(line.charAt(i)))
            {
                throw malformed("candidate: foundation has a character that is not an ice-char at " + i);
            }
        }
        return line.subSequence(position, stop).toString();
    }

    private static int port(final CharSequence line, final int from, final int to, final String message)
        throws IceParseException
    {
        final long value = IceText.parseDigits(line, from, to, 5);
        if (value < 0 || value > 65535)
        {
            throw malformed(message);
        }
        return (int) value;
    }

    private static void requireToken(final CharSequence line, final int from, final int to, final String message)
        throws IceParseException
    {
        for (int i = from; i < to; i++)
        {
            if (!IceText.isTokenChar(line.charAt(i)))
            {
                throw malformed(message);
            }
        }
    }

    /**
     * [SP rel-addr] [SP rel-port] (RFC 8839 §5.1), read into {@code into}.
     *
     * @return where the extensions start.
     */
    private static int related(final CharSequence line, final int from, final int end, final IceCandidate into)
        throws IceParseException
    {
        int position = from;
        int stop;
        if (position < end && startsWithField(line, position, end, "raddr"))
        {
            position += "raddr ".length();
            stop = field(line, position, end, "raddr");
            final int relStart = position;
            final int relEnd = stop;
            position = stop + 1;
            int relPort = 0;
            if (position < end && startsWithField(line, position, end, "rport"))
            {
                position += "rport ".length();
                stop = field(line, position, end, "rport");
                relPort = port(line, position, stop, "candidate: rport is not a number in 0..65535");
                position = stop + 1;
            }
            setAddress(into, line, relStart, relEnd, relPort, true, "raddr");
        }
        else if (position < end && startsWithField(line, position, end, "rport"))
        {
            throw malformed("candidate: rport without raddr");
        }
        return position;
    }

    /** *(SP extension-att-name SP extension-att-value) (RFC 8839 §5.1), kept as text in {@code into}. */
    private static void extensions(final CharSequence line, final int from, final int end, final IceCandidate into)
        throws IceParseException
    {
        int position = from;
        while (position < end)
        {
            int stop = field(line, position, end, "extension-att-name");
            requireToken(line, position, stop, "candidate: extension-att-name is not a token");
            if (stop >= end)
            {
                throw malformed("candidate: extension attribute without a value");
            }
            position = stop + 1;
            stop = field(line, position, end, "extension-att-value");
            for (int i = position; i < stop; i++)
            {
                final char c = line.charAt(i);
                if (c == 0 || c == '\r' || c == '\n')
                {
                    throw malformed("candidate: extension-att-value holds NUL, CR or LF");
                }
            }
            position = stop + 1;
        }
        into.extensions(line.subSequence(from, end).toString());
    }

    /**
     * Writes the attribute value {@code candidate:...} (without {@code a=} and line end).
     *
     * @param out       receives the text.
     * @param candidate the candidate.
     * @return {@code out}.
     */
    public static StringBuilder appendCandidate(final StringBuilder out, final IceCandidate candidate)
    {
        out.append("candidate:").append(candidate.foundation()).append(' ').append(candidate.componentId())
            .append(candidate.lowerCaseTransport() ? " udp " : " UDP ")
            .append(Integer.toUnsignedLong(candidate.priority())).append(' ');
        appendAddress(out, candidate.family(), candidate.addressHi(), candidate.addressLo(), candidate.fqdn());
        out.append(' ').append(candidate.port()).append(" typ ")
            .append(candidate.type() == null ? "host" : candidate.type().sdpName());
        if (candidate.relatedFamily() != IceCandidate.FAMILY_NONE)
        {
            out.append(" raddr ");
            appendAddress(out, candidate.relatedFamily(), candidate.relatedHi(), candidate.relatedLo(),
                candidate.relatedFqdn());
            out.append(" rport ").append(candidate.relatedPort());
        }
        if (candidate.extensions() != null && !candidate.extensions().isEmpty())
        {
            out.append(' ').append(candidate.extensions());
        }
        return out;
    }

    /**
     * Checks an {@code ice-ufrag} value: 4 to 256 ice-chars (RFC 8839 §5.4).
     *
     * @param value the value after {@code a=ice-ufrag:}.
     * @return {@code value}.
     * @throws IceParseException if it breaks the rule.
     */
    public static String checkUfrag(final CharSequence value) throws IceParseException
    {
        return checkIceChars(value, MIN_UFRAG, "ice-ufrag");
    }

    /**
     * Checks an {@code ice-pwd} value: 22 to 256 ice-chars (RFC 8839 §5.4).
     *
     * @param value the value after {@code a=ice-pwd:}.
     * @return {@code value}.
     * @throws IceParseException if it breaks the rule.
     */
    public static String checkPassword(final CharSequence value) throws IceParseException
    {
        return checkIceChars(value, MIN_PWD, "ice-pwd");
    }

    /**
     * Parses an {@code ice-options} value: {@code ice-option-tag *(SP ice-option-tag)}, each tag 1*ice-char
     * (RFC 8839 §5.6).
     *
     * @param value the value after {@code a=ice-options:}.
     * @return a mask of {@link #OPTION_TRICKLE}, {@link #OPTION_ICE2}, {@link #OPTION_UNKNOWN}.
     * @throws IceParseException if a tag is empty or holds a character that is not an ice-char.
     */
    public static int parseOptions(final CharSequence value) throws IceParseException
    {
        if (value == null || value.isEmpty())
        {
            throw malformed("ice-options: empty");
        }
        int mask = 0;
        int position = 0;
        final int end = value.length();
        while (position <= end)
        {
            int stop = position;
            while (stop < end && value.charAt(stop) != ' ')
            {
                if (!IceText.isIceChar(value.charAt(stop)))
                {
                    throw malformed("ice-options: a tag holds a character that is not an ice-char at " + stop);
                }
                stop++;
            }
            if (stop == position)
            {
                throw malformed("ice-options: empty tag at " + position);
            }
            if (IceText.regionEquals(value, position, stop, "trickle"))
            {
                mask |= OPTION_TRICKLE;
            }
            else if (IceText.regionEquals(value, position, stop, "ice2"))
            {
                mask |= OPTION_ICE2;
            }
            else
            {
                mask |= OPTION_UNKNOWN;
            }
            position = stop + 1;
        }
        return mask;
    }

    /**
     * Writes an {@code ice-options} value for a mask (unknown bits are not written).
     *
     * @return {@code out}.
     */
    public static StringBuilder appendOptions(final StringBuilder out, final int mask)
    {
        final int start = out.length();
        if ((mask & OPTION_TRICKLE) != 0)
        {
            out.append("trickle");
        }
        if ((mask & OPTION_ICE2) != 0)
        {
            out.append(out.length() > start ? " ice2" : "ice2");
        }
        return out;
    }

    static void appendAddress(final StringBuilder out, final byte family, final long hi, final long lo,
        final String fqdn)
    {
        switch (family)
        {
            case IceCandidate.FAMILY_IPV4:
                IceText.appendIpv4(out, lo);
                break;
            case IceCandidate.FAMILY_IPV6:
                IceText.appendIpv6(out, hi, lo);
                break;
            case IceCandidate.FAMILY_FQDN:
                out.append(fqdn);
                break;
            default:
                out.append("0.0.0.0");
                break;
        }
    }

    private static void setAddress(final IceCandidate into, final CharSequence line, final int start, final int end,
        final int port, final boolean related, final String name) throws IceParseException
    {
        final long v4 = IceText.parseIpv4(line, start, end);
        if (v4 >= 0)
        {
            if (related)
            {
                into.related(IceCandidate.FAMILY_IPV4, 0, v4, port);
            }
            else
            {
                into.address(IceCandidate.FAMILY_IPV4, 0, v4, port);
            }
            return;
        }
        boolean colon = false;
        for (int i = start; i < end && !colon; i++)
        {
            colon = line.charAt(i) == ':';
        }
        if (colon)
        {
            final long[] words = new long[2];
            if (!IceText.parseIpv6(line, start, end, words))
            {
                throw malformed("candidate: " + name + " is not a valid IPv6 address");
            }
            if (related)
            {
                into.related(IceCandidate.FAMILY_IPV6, words[0], words[1], port);
            }
            else
            {
                into.address(IceCandidate.FAMILY_IPV6, words[0], words[1], port);
            }
            return;
        }
        if (!IceText.isFqdn(line, start, end))
        {
            throw malformed("candidate: " + name + " is neither IPv4, IPv6 nor a host name");
        }
        final String host = line.subSequence(start, end).toString();
        if (related)
        {
            into.relatedFqdn(host, port);
        }
        else
        {
            into.fqdn(host, port);
        }
    }

    private static String checkIceChars(final CharSequence value, final int min, final String name)
        throws IceParseException
    {
        if (value == null)
        {
            throw malformed(name + ": missing");
        }
        final int length = value.length();
        if (length < min || length > MAX_UFRAG_PWD)
        {
            throw malformed(name + ": length " + length + " outside " + min + ".." + MAX_UFRAG_PWD);
        }
        for (int i = 0; i < length; i++)
        {
            if (!IceText.isIceChar(value.charAt(i)))
            {
                throw malformed(name + ": character at " + i + " is not an ice-char (ALPHA / DIGIT / + / /)");
            }
        }
        return value.toString();
    }

    /** Index of the SP ending a non-empty field starting at {@code position}, or {@code end}. */
    private static int field(final CharSequence line, final int position, final int end, final String name)
        throws IceParseException
    {
        if (position >= end)
        {
            throw malformed("candidate: missing " + name);
        }
        int stop = position;
        while (stop < end && line.charAt(stop) != ' ')
        {
            stop++;
        }
        if (stop == position)
        {
            throw malformed("candidate: empty " + name + " (two spaces?) at " + position);
        }
        return stop;
    }

    private static boolean startsWith(final CharSequence line, final int position, final int end, final String prefix)
    {
        return end - position >= prefix.length() && IceText.regionEquals(line, position, position + prefix.length(),
            prefix);
    }

    private static boolean startsWithField(final CharSequence line, final int position, final int end,
        final String name)
    {
        return end - position > name.length() && startsWith(line, position, end, name)
            && line.charAt(position + name.length()) == ' ';
    }

    private static IceParseException malformed(final String message)
    {
        return new IceParseException(IceParseException.MALFORMED, message);
    }
}
