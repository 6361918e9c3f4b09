package io.sipline.media.srtp;

/**
 * The one seam between the SRTP transforms and a cryptographic library: three primitives, each keyed once (or once
 * per key derivation epoch) and then driven per packet with caller-owned buffers.
 *
 * <p>Two implementations ship: {@link JcaSrtpBackend} ({@code javax.crypto}, AES-NI/VAES, SHA-NI and CLMUL
 * intrinsics) and {@link BouncyCastleSrtpBackend} (Bouncy Castle's lightweight API, pure Java).
 * {@link #defaultBackend()} is the faster one as measured by {@code io.sipline.jmh.SrtpBenchmark} (see
 * {@code docs/media.md}): {@code jca-java-gcm} when the JDK's GHASH stub is reachable ({@code --add-opens
 * java.base/com.sun.crypto.provider=ALL-UNNAMED}; AES-GCM then costs no allocation and less time than the JDK's own
 * {@code AES/GCM}), else {@code jca}; AES-CM is the same in both. The system property {@value #BACKEND_PROP_NAME}
 * overrides it ({@code jca}, {@code jca-java-gcm} or {@code bc}).
 *
 * <p>Engines are not thread-safe; each is owned by one {@link SrtpContext}, which is owned by one media thread.
 * Per-packet methods never allocate in our code and never throw for bad input: an AEAD tag mismatch is a return value.
 */
public interface SrtpBackend
{
    /** System property that names the backend: {@code jca}, {@code jca-java-gcm} or {@code bc}. */
    String BACKEND_PROP_NAME = "io.sipline.srtp.backend";

    /**
     * Default backend name, chosen by benchmark: {@code jca-java-gcm} where {@code JdkGhash.AVAILABLE}, else
     * {@code jca} (whose {@code AES/GCM} allocates about 1 KB per packet but beats the table GHASH in Java).
     */
    String BACKEND_DEFAULT = JdkGhash.AVAILABLE ? JcaSrtpBackend.JAVA_GCM_NAME : "jca";

    /**
     * Short name for logs and benchmark tables.
     *
     * @return {@code "jca"}, {@code "jca-java-gcm"} or {@code "bc"}.
     */
    String name();

    /**
     * Creates an unkeyed AES counter-mode engine (RFC 3711 §4.1.1). Allocates; call at setup.
     *
     * @return a new engine.
     */
    Ctr newAesCtr();

    /**
     * Creates an unkeyed HMAC-SHA1 engine (RFC 3711 §4.2.1). Allocates; call at setup.
     *
     * @return a new engine.
     */
    Mac newHmacSha1();

    /**
     * Creates an unkeyed AES-GCM engine with a 16-octet tag (RFC 7714). Allocates; call at setup.
     *
     * @return a new engine.
     */
    Aead newAesGcm();

    /**
     * The backend named by {@value #BACKEND_PROP_NAME}, or {@link #BACKEND_DEFAULT}.
     *
     * @return the process-wide default backend.
     */
    static SrtpBackend defaultBackend()
    {
        return byName(System.getProperty(BACKEND_PROP_NAME, BACKEND_DEFAULT));
    }

    /**
     * Looks a backend up by name.
     *
     * @param name {@code jca}, {@code jca-java-gcm} (AES-GCM without allocation, slower) or {@code bc}.
     * @return the backend.
     * @throws IllegalArgumentException for another name.
     */
    static SrtpBackend byName(final String name)
    {
        if ("jca".equals(name))
        {
            return JcaSrtpBackend.INSTANCE;
        }
        if (JcaSrtpBackend.JAVA_GCM_NAME.equals(name))
        {
            return JcaSrtpBackend.JAVA_GCM;
        }
        if ("bc".equals(name))
        {
            return BouncyCastleSrtpBackend.INSTANCE;
        }
        throw new IllegalArgumentException("unknown SRTP backend '" + name + "' (expected jca, jca-java-gcm or bc)");
    }

    /**
     * AES in counter mode: XORs the keystream AES_k(IV), AES_k(IV + 1), ... into a buffer in place.
     */
    interface Ctr
    {
        /**
         * Keys the engine (16, 24 or 32 octets). May allocate inside the library; not on the per-packet path except
         * at a key derivation epoch boundary.
         *
         * @param key       key bytes, borrowed.
         * @param keyLength number of key octets used from offset 0.
         */
        void init(byte[] key, int keyLength);

        /**
         * XORs {@code length} keystream octets into {@code buffer[offset..offset+length)}.
         *
         * @param iv     the 16-octet initial counter block, borrowed.
         * @param buffer data, encrypted or decrypted in place.
         * @param offset first octet.
         * @param length number of octets (at most 2^16 blocks).
         */
        void xorKeystream(byte[] iv, byte[] buffer, int offset, int length);
    }

    /**
     * HMAC-SHA1 (RFC 2104) producing the full 20-octet MAC; SRTP truncates it.
     */
    interface Mac
    {
        /**
         * Keys the engine.
         *
         * @param key       key bytes, borrowed.
         * @param keyLength number of key octets used from offset 0.
         */
        void init(byte[] key, int keyLength);

        /**
         * Absorbs octets.
         *
         * @param buffer data, borrowed.
         * @param offset first octet.
         * @param length number of octets.
         */
        void update(byte[] buffer, int offset, int length);

        /**
         * Writes the 20-octet MAC and resets for the next message.
         *
         * @param out    destination, borrowed.
         * @param offset where the MAC starts.
         */
        void doFinal(byte[] out, int offset);
    }

    /**
     * AES-GCM with a 16-octet tag, one message at a time: {@link #start}, any number of {@link #aad} calls, then
     * {@link #encrypt} or {@link #decrypt}.
     */
    interface Aead
    {
        /**
         * Keys the engine (16 or 32 octets).
         *
         * @param key       key bytes, borrowed.
         * @param keyLength number of key octets used from offset 0.
         */
        void init(byte[] key, int keyLength);

        /**
         * Starts a message.
         *
         * @param encrypt true to encrypt, false to decrypt.
         * @param iv      the 12-octet IV, borrowed.
         * @return false when the library refused (never for well-formed SRTP use).
         */
        boolean start(boolean encrypt, byte[] iv);

        /**
         * Adds associated data; may be called several times (SRTCP's AAD is split, RFC 7714 §9.1).
         *
         * @param buffer data, borrowed.
         * @param offset first octet.
         * @param length number of octets.
         */
        void aad(byte[] buffer, int offset, int length);

        /**
         * Encrypts {@code buffer[offset..offset+length)} in place and appends the tag, so the buffer needs 16 spare
         * octets after the plaintext.
         *
         * @param buffer data, borrowed.
         * @param offset first plaintext octet.
         * @param length plaintext length.
         * @return {@code length + 16}, or -1 if the library failed.
         */
        int encrypt(byte[] buffer, int offset, int length);

        /**
         * Verifies the tag of {@code buffer[offset..offset+length)} (ciphertext followed by the tag) and, if it is
         * good, decrypts in place. The buffer is left untouched on failure.
         *
         * @param buffer data, borrowed.
         * @param offset first ciphertext octet.
         * @param length ciphertext length plus 16.
         * @return the plaintext length, or -1 when the tag does not verify.
         */
        int decrypt(byte[] buffer, int offset, int length);
    }
}
