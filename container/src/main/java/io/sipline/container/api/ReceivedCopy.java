package io.sipline.container.api;

import java.util.Arrays;

import io.sipline.sip.message.SipMessage;

/**
 * The arrays a received message is copied into, since the buffer it was parsed in is the transport's and is reused:
 * its head (start line and header section, up to and including the empty line) with room after it for the header
 * section's index ({@link MessageHeaders#of}), and its body (RFC 3261 §7.4: the Content-Length bytes after the empty
 * line) as an array of exactly its length, which {@code getRawContent()} returns as is and a B2BUA relays as is with
 * {@code setContent}. A message without a body gets no body array.
 * <p>
 * Stateless; called on the thread that received the message, while its buffer is borrowed.
 */
final class ReceivedCopy
{
    private ReceivedCopy()
    {
    }

    /** The bytes of {@code message}'s head: where its body starts, or its whole frame when it has none. */
    static int headLength(final SipMessage message)
    {
        if (message.bodyLength() > 0)
        {
            return message.bodyStart() - message.offset();
        }
        return message.frameLength() > 0 ? message.frameLength() : message.length();
    }

    /** An exact copy of {@code message}'s head, and room after it for its header section's index. */
    static byte[] head(final SipMessage message)
    {
        final int len = headLength(message);
        final byte[] out = new byte[len + MessageHeaders.tailBytes(message.headerCount())];
        System.arraycopy(message.buffer(), message.offset(), out, 0, len);
        return out;
    }

    /** An exact copy of {@code message}'s body, or null when it has none. */
    static byte[] body(final SipMessage message)
    {
        final int start = message.bodyStart();
        return message.bodyLength() > 0 ? Arrays.copyOfRange(message.buffer(), start, start + message.bodyLength())
            : null;
    }
}
