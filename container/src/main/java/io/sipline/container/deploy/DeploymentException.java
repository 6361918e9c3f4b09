package io.sipline.container.deploy;

import java.io.Serial;

/**
 * An application that cannot be deployed: names the file (and, when known, the line or the class) and says what is
 * wrong, so that the server can print one error line and keep serving the other applications.
 * <p>
 * The message has the shape {@code <source>:<line>: <reason>} when the line is known, {@code <source>: <reason>}
 * otherwise; {@link #source()}, {@link #line()} and {@link #reason()} give the parts.
 * <p>
 * Threading: immutable once thrown.
 */
public final class DeploymentException extends Exception
{
    @Serial
    private static final long serialVersionUID = 1L;

    /** Line value meaning "no line number is known". */
    public static final int NO_LINE = -1;

    private final String source;
    private final int line;
    private final String reason;

    /**
     * @param source the file (or archive entry, or class) that is wrong.
     * @param line   the 1-based line number, or {@link #NO_LINE}.
     * @param reason what is wrong, in a few words.
     */
    public DeploymentException(final String source, final int line, final String reason)
    {
        this(source, line, reason, null);
    }

    /**
     * @param source the file (or archive entry, or class) that is wrong.
     * @param line   the 1-based line number, or {@link #NO_LINE}.
     * @param reason what is wrong, in a few words.
     * @param cause  the underlying failure, or {@code null}.
     */
    public DeploymentException(final String source, final int line, final String reason, final Throwable cause)
    {
        super(format(source, line, reason), cause);
        this.source = source;
        this.line = line;
        this.reason = reason;
    }

    /**
     * @param source the file (or archive entry, or class) that is wrong.
     * @param reason what is wrong.
     */
    public DeploymentException(final String source, final String reason)
    {
        this(source, NO_LINE, reason, null);
    }

    /**
     * @return the file, archive entry or class that is wrong.
     */
    public String source()
    {
        return source;
    }

    /**
     * @return the 1-based line number, or {@link #NO_LINE}.
     */
    public int line()
    {
        return line;
    }

    /**
     * @return what is wrong, without the source and line prefix.
     */
    public String reason()
    {
        return reason;
    }

    private static String format(final String source, final int line, final String reason)
    {
        return line > 0 ? source + ':' + line + ": " + reason : source + ": " + reason;
    }
}
