package io.sipline.sip.capture;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Where and as whom the stack mirrors its SIP messages in HEPv3 ({@link HepEncoder}): the collector's address (a
 * Homer {@code heplify-server}, or any HEP collector listening on UDP), the capture agent id the collector files the
 * messages under, and the optional password its authentication-key chunk carries. Immutable; thread-safe.
 *
 * @param collector resolved; the UDP address:port of the collector.
 * @param captureId the capture agent id (chunk {@code 0x000c}), 0 to 4294967295, kept in an unsigned {@code int}.
 * @param password  the authentication key (chunk {@code 0x000e}), or null for none; at most
 *                  {@value #MAX_PASSWORD_BYTES} bytes of UTF-8.
 */
public record HepConfig(InetSocketAddress collector, int captureId, String password)
{
    /** The longest password accepted: it rides in every capture, and leaves the rest of 64 KiB to the SIP message. */
    public static final int MAX_PASSWORD_BYTES = 256;

    public HepConfig
    {
        Objects.requireNonNull(collector, "collector");
        if (collector.isUnresolved())
        {
            throw new IllegalArgumentException("HEP collector " + collector.getHostString() + " does not resolve");
        }
        if (0 == collector.getPort())
        {
            throw new IllegalArgumentException("HEP collector port must be 1-65535, not 0");
        }
        if (null != password && (password.isEmpty()
            || password.getBytes(StandardCharsets.UTF_8).length > MAX_PASSWORD_BYTES))
        {
            throw new IllegalArgumentException("HEP password must be 1-" + MAX_PASSWORD_BYTES + " bytes");
        }
    }

    /** The password as UTF-8, or null; a new array. */
    byte[] passwordBytes()
    {
        return null == password ? null : password.getBytes(StandardCharsets.UTF_8);
    }
}
