package io.sipline.media.stun;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.text.Normalizer;
import java.util.Arrays;

import javax.crypto.spec.SecretKeySpec;

/**
 * The HMAC key of one STUN credential (RFC 8489 §9): built once per ICE session or TURN allocation, then used for
 * every message through a thread-owned {@link StunIntegrity}.
 *
 * <ul>
 *     <li><b>Short-term</b> (§9.1.1, ICE): key = OpaqueString(password).</li>
 *     <li><b>Long-term</b> (§9.2.2, TURN): key = MD5(username ":" OpaqueString(realm) ":" OpaqueString(password)),
 *     or SHA-256 of the same string when PASSWORD-ALGORITHM is SHA-256 (§18.5.1).</li>
 * </ul>
 *
 * <p><b>Password preparation.</b> RFC 8489 uses the PRECIS OpaqueString profile (RFC 8265 §4.2); RFC 5389 used
 * SASLprep (RFC 4013). The JDK has neither, so {@link #opaqueString} and {@link #saslPrep} implement their mapping and
 * normalisation steps exactly (OpaqueString: non-ASCII spaces to U+0020, then NFC; SASLprep: RFC 3454 table B.1 mapped
 * to nothing, non-ASCII spaces to U+0020, then NFKC) and approximate the prohibition tables with Unicode general
 * categories of the running JDK (control, private use, surrogate and unassigned code points are refused). ASCII
 * passwords, as ICE generates them, pass through both unchanged. {@link Preparation#NONE} takes the bytes as given.
 *
 * <p>Immutable; thread-safe. The key spec for {@code javax.crypto.Mac} is made lazily, once.
 */
public final class StunCredential
{
    /** PASSWORD-ALGORITHM MD5 (RFC 8489 §18.5.1). */
    public static final int ALGORITHM_MD5 = 0x0001;
    /** PASSWORD-ALGORITHM SHA-256 (RFC 8489 §18.5.1). */
    public static final int ALGORITHM_SHA256 = 0x0002;

    /** How a password (and realm and username, for long-term keys) is prepared before hashing. */
    public enum Preparation
    {
        /** RFC 8265 OpaqueString, as RFC 8489 requires. */
        OPAQUE_STRING,
        /** RFC 4013 SASLprep, as RFC 5389 (and the RFC 5769 vectors) used. */
        SASLPREP,
        /** The UTF-8 bytes of the string as given. */
        NONE
    }

    private final byte[] key;
    private SecretKeySpec sha1Spec;
    private SecretKeySpec sha256Spec;

    private StunCredential(final byte[] key)
    {
        this.key = key;
    }

    /**
     * @param key raw HMAC key (copied).
     * @return a credential with that key.
     */
    public static StunCredential ofKey(final byte[] key)
    {
        return new StunCredential(key.clone());
    }

    /**
     * Short-term credential (RFC 8489 §9.1.1): key = OpaqueString(password).
     *
     * @param password the password, e.g. the peer's {@code ice-pwd}.
     * @return the credential.
     */
    public static StunCredential shortTerm(final String password)
    {
        return shortTerm(password, Preparation.OPAQUE_STRING);
    }

