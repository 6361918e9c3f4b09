package io.sipline.container.security;

/**
 * A users file that cannot be used: names the file and, when known, the line, and says what is wrong, so the server
 * can print one error line and exit.
 * <p>
 * The message has the shape {@code <source>:<line>: <reason>} (or {@code <source>: <reason>} without a line).
 * <p>
 * Threading: immutable once thrown.
 */
public final class UsersFileException extends Exception
{
    private static final long serialVersionUID = 1L;

    /** Line value meaning "no line number is known". */
    public static final int NO_LINE = -1;

    private final String source;
    private final int line;
    private final String reason;

    /**
     * @param source the file.
     * @param line   the 1-based line, or {@link #NO_LINE}.
     * @param reason what is wrong.
     * @param cause  the underlying failure, or {@code null}.
     */
    public UsersFileException(final String source, final int line, final String reason, final Throwable cause)
    {
        super(NO_LINE == line ? source + ": " + reason : source + ":" + line + ": " + reason, cause);
        this.source = source;
        this.line = line;
        this.reason = reason;
    }

    /**
     * @return the file.
     */
    public String source()
    {
        return source;
    }

    /**
     * @return the 1-based line, or {@link #NO_LINE}.
     */
    public int line()
    {
        return line;
    }

    /**
     * @return what is wrong.
     */
    public String reason()
    {
        return reason;
    }
}
