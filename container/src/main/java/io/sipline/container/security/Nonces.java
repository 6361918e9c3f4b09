package io.sipline.container.security;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Stateless, unforgeable server nonces (RFC 2617 §3.2.1 suggests a time stamp plus a keyed hash; RFC 3261 §22.4
 * defers to it): {@code base64url(issuedMs[8] || id[8] || mac[16])}, 43 characters, where {@code id} is random
 * per challenge and {@code mac} is the first 16 bytes of {@code HMAC-SHA256(secret, realm || 0 || issuedMs || id)}.
 * Nothing is stored per nonce issued; {@link #decode(String)} recovers {@code issuedMs} and {@code id} and checks
 * the MAC in constant time ({@link MessageDigest#isEqual}). The realm is under the MAC, so a nonce of one realm is
 * not valid in another. The opaque value is a MAC of the realm: constant per authenticator.
 * <p>
 * Threading: thread-safe; each thread keeps its own {@link Mac} ({@link ThreadLocal}).
 */
final class Nonces
{
    /** Bytes of a decoded nonce. */
    static final int NONCE_BYTES = 32;
    /** Characters of an encoded nonce (unpadded base64url of 32 bytes). */
    static final int NONCE_CHARS = 43;

    private static final int MAC_BYTES = 16;
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private final byte[] realm;
    private final SecureRandom random;
    private final ThreadLocal<Mac> macs;
    private final String opaque;

    /**
     * @param secret the HMAC key (at least 16 bytes; copied).
     * @param realm  the realm the nonces are for.
     * @param random the source of nonce ids.
     */
    Nonces(final byte[] secret, final String realm, final SecureRandom random)
    {
        if (secret.length < 16)
        {
            throw new IllegalArgumentException("the nonce secret must have at least 16 bytes");
        }
        final SecretKeySpec key = new SecretKeySpec(secret.clone(), "HmacSHA256");
        this.realm = realm.getBytes(StandardCharsets.UTF_8);
        this.random = random;
        this.macs = ThreadLocal.withInitial(() -> newMac(key));
        final Mac mac = newMac(key);
        mac.update("opaque".getBytes(StandardCharsets.US_ASCII));
        mac.update((byte)0);
        this.opaque = ENCODER.encodeToString(Arrays.copyOf(mac.doFinal(this.realm), MAC_BYTES));
    }

    /**
     * @return the opaque value of every challenge.
     */
    String opaque()
    {
        return opaque;
    }

    /**
     * @param nowMs the issue time.
     * @return a fresh nonce.
     */
    String mint(final long nowMs)
    {
        final ByteBuffer bytes = ByteBuffer.allocate(NONCE_BYTES);
        bytes.putLong(nowMs).putLong(random.nextLong());
        bytes.put(mac(nowMs, bytes.getLong(8)), 0, MAC_BYTES);
        return ENCODER.encodeToString(bytes.array());
    }

    /**
     * @param nonce a nonce from a client, or {@code null}.
     * @return its issue time and id when it is one of ours, else {@code null}. Never throws.
     */
    Decoded decode(final String nonce)
    {
        if (null == nonce || NONCE_CHARS != nonce.length())
        {
            return null;
        }
        for (int i = 0; i < NONCE_CHARS; i++)
        {
            final char c = nonce.charAt(i);
            if (!(('A' <= c && c <= 'Z') || ('a' <= c && c <= 'z') || ('0' <= c && c <= '9') || '-' == c || '_' == c))
            {
                return null;
            }
        }
        final ByteBuffer bytes = ByteBuffer.wrap(DECODER.decode(nonce));
        final long issuedMs = bytes.getLong(0);
        final long id = bytes.getLong(8);
        final byte[] expected = Arrays.copyOf(mac(issuedMs, id), MAC_BYTES);
        final byte[] given = Arrays.copyOfRange(bytes.array(), 16, NONCE_BYTES);
        return MessageDigest.isEqual(expected, given) ? new Decoded(issuedMs, id) : null;
    }

    private byte[] mac(final long issuedMs, final long id)
    {
        final Mac mac = macs.get();
        mac.update(realm);
        mac.update((byte)0);
        mac.update(ByteBuffer.allocate(16).putLong(issuedMs).putLong(id).array());
        return mac.doFinal();
    }

    private static Mac newMac(final SecretKeySpec key)
    {
        try
        {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return mac;
        }
        catch (final GeneralSecurityException ex)
        {
            // HmacSHA256 is required of every Java SE platform (Mac javadoc).
            throw new IllegalStateException("HmacSHA256 is not available", ex);
        }
    }

    /**
     * A verified nonce.
     *
     * @param issuedMs when it was minted.
     * @param id       its random id (the key of its nonce-count state).
     */
    record Decoded(long issuedMs, long id)
    {
    }
}
