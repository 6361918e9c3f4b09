package io.sipline.container.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The digest algorithms of SIP digest authentication: {@code MD5} (RFC 3261 §22.4, RFC 2617 §3.2.1) and the
 * RFC 8760 additions {@code SHA-256} and {@code SHA-512-256} (RFC 8760 §2.2, the hash functions of RFC 7616 §3.2).
 * The {@code -sess} variants are not offered and not accepted.
 * <p>
 * {@code H(data)} is the lowercase hex of the hash of the UTF-8 bytes of {@code data}, and
 * {@code KD(secret, data) = H(secret ":" data)} (RFC 2617 §3.2.1, RFC 7616 §3.4.1).
 * <p>
 * Threading: immutable; {@link #hex(String)} takes a fresh {@link MessageDigest} per call, so any thread may call it.
 */
public enum DigestAlgorithm
{
    /** MD5: 128 bits, 32 hex digits (RFC 2617). */
    MD5("MD5", "MD5"),
    /** SHA-256: 256 bits, 64 hex digits (RFC 8760 §2.2). */
    SHA_256("SHA-256", "SHA-256"),
    /** SHA-512/256: 256 bits, 64 hex digits (RFC 8760 §2.2, FIPS 180-4 SHA-512/256). */
    SHA_512_256("SHA-512-256", "SHA-512/256");

    private static final HexFormat HEX = HexFormat.of();

    private final String token;
    private final String jcaName;
    private final int hexLength;

    DigestAlgorithm(final String token, final String jcaName)
    {
        this.token = token;
        this.jcaName = jcaName;
        this.hexLength = 2 * newDigest(jcaName).getDigestLength();
    }

    /**
     * @return the token of the {@code algorithm} parameter ({@code MD5}, {@code SHA-256}, {@code SHA-512-256}).
     */
    public String token()
    {
        return token;
    }

    /**
     * @return the number of hex digits of {@code H(data)}.
     */
    public int hexLength()
    {
        return hexLength;
    }

    /**
     * @param token an {@code algorithm} parameter value, case-insensitive (RFC 2617 §3.2.1); {@code null} means the
     *              parameter is absent, which means {@code MD5}.
     * @return the algorithm, or {@code null} when the token names none of these (the -sess variants included).
     */
    public static DigestAlgorithm fromToken(final String token)
    {
        if (null == token)
        {
            return MD5;
        }
        for (final DigestAlgorithm algorithm : values())
        {
            if (algorithm.token.equalsIgnoreCase(token))
            {
                return algorithm;
            }
        }
        return null;
    }

    /**
     * @param data the text to hash (as UTF-8).
     * @return {@code H(data)}: the lowercase hex digest.
     */
    public String hex(final String data)
    {
        return HEX.formatHex(newDigest(jcaName).digest(data.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * The request digest with {@code qop=auth} (RFC 2617 §3.2.2.1, RFC 7616 §3.4.1):
     * {@code KD(HA1, nonce ":" nc ":" cnonce ":" qop ":" HA2)} with {@code HA2 = H(method ":" uri)}; without qop
     * (the RFC 2069 form RFC 3261 §22.4 still allows) {@code KD(HA1, nonce ":" HA2)}.
     *
     * @param ha1    {@code H(username ":" realm ":" password)} in hex.
     * @param nonce  the server nonce.
     * @param nc     the nonce count (8 hex digits), or {@code null} without qop.
     * @param cnonce the client nonce, or {@code null} without qop.
     * @param qop    {@code auth}, or {@code null} for the RFC 2069 form.
     * @param method the request method.
     * @param uri    the {@code uri} parameter (the Request-URI).
     * @return the expected {@code response} value in lowercase hex.
     */
    public String response(
        final String ha1,
        final String nonce,
        final String nc,
        final String cnonce,
        final String qop,
        final String method,
        final String uri)
    {
        final String ha2 = hex(method + ":" + uri);
        if (null == qop)
        {
            return hex(ha1 + ":" + nonce + ":" + ha2);
        }
        return hex(ha1 + ":" + nonce + ":" + nc + ":" + cnonce + ":" + qop + ":" + ha2);
    }

    /**
     * @param username the user name.
     * @param realm    the realm.
     * @param password the password.
     * @return {@code HA1 = H(username ":" realm ":" password)} (RFC 2617 §3.2.2.2).
     */
    public String ha1(final String username, final String realm, final String password)
    {
        return hex(username + ":" + realm + ":" + password);
    }

    private static MessageDigest newDigest(final String jcaName)
    {
        try
        {
            return MessageDigest.getInstance(jcaName);
        }
        catch (final NoSuchAlgorithmException ex)
        {
            // MD5 and SHA-256 are required of every Java SE platform; SHA-512/256 is in the JDK's SUN provider.
            throw new IllegalStateException("the JDK lacks " + jcaName, ex);
        }
    }
}
