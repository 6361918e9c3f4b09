package io.sipline.media.ice;

/**
 * The non-candidate ICE attributes of one SDP description (RFC 8839 §5.2-§5.6): {@code ice-ufrag}, {@code ice-pwd},
 * {@code ice-pacing}, {@code ice-options}, {@code ice-lite} and {@code end-of-candidates}. Feed each {@code a=} line
 * to {@link #accept}; session-level values apply to every media section that does not override them (the caller
 * keeps one instance per level).
 *
 * <p>Not thread-safe; owned by one media thread.
 */
public final class IceSessionAttributes
{
    private String ufrag;
    private String password;
    private int options;
    private long pacingMs;
    private boolean lite;
    private boolean endOfCandidates;

    /**
     * Reads one attribute line if it is one of ours.
     *
     * @param line {@code a=name[:value]}, with or without {@code a=} and CRLF.
     * @return whether the line was an ICE attribute handled here ({@code candidate} lines are not: use
     * {@link IceSdp#parseCandidate}).
     * @throws IceParseException if it is ours and malformed.
     */
    public boolean accept(final String line) throws IceParseException
    {
        int end = line.length();
        while (end > 0 && (line.charAt(end - 1) == '\n' || line.charAt(end - 1) == '\r'))
        {
            end--;
        }
        final int start = line.startsWith("a=") ? 2 : 0;
        if (line.startsWith("ice-ufrag:", start))
        {
            ufrag = IceSdp.checkUfrag(line.substring(start + "ice-ufrag:".length(), end));
            return true;
        }
        if (line.startsWith("ice-pwd:", start))
        {
            password = IceSdp.checkPassword(line.substring(start + "ice-pwd:".length(), end));
            return true;
        }
        if (line.startsWith("ice-pacing:", start))
        {
            // RFC 8839 §5.5: ice-pacing-att = "ice-pacing:" pacing-value; pacing-value = 1*10DIGIT (milliseconds)
            final long value = IceText.parseDigits(line, start + "ice-pacing:".length(), end, 10);
            if (value < 0)
            {
                throw new IceParseException(IceParseException.MALFORMED, "ice-pacing is not 1 to 10 digits");
            }
            pacingMs = value;
            return true;
        }
        if (line.startsWith("ice-options:", start))
        {
            options |= IceSdp.parseOptions(line.substring(start + "ice-options:".length(), end));
            return true;
        }
        if (IceText.regionEquals(line, start, end, "ice-lite"))
        {
            lite = true;
            return true;
        }
        if (IceText.regionEquals(line, start, end, "end-of-candidates"))
        {
            endOfCandidates = true;
            return true;
        }
        return false;
    }

    /**
     * Writes the attributes set here as {@code a=} lines ending in CRLF.
     *
     * @return {@code out}.
     */
    public StringBuilder append(final StringBuilder out)
    {
        if (lite)
        {
            out.append("a=ice-lite\r\n");
        }
        if (ufrag != null)
        {
            out.append("a=ice-ufrag:").append(ufrag).append("\r\n");
        }
        if (password != null)
        {
            out.append("a=ice-pwd:").append(password).append("\r\n");
        }
        if (pacingMs > 0)
        {
            out.append("a=ice-pacing:").append(pacingMs).append("\r\n");
        }
        if ((options & (IceSdp.OPTION_TRICKLE | IceSdp.OPTION_ICE2)) != 0)
        {
            IceSdp.appendOptions(out.append("a=ice-options:"), options).append("\r\n");
        }
        if (endOfCandidates)
        {
            out.append("a=end-of-candidates\r\n");
        }
        return out;
    }

    public String ufrag()
    {
        return ufrag;
    }

    public void ufrag(final String value) throws IceParseException
    {
        ufrag = IceSdp.checkUfrag(value);
    }

    public String password()
    {
        return password;
    }

    public void password(final String value) throws IceParseException
    {
        password = IceSdp.checkPassword(value);
    }

    /**
     * @return a mask of {@link IceSdp#OPTION_TRICKLE}, {@link IceSdp#OPTION_ICE2}, {@link IceSdp#OPTION_UNKNOWN}.
     */
    public int options()
    {
        return options;
    }

    public void options(final int mask)
    {
        options = mask;
    }

    /**
     * @return the {@code ice-pacing} value in milliseconds, or 0 when absent (RFC 8839 §5.5: the default, 50 ms, then
     *         stands for it).
     */
    public long pacingMs()
    {
        return pacingMs;
    }

    /** @param value the {@code ice-pacing} to write, in milliseconds; 0 writes none. */
    public void pacingMs(final long value)
    {
        pacingMs = Math.max(0, value);
    }

    public boolean lite()
    {
        return lite;
    }

    public void lite(final boolean value)
    {
        lite = value;
    }

    public boolean endOfCandidates()
    {
        return endOfCandidates;
    }

    public void endOfCandidates(final boolean value)
    {
        endOfCandidates = value;
    }
}
