package io.sipline.media.dtls;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;

/**
 * A certificate fingerprint as SDP carries it (RFC 8122 §5, RFC 5763 §5):
 * <pre>
 *   a=fingerprint:sha-256 4A:AD:B9:B1:3F:82:18:3B:54:02:12:DF:3E:5D:49:6B:19:E5:7C:AB:...
 *                 hash-func SP 2UHEX *(":" 2UHEX)   -- the hash of the DER certificate
 * </pre>
 * The hash functions of the RFC 8122 registry that are still sound are accepted ({@code sha-1} to {@code sha-512});
 * {@code md5} and {@code md2} are refused (RFC 8122 §5 deprecates them). Hex digits are read in either case and
 * written upper case.
 *
 * <p>Immutable (the digest is copied in and out); thread-safe.
 */
public final class DtlsFingerprint
{
    private static final String[][] HASHES = {
        {"sha-1", "SHA-1"}, {"sha-224", "SHA-224"}, {"sha-256", "SHA-256"}, {"sha-384", "SHA-384"},
        {"sha-512", "SHA-512"},
    };
    private static final HexFormat HEX = HexFormat.ofDelimiter(":").withUpperCase();

    private final String hashFunction;
    private final byte[] digest;

    private DtlsFingerprint(final String hashFunction, final byte[] digest)
    {
        this.hashFunction = hashFunction;
        this.digest = digest;
    }

    /**
     * Parses the value of an {@code a=fingerprint} line.
     *
     * @param value {@code hash-func SP fingerprint}, without {@code a=fingerprint:}.
     * @return the fingerprint.
     * @throws IllegalArgumentException when the hash function is unknown or refused, or the hex is malformed or of
     *                                  the wrong length for the hash.
     */
    public static DtlsFingerprint parse(final CharSequence value)
    {
        final String text = value.toString().trim();
        final int space = text.indexOf(' ');
        if (space <= 0)
        {
            throw new IllegalArgumentException("a=fingerprint needs 'hash-func fingerprint': " + text);
        }
        final String hash = text.substring(0, space).toLowerCase(Locale.ROOT);
        final String jcaName = jcaName(hash);
        final byte[] digest;
        try
        {
            digest = HEX.parseHex(text.substring(space + 1).trim().toUpperCase(Locale.ROOT));
        }
        catch (final IllegalArgumentException e)
        {
            throw new IllegalArgumentException("a=fingerprint hex is malformed: " + text, e);
        }
        if (digest.length != newDigest(jcaName).getDigestLength())
        {
            throw new IllegalArgumentException(hash + " fingerprint needs " + newDigest(jcaName).getDigestLength() +
                " octets, got " + digest.length);
        }
        return new DtlsFingerprint(hash, digest);
    }

    /**
     * The fingerprint of a DER certificate under a hash function.
     *
     * @param hashFunction an RFC 8122 name such as {@code sha-256}.
     * @param certificateDer the DER encoding, borrowed.
     * @return the fingerprint.
     */
    public static DtlsFingerprint of(final String hashFunction, final byte[] certificateDer)
    {
        final String hash = hashFunction.toLowerCase(Locale.ROOT);
        return new DtlsFingerprint(hash, newDigest(jcaName(hash)).digest(certificateDer));
    }

    /** @return the RFC 8122 hash function name, lower case. */
    public String hashFunction()
    {
        return hashFunction;
    }

    /** @return a copy of the digest. */
    public byte[] digest()
    {
        return digest.clone();
    }

    /**
     * Whether a certificate has this fingerprint, hashed with this fingerprint's function (RFC 5763 §5: the
     * certificate the peer presents must match the fingerprint of its SDP).
     *
     * @param certificateDer the DER encoding, borrowed.
     * @return true on a match.
     */
    public boolean matches(final byte[] certificateDer)
    {
        return MessageDigest.isEqual(digest, newDigest(jcaName(hashFunction)).digest(certificateDer));
    }

    /** @return {@code AB:CD:...}, the hex part of the SDP value. */
    public String hex()
    {
        return HEX.formatHex(digest);
    }

    /** @return the SDP value, {@code sha-256 AB:CD:...}, for {@code a=fingerprint:<value>}. */
    public String sdpValue()
    {
        return hashFunction + ' ' + hex();
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof DtlsFingerprint that && hashFunction.equals(that.hashFunction) &&
            Arrays.equals(digest, that.digest);
    }

    @Override
    public int hashCode()
    {
        return 31 * hashFunction.hashCode() + Arrays.hashCode(digest);
    }

    @Override
    public String toString()
    {
        return sdpValue();
    }

    private static String jcaName(final String hashFunction)
    {
        for (final String[] pair : HASHES)
        {
            if (pair[0].equals(hashFunction))
            {
                return pair[1];
            }
        }
        throw new IllegalArgumentException("unsupported a=fingerprint hash function: " + hashFunction);
    }

    private static MessageDigest newDigest(final String jcaName)
    {
        try
        {
            return MessageDigest.getInstance(jcaName);
        }
        catch (final NoSuchAlgorithmException e)
        {
            throw new IllegalStateException(jcaName + " is missing from the JDK", e);
        }
    }
}
