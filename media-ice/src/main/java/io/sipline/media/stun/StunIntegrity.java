package io.sipline.media.stun;

import java.nio.ByteBuffer;
import java.security.DigestException;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.util.zip.CRC32;

import javax.crypto.Mac;
import javax.crypto.ShortBufferException;

/**
 * The per-thread engine that computes MESSAGE-INTEGRITY (HMAC-SHA1, RFC 8489 §14.5), MESSAGE-INTEGRITY-SHA256
 * (HMAC-SHA256, §14.6) and FINGERPRINT (CRC-32 XOR 0x5354554e, §14.7) over messages in place: the header's length
 * field is fed from a scratch array with the adjusted value, so the caller's buffer is never modified.
 *
 * <p>Two HMAC engines, chosen at construction:
 * <ul>
 *     <li>{@link Engine#DIGEST} (default): RFC 2104 over {@code MessageDigest} ("SHA-1", "SHA-256") held here,
 *     with the padded keys in scratch arrays. {@code MessageDigest.digest(byte[], int, int)} writes into our array,
 *     so a message costs no allocation at all. The pads are recomputed only when the credential changes.</li>
 *     <li>{@link Engine#JCA_MAC}: {@code javax.crypto.Mac} ("HmacSHA1", "HmacSHA256") held here and re-initialised
 *     only when the credential changes. {@code Mac.doFinal(byte[], int)} allocates the digest array inside the JDK's
 *     {@code HmacCore} on every message (measured in {@code StunAllocationTest}), and {@code Mac.init} clones the key,
 *     so alternating between two credentials costs a re-init per message.</li>
 * </ul>
 * Both use the SHA intrinsics of the JIT; the bytes hashed are identical.
 *
 * <p>Not thread-safe; owned by one media thread (one per shard). Allocates only at construction (and, in
 * {@link Engine#JCA_MAC} mode, inside {@code javax.crypto} as described).
 */
public final class StunIntegrity
{
    /** Which HMAC implementation to use. */
    public enum Engine
    {
        /** RFC 2104 over {@code MessageDigest}: zero allocation per message. */
        DIGEST,
        /** {@code javax.crypto.Mac}: allocates inside the JDK per {@code doFinal}. */
        JCA_MAC
    }

    /** HMAC-SHA1 output and MESSAGE-INTEGRITY value length. */
    public static final int SHA1_LENGTH = 20;
    /** HMAC-SHA256 output and maximum MESSAGE-INTEGRITY-SHA256 value length. */
    public static final int SHA256_LENGTH = 32;
    /** XORed into the CRC-32 to form FINGERPRINT (RFC 8489 §14.7): "STUN". */
    public static final int FINGERPRINT_XOR = 0x5354554E;

    static final int SHA1 = 1;
    static final int SHA256 = 2;

    private static final int BLOCK = 64;
    private static final int STAGE = 256;

    private final Engine engine;
    private final MessageDigest sha1;
    private final MessageDigest sha256;
    private final Mac macSha1;
    private final Mac macSha256;
    private final CRC32 crc = new CRC32();
    private final byte[] ipad1 = new byte[BLOCK];
    private final byte[] opad1 = new byte[BLOCK];
    private final byte[] ipad256 = new byte[BLOCK];
    private final byte[] opad256 = new byte[BLOCK];
    private final byte[] reducedKey = new byte[SHA256_LENGTH];
    private final byte[] inner = new byte[SHA256_LENGTH];
    private final byte[] out = new byte[SHA256_LENGTH];
    private final byte[] lengthField = new byte[2];
    private final byte[] stage = new byte[STAGE];
    private StunCredential padded1;
    private StunCredential padded256;
    private StunCredential macKey1;
    private StunCredential macKey256;

    /**
     * An engine with {@link Engine#DIGEST}.
     */
    public StunIntegrity()
    {
        this(Engine.DIGEST);
    }

    /**
     * @param engine the HMAC implementation.
     */
    public StunIntegrity(final Engine engine)
    {
        this.engine = engine;
        try
        {
            sha1 = MessageDigest.getInstance("SHA-1");
            sha256 = MessageDigest.getInstance("SHA-256");
            if (Engine.JCA_MAC == engine)
            {
                macSha1 = Mac.getInstance("HmacSHA1");
                macSha256 = Mac.getInstance("HmacSHA256");
            }
            else
            {
                macSha1 = null;
                macSha256 = null;
            }
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("SHA-1/SHA-256 are not available", ex);
        }
    }

    /**
     * @return the HMAC implementation in use.
     */
    public Engine engine()
    {
        return engine;
    }

