package io.sipline.container.router;

import java.io.Serial;

/**
 * A default application router configuration (DAR file) that cannot be used: names the file, the line and what is
 * wrong, so that the server refuses to start with one clear line.
 * <p>
 * Threading: immutable once thrown.
 */
public final class DarConfigurationException extends Exception
{
    @Serial
    private static final long serialVersionUID = 1L;

    private final String source;
    private final int line;
    private final String reason;

    /**
     * @param source the file name.
     * @param line   the 1-based line, or 0 when unknown (configuration given as {@link java.util.Properties}).
     * @param reason what is wrong.
     */
    public DarConfigurationException(final String source, final int line, final String reason)
    {
        this(source, line, reason, null);
    }

    /**
     * @param source the file name.
     * @param line   the 1-based line, or 0 when unknown.
     * @param reason what is wrong.
     * @param cause  the underlying failure, or {@code null}.
     */
    public DarConfigurationException(final String source, final int line, final String reason, final Throwable cause)
    {
        super(line > 0 ? source + ':' + line + ": " + reason : source + ": " + reason, cause);
        this.source = source;
        this.line = line;
        this.reason = reason;
    }

    /**
     * @return the file name.
     */
    public String source()
    {
        return source;
    }

    /**
     * @return the 1-based line, or 0 when unknown.
     */
    public int line()
    {
        return line;
    }

    /**
     * @return what is wrong, without the prefix.
     */
    public String reason()
    {
        return reason;
    }
}