    /**
     * @param password    the password.
     * @param preparation how to prepare it.
     * @return the credential.
     */
    public static StunCredential shortTerm(final String password, final Preparation preparation)
    {
        return new StunCredential(prepare(password, preparation).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Long-term credential (RFC 8489 §9.2.2).
     *
     * @param username  the username (as sent in USERNAME).
     * @param realm     the realm (as received in REALM).
     * @param password  the password.
     * @param algorithm {@link #ALGORITHM_MD5} or {@link #ALGORITHM_SHA256}.
     * @return the credential.
     */
    public static StunCredential longTerm(
        final String username, final String realm, final String password, final int algorithm)
    {
        return longTerm(username, realm, password, algorithm, Preparation.OPAQUE_STRING);
    }

    /**
     * @param username    the username.
     * @param realm       the realm.
     * @param password    the password.
     * @param algorithm   {@link #ALGORITHM_MD5} or {@link #ALGORITHM_SHA256}.
     * @param preparation how to prepare realm and password (the username is expected already prepared, §14.3).
     * @return the credential.
     */
    public static StunCredential longTerm(
        final String username,
        final String realm,
        final String password,
        final int algorithm,
        final Preparation preparation)
    {
        final String input = username + ":" + prepare(realm, preparation) + ":" + prepare(password, preparation);
        return new StunCredential(digest(algorithmName(algorithm), input.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * USERHASH (RFC 8489 §14.4): SHA-256(OpaqueString(username) ":" OpaqueString(realm)).
     *
     * @param username the username.
     * @param realm    the realm.
     * @return the 32-byte hash.
     */
    public static byte[] userhash(final String username, final String realm)
    {
        final String input = opaqueString(username) + ":" + opaqueString(realm);
        return digest("SHA-256", input.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * @return a copy of the key.
     */
    public byte[] key()
    {
        return key.clone();
    }

    /**
     * @return the key length in bytes.
     */
    public int keyLength()
    {
        return key.length;
    }

    byte[] keyArray()
    {
        return key;
    }

    SecretKeySpec sha1Spec()
    {
        SecretKeySpec spec = sha1Spec;
        if (null == spec)
        {
            spec = new SecretKeySpec(key, "HmacSHA1");
            sha1Spec = spec;
        }
        return spec;
    }

    SecretKeySpec sha256Spec()
    {
        SecretKeySpec spec = sha256Spec;
        if (null == spec)
        {
            spec = new SecretKeySpec(key, "HmacSHA256");
            sha256Spec = spec;
        }
        return spec;
    }

    /**
     * RFC 8265 §4.2 OpaqueString enforcement: additional mapping (non-ASCII space to U+0020), NFC, and refusal of
     * control, private-use, surrogate and unassigned code points.
     *
     * @param value the string.
     * @return the prepared string.
     * @throws IllegalArgumentException when a prohibited code point is present or the result is empty.
     */
    public static String opaqueString(final String value)
    {
        final String mapped = mapSpaces(value, false);
        final String normalized = Normalizer.normalize(mapped, Normalizer.Form.NFC);
        checkProhibited(normalized);
        return normalized;
    }

    /**
     * RFC 4013 SASLprep: RFC 3454 table B.1 mapped to nothing, non-ASCII spaces (C.1.2) to U+0020, NFKC, and refusal
     * of control, private-use, surrogate and unassigned code points (approximating C.2-C.9 and A.1).
     *
     * @param value the string.
     * @return the prepared string.
     * @throws IllegalArgumentException when a prohibited code point is present.
     */
    public static String saslPrep(final String value)
    {
        final String mapped = mapSpaces(value, true);
        final String normalized = Normalizer.normalize(mapped, Normalizer.Form.NFKC);
        checkProhibited(normalized);
        return normalized;
    }

    private static String prepare(final String value, final Preparation preparation)
    {
        switch (preparation)
        {
            case OPAQUE_STRING:
                return opaqueString(value);
            case SASLPREP:
                return saslPrep(value);
            default:
                return value;
        }
    }

    private static String mapSpaces(final String value, final boolean mapToNothing)
    {
        final StringBuilder out = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); )
        {
            final int cp = value.codePointAt(i);
            i += Character.charCount(cp);
            if (mapToNothing && isMappedToNothing(cp))
            {
                continue;
            }
            if (0x20 != cp && Character.SPACE_SEPARATOR == Character.getType(cp))
            {
                out.append(' ');
            }
            else
            {
                out.appendCodePoint(cp);
            }
        }
        return out.toString();
    }

    /** RFC 3454 table B.1 ("commonly mapped to nothing"). */
    private static boolean isMappedToNothing(final int cp)
    {
        return 0x00AD == cp || 0x034F == cp || 0x1806 == cp || (0x180B <= cp && cp <= 0x180D)
            || (0x200B <= cp && cp <= 0x200D) || 0x2060 == cp || (0xFE00 <= cp && cp <= 0xFE0F) || 0xFEFF == cp;
    }

    private static void checkProhibited(final String value)
    {
        for (int i = 0; i < value.length(); )
        {
            final int cp = value.codePointAt(i);
            i += Character.charCount(cp);
            final int type = Character.getType(cp);
            if (Character.CONTROL == type || Character.PRIVATE_USE == type || Character.SURROGATE == type
                || Character.UNASSIGNED == type)
            {
                throw new IllegalArgumentException(String.format("prohibited code point U+%04X", cp));
            }
        }
    }

    private static String algorithmName(final int algorithm)
    {
        switch (algorithm)
        {
            case ALGORITHM_MD5:
                return "MD5";
            case ALGORITHM_SHA256:
                return "SHA-256";
            default:
                throw new IllegalArgumentException("unknown PASSWORD-ALGORITHM " + algorithm);
        }
    }

    private static byte[] digest(final String algorithm, final byte[] input)
    {
        try
        {
            return MessageDigest.getInstance(algorithm).digest(input);
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException(algorithm + " is not available", ex);
        }
    }

    @Override
    public String toString()
    {
        return "StunCredential[" + key.length + " byte key]";
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof StunCredential && Arrays.equals(key, ((StunCredential)other).key);
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(key);
    }
}
