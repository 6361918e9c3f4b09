package io.sipline.media.srtp;

import org.bouncycastle.crypto.BlockCipher;
import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.digests.SHA1Digest;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.macs.HMac;
import org.bouncycastle.crypto.modes.GCMBlockCipher;
import org.bouncycastle.crypto.modes.GCMModeCipher;
import org.bouncycastle.crypto.params.AEADParameters;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * {@link SrtpBackend} over Bouncy Castle's lightweight API ({@code AESEngine}, {@code HMac}/{@code SHA1Digest},
 * {@code GCMBlockCipher}): pure Java, no intrinsics, so several times slower than {@link JcaSrtpBackend} on this
 * JDK (see {@code docs/media.md}); kept as the alternative for a JDK whose providers lack AES or GCM.
 *
 * <p>AES-CM drives {@code AESEngine.processBlock} on our own counter blocks (no {@code SICBlockCipher} re-init, so no
 * {@code ParametersWithIV} per packet). GCM is re-initialised per packet with the key kept ({@code AEADParameters}
 * with a null key), which avoids rebuilding the multiplier tables, but Bouncy Castle still allocates its per-message
 * blocks.
 *
 * <p>Stateless factory, thread-safe; the engines it makes are not thread-safe and are owned by one context.
 */
public final class BouncyCastleSrtpBackend implements SrtpBackend
{
    /** The shared factory. */
    public static final BouncyCastleSrtpBackend INSTANCE = new BouncyCastleSrtpBackend();

    private BouncyCastleSrtpBackend()
    {
    }

    @Override
    public String name()
    {
        return "bc";
    }

    @Override
    public Ctr newAesCtr()
    {
        return new BlockCtr();
    }

    @Override
    public Mac newHmacSha1()
    {
        return new BcHmac();
    }

    @Override
    public Aead newAesGcm()
    {
        return new BcGcm();
    }

    /** Counter mode on {@code AESEngine}, one block of keystream at a time. */
    static final class BlockCtr implements Ctr
    {
        private final BlockCipher aes = AESEngine.newInstance();
        private final byte[] counter = new byte[16];
        private final byte[] keystream = new byte[16];

        @Override
        public void init(final byte[] key, final int keyLength)
        {
            aes.init(true, new KeyParameter(key, 0, keyLength));
        }

        @Override
        public void xorKeystream(final byte[] iv, final byte[] buffer, final int offset, final int length)
        {
            System.arraycopy(iv, 0, counter, 0, 16);
            int done = 0;
            while (done < length)
            {
                aes.processBlock(counter, 0, keystream, 0);
                final int n = Math.min(16, length - done);
                for (int i = 0; i < n; i++)
                {
                    buffer[offset + done + i] ^= keystream[i];
                }
                done += n;
                // RFC 3711 §4.1.1: increment the 128-bit counter.
                for (int i = 15; i >= 0; i--)
                {
                    if (++counter[i] != 0)
                    {
                        break;
                    }
                }
            }
        }
    }

    /** {@code HMac} over {@code SHA1Digest}. */
    static final class BcHmac implements Mac
    {
        private final HMac hmac = new HMac(new SHA1Digest());

        @Override
        public void init(final byte[] key, final int keyLength)
        {
            hmac.init(new KeyParameter(key, 0, keyLength));
        }

        @Override
        public void update(final byte[] buffer, final int offset, final int length)
        {
            hmac.update(buffer, offset, length);
        }

        @Override
        public void doFinal(final byte[] out, final int offset)
        {
            hmac.doFinal(out, offset);
        }
    }

    /** {@code GCMBlockCipher} with a 128-bit tag. */
    static final class BcGcm implements Aead
    {
        private static final int TAG_BITS = 128;

        private final GCMModeCipher gcm = GCMBlockCipher.newInstance(AESEngine.newInstance());
        private KeyParameter key;
        private boolean keyed;
        private byte[] scratch = new byte[2048];

        @Override
        public void init(final byte[] keyBytes, final int keyLength)
        {
            key = new KeyParameter(keyBytes, 0, keyLength);
            keyed = false;
        }

        @Override
        public boolean start(final boolean encrypt, final byte[] iv)
        {
            try
            {
                // A null key keeps the hash subkey and multiplier tables of the previous init.
                gcm.init(encrypt, new AEADParameters(keyed ? null : key, TAG_BITS, iv));
                keyed = true;
                return true;
            }
            catch (final IllegalArgumentException ex)
            {
                return false;
            }
        }

        @Override
        public void aad(final byte[] buffer, final int offset, final int length)
        {
            gcm.processAADBytes(buffer, offset, length);
        }

        @Override
        public int encrypt(final byte[] buffer, final int offset, final int length)
        {
            try
            {
                final int n = gcm.processBytes(buffer, offset, length, buffer, offset);
                return n + gcm.doFinal(buffer, offset + n);
            }
            catch (final InvalidCipherTextException | RuntimeException ex)
            {
                return -1;
            }
        }

        @Override
        public int decrypt(final byte[] buffer, final int offset, final int length)
        {
            if (scratch.length < length)
            {
                scratch = new byte[Math.max(length, scratch.length << 1)];
            }
            try
            {
                // Into scratch: Bouncy Castle releases plaintext before it checks the tag.
                int n = gcm.processBytes(buffer, offset, length, scratch, 0);
                n += gcm.doFinal(scratch, n);
                System.arraycopy(scratch, 0, buffer, offset, n);
                return n;
            }
            catch (final InvalidCipherTextException | RuntimeException ex)
            {
                return -1;
            }
        }
    }
}
