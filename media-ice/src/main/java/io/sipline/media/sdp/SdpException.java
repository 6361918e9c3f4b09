package io.sipline.media.sdp;

/**
 * A session description that cannot be used: malformed (RFC 8866 §9 grammar), or a valid one that the media service
 * cannot anchor (an answer that does not match its offer, RFC 3264 §6). The signalling side answers it with 488 Not
 * Acceptable Here. The message names the line and what is wrong.
 */
public final class SdpException extends IllegalArgumentException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong, naming the line.
     */
    public SdpException(final String message)
    {
        super(message);
    }
}
