package io.sipline.container.api;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Header values so common that reading one from a received message's bytes returns a String made once, instead of a
 * new String per message and a slot to cache it in: the Content-Type of SDP bodies (RFC 3264 offers and answers,
 * read by every B2BUA that relays a body with {@code setContent(getRawContent(), getContentType())}) and of the
 * other bodies SIP calls usually carry. A value matches only byte for byte, so the String returned is the one its
 * bytes would make.
 * <p>
 * Stateless; thread-safe.
 */
final class CommonValues
{
    private static final String[] TEXTS = {"application/sdp", "application/dtmf-relay", "text/plain",
        "message/sipfrag", "application/pidf+xml", "multipart/mixed"};
    private static final byte[][] BYTES = new byte[TEXTS.length][];

    static
    {
        for (int i = 0; i < TEXTS.length; i++)
        {
            BYTES[i] = TEXTS[i].getBytes(StandardCharsets.US_ASCII);
        }
    }

    private CommonValues()
    {
    }

    /** The shared String of the value at {@code [start, end)} of {@code b}, or null when it is not one of them. */
    static String of(final byte[] b, final int start, final int end)
    {
        final int length = end - start;
        for (int i = 0; i < BYTES.length; i++)
        {
            final byte[] v = BYTES[i];
            if (v.length == length && Arrays.equals(b, start, end, v, 0, length))
            {
                return TEXTS[i];
            }
        }
        return null;
    }
}