    /**
     * HMAC over {@code [messageOffset, messageOffset + coveredLength)} with the header length field replaced by
     * {@code lengthFieldValue}; the result is left in {@link #outputArray()}.
     *
     * @return the HMAC length (20 or 32).
     */
    int hmac(
        final int algorithm,
        final StunCredential credential,
        final byte[] array,
        final ByteBuffer buffer,
        final int messageOffset,
        final int coveredLength,
        final int lengthFieldValue)
    {
        lengthField[0] = (byte)(lengthFieldValue >>> 8);
        lengthField[1] = (byte)lengthFieldValue;
        if (Engine.JCA_MAC == engine)
        {
            return jcaHmac(algorithm, credential, array, buffer, messageOffset, coveredLength);
        }

        final MessageDigest md = SHA1 == algorithm ? sha1 : sha256;
        final int digestLength = SHA1 == algorithm ? SHA1_LENGTH : SHA256_LENGTH;
        final byte[] ipad = SHA1 == algorithm ? ipad1 : ipad256;
        final byte[] opad = SHA1 == algorithm ? opad1 : opad256;
        if (SHA1 == algorithm ? credential != padded1 : credential != padded256)
        {
            pads(md, digestLength, credential.keyArray(), ipad, opad);
            if (SHA1 == algorithm)
            {
                padded1 = credential;
            }
            else
            {
                padded256 = credential;
            }
        }

        // RFC 2104: H(K ^ opad || H(K ^ ipad || text)).
        md.reset();
        md.update(ipad, 0, BLOCK);
        feedDigest(md, array, buffer, messageOffset, coveredLength);
        try
        {
            md.digest(inner, 0, digestLength);
            md.update(opad, 0, BLOCK);
            md.update(inner, 0, digestLength);
            md.digest(out, 0, digestLength);
        }
        catch (final DigestException ex)
        {
            throw new IllegalStateException(ex); // unreachable: our arrays are large enough
        }
        return digestLength;
    }

    /**
     * FINGERPRINT value over {@code [messageOffset, messageOffset + coveredLength)} with the header length field
     * replaced by {@code lengthFieldValue} (RFC 8489 §14.7).
     */
    int fingerprint(
        final byte[] array,
        final ByteBuffer buffer,
        final int messageOffset,
        final int coveredLength,
        final int lengthFieldValue)
    {
        lengthField[0] = (byte)(lengthFieldValue >>> 8);
        lengthField[1] = (byte)lengthFieldValue;
        crc.reset();
        if (null != array)
        {
            crc.update(array, messageOffset, 2);
            crc.update(lengthField, 0, 2);
            crc.update(array, messageOffset + 4, coveredLength - 4);
        }
        else
        {
            stageInto(buffer, messageOffset, 2);
            crc.update(stage, 0, 2);
            crc.update(lengthField, 0, 2);
            for (int done = 4; done < coveredLength; )
            {
                final int chunk = Math.min(STAGE, coveredLength - done);
                stageInto(buffer, messageOffset + done, chunk);
                crc.update(stage, 0, chunk);
                done += chunk;
            }
        }
        return (int)crc.getValue() ^ FINGERPRINT_XOR;
    }

    /**
     * @return the scratch array holding the last HMAC (valid until the next call).
     */
    byte[] outputArray()
    {
        return out;
    }

    private int jcaHmac(
        final int algorithm,
        final StunCredential credential,
        final byte[] array,
        final ByteBuffer buffer,
        final int messageOffset,
        final int coveredLength)
    {
        final Mac mac = SHA1 == algorithm ? macSha1 : macSha256;
        try
        {
            if (SHA1 == algorithm && credential != macKey1)
            {
                mac.init(credential.sha1Spec());
                macKey1 = credential;
            }
            else if (SHA256 == algorithm && credential != macKey256)
            {
                mac.init(credential.sha256Spec());
                macKey256 = credential;
            }
            if (null != array)
            {
                mac.update(array, messageOffset, 2);
                mac.update(lengthField, 0, 2);
                mac.update(array, messageOffset + 4, coveredLength - 4);
            }
            else
            {
                stageInto(buffer, messageOffset, 2);
                mac.update(stage, 0, 2);
                mac.update(lengthField, 0, 2);
                for (int done = 4; done < coveredLength; )
                {
                    final int chunk = Math.min(STAGE, coveredLength - done);
                    stageInto(buffer, messageOffset + done, chunk);
                    mac.update(stage, 0, chunk);
                    done += chunk;
                }
            }
            mac.doFinal(out, 0);
            return mac.getMacLength();
        }
        catch (final InvalidKeyException | ShortBufferException ex)
        {
            throw new IllegalStateException(ex); // unreachable: HMAC takes any key; our array holds 32 bytes
        }
    }

    private void feedDigest(
        final MessageDigest md, final byte[] array, final ByteBuffer buffer, final int offset, final int length)
    {
        if (null != array)
        {
            md.update(array, offset, 2);
            md.update(lengthField, 0, 2);
            md.update(array, offset + 4, length - 4);
            return;
        }
        stageInto(buffer, offset, 2);
        md.update(stage, 0, 2);
        md.update(lengthField, 0, 2);
        for (int done = 4; done < length; )
        {
            final int chunk = Math.min(STAGE, length - done);
            stageInto(buffer, offset + done, chunk);
            md.update(stage, 0, chunk);
            done += chunk;
        }
    }

    private void stageInto(final ByteBuffer buffer, final int index, final int length)
    {
        buffer.get(index, stage, 0, length); // absolute bulk get: no position change, no allocation
    }

    private void pads(
        final MessageDigest md, final int digestLength, final byte[] key, final byte[] ipad, final byte[] opad)
    {
        byte[] k = key;
        int kLength = key.length;
        if (kLength > BLOCK)
        {
            // RFC 2104 §2: keys longer than the block are hashed first.
            md.reset();
            md.update(key, 0, kLength);
            try
            {
                md.digest(reducedKey, 0, digestLength);
            }
            catch (final DigestException ex)
            {
                throw new IllegalStateException(ex);
            }
            k = reducedKey;
            kLength = digestLength;
        }
        for (int i = 0; i < BLOCK; i++)
        {
            final int b = i < kLength ? k[i] : 0;
            ipad[i] = (byte)(b ^ 0x36);
            opad[i] = (byte)(b ^ 0x5C);
        }
    }
}
