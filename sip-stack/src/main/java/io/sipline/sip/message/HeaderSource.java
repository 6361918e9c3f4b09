package io.sipline.sip.message;

/**
 * Read access to the header entries of a parsed message, wherever its bytes are kept: the stack's {@link SipMessage}
 * flyweight over a receive buffer, or a transaction user's own copy of a received message. One entry per header
 * value as parsed (a comma-separated list is several entries), indexes from 0.
 * <p>
 * Borrowed by whoever reads it, for the duration of one call; implementations are not thread-safe.
 */
public interface HeaderSource
{
    /** The bytes the value positions index. */
    byte[] buffer();

    /** Index of the first entry of a known header, or -1. */
    int firstHeader(HeaderName name);

    /** Index of the next entry of the same known header after entry {@code after}, or -1. */
    int nextHeader(HeaderName name, int after);

    /** Where entry {@code i}'s value starts in {@link #buffer()}; -1 when it has no bytes there (edited as text). */
    int headerValueStart(int i);

    /** Where entry {@code i}'s value ends (exclusive) in {@link #buffer()}; -1 as {@link #headerValueStart}. */
    int headerValueEnd(int i);
}
