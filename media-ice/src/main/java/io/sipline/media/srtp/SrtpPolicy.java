package io.sipline.media.srtp;

import java.util.Arrays;

/**
 * Everything an {@link SrtpContext} is built from: suite, master key and salt, optional MKI, key derivation rate,
 * replay window, key lifetime, stream limits and crypto backend. Made with {@link #builder(SrtpCryptoSuite)} or from
 * an SDES attribute with {@link #fromSdes(SdesCryptoAttribute)}.
 *
 * <p>Immutable once built (arrays are copied in and out); thread-safe.
 */
public final class SrtpPolicy
{
    /** Default maximum number of SSRCs per context. */
    public static final int MAX_STREAMS_DEFAULT = 32;

    private final SrtpCryptoSuite suite;
    private final byte[] masterKey;
    private final byte[] masterSalt;
    private final byte[] mki;
    private final int keyDerivationRate;
    private final int replayWindow;
    private final long keyLifetime;
    private final int maxStreams;
    private final boolean acceptAnySsrc;
    private final SrtpBackend backend;

    private SrtpPolicy(final Builder builder)
    {
        suite = builder.suite;
        masterKey = builder.masterKey.clone();
        masterSalt = builder.masterSalt.clone();
        mki = null == builder.mki ? null : builder.mki.clone();
        keyDerivationRate = builder.keyDerivationRate;
        replayWindow = builder.replayWindow;
        keyLifetime = builder.keyLifetime;
        maxStreams = builder.maxStreams;
        acceptAnySsrc = builder.acceptAnySsrc;
        backend = null == builder.backend ? SrtpBackend.defaultBackend() : builder.backend;
    }

    /**
     * Starts a policy for {@code suite}.
     *
     * @param suite the crypto suite.
     * @return a builder.
     */
    public static Builder builder(final SrtpCryptoSuite suite)
    {
        return new Builder(suite);
    }

    /**
     * A builder filled from the first {@code inline:} key of an SDES attribute: suite, key, salt, lifetime, MKI, and
     * the {@code KDR} and {@code WSH} session parameters (RFC 4568 §6.3.1, §6.3.7).
     *
     * @param attribute a parsed {@code a=crypto} attribute.
     * @return a builder, to adjust further or build.
     */
    public static Builder fromSdes(final SdesCryptoAttribute attribute)
    {
        final Builder builder = new Builder(attribute.suite())
            .masterKey(attribute.masterKey(0), attribute.masterSalt(0))
            .keyDerivationRate(attribute.keyDerivationRate());
        if (attribute.lifetime(0) > 0)
        {
            builder.keyLifetime(attribute.lifetime(0));
        }
        if (null != attribute.mki(0))
        {
            builder.mki(attribute.mki(0));
        }
        final int wsh = attribute.windowSizeHint();
        if (wsh > 0)
        {
            // Our window is a whole number of 64-bit words, at least 64 (RFC 3711 §3.3.2).
            builder.replayWindow(Math.min(SrtpReplayWindow.MAX_SIZE, Math.max(64, (wsh + 63) & ~63)));
        }
        return builder;
    }

    /** @return the crypto suite. */
    public SrtpCryptoSuite suite()
    {
        return suite;
    }

    /** @return a copy of the master key. */
    public byte[] masterKey()
    {
        return masterKey.clone();
    }

    /** @return a copy of the master salt. */
    public byte[] masterSalt()
    {
        return masterSalt.clone();
    }

    /** @return a copy of the MKI, or null when packets carry none. */
    public byte[] mki()
    {
        return null == mki ? null : mki.clone();
    }

    /** @return MKI length in octets, 0 when absent. */
    public int mkiLength()
    {
        return null == mki ? 0 : mki.length;
    }

    /** @return 0 (derive once) or a power of two up to 2^24. */
    public int keyDerivationRate()
    {
        return keyDerivationRate;
    }

    /** @return replay window size in packets. */
    public int replayWindow()
    {
        return replayWindow;
    }

    /** @return most SRTP (and, separately, SRTCP) packets under this master key. */
    public long keyLifetime()
    {
        return keyLifetime;
    }

    /** @return most SSRCs in the default stream table. */
    public int maxStreams()
    {
        return maxStreams;
    }

    /** @return whether unknown SSRCs get a stream from this policy (libsrtp's {@code ssrc_any_*} template). */
    public boolean acceptAnySsrc()
    {
        return acceptAnySsrc;
    }

    /** @return the crypto backend. */
    public SrtpBackend backend()
    {
        return backend;
    }

    byte[] masterKeyShared()
    {
        return masterKey;
    }

    byte[] masterSaltShared()
    {
        return masterSalt;
    }

    byte[] mkiShared()
    {
        return mki;
    }

    /** Builds an {@link SrtpPolicy}; validates lengths against the suite in {@link #build()}. Not thread-safe. */
    public static final class Builder
    {
        private final SrtpCryptoSuite suite;
        private byte[] masterKey;
        private byte[] masterSalt;
        private byte[] mki;
        private int keyDerivationRate;
        private int replayWindow = SrtpReplayWindow.DEFAULT_SIZE;
        private long keyLifetime = SrtpStream.MAX_SRTP_INDEX + 1;
        private int maxStreams = MAX_STREAMS_DEFAULT;
        private boolean acceptAnySsrc = true;
        private SrtpBackend backend;

        private Builder(final SrtpCryptoSuite suite)
        {
            if (null == suite)
            {
                throw new IllegalArgumentException("suite is null");
            }
            this.suite = suite;
        }

        /**
         * Master key and salt as SDES carries them: key then salt.
         *
         * @param keyAndSalt {@link SrtpCryptoSuite#masterKeySaltLength()} octets, copied.
         * @return this.
         */
        public Builder masterKey(final byte[] keyAndSalt)
        {
            if (keyAndSalt.length != suite.masterKeySaltLength())
            {
                throw new IllegalArgumentException(suite + " needs " + suite.masterKeySaltLength() +
                    " octets of key and salt, got " + keyAndSalt.length);
            }
            masterKey = Arrays.copyOfRange(keyAndSalt, 0, suite.keyLength());
            masterSalt = Arrays.copyOfRange(keyAndSalt, suite.keyLength(), keyAndSalt.length);
            return this;
        }

        /**
         * Master key and salt separately.
         *
         * @param key  {@link SrtpCryptoSuite#keyLength()} octets, copied.
         * @param salt {@link SrtpCryptoSuite#saltLength()} octets, copied.
         * @return this.
         */
        public Builder masterKey(final byte[] key, final byte[] salt)
        {
            masterKey = key.clone();
            masterSalt = salt.clone();
            return this;
        }

        /**
         * MKI written into and expected in every packet (RFC 3711 §3.1).
         *
         * @param mki 1 to 128 octets, copied; null for none.
         * @return this.
         */
        public Builder mki(final byte[] mki)
        {
            this.mki = null == mki ? null : mki.clone();
            return this;
        }

        /**
         * RFC 3711 §4.3.1 key derivation rate.
         *
         * @param rate 0 (the default: derive once) or 2^n for n in 0..24.
         * @return this.
         */
        public Builder keyDerivationRate(final int rate)
        {
            keyDerivationRate = rate;
            return this;
        }

        /**
         * Replay window size (RFC 3711 §3.3.2).
         *
         * @param size a multiple of 64 in [64, 32768]; default 128.
         * @return this.
         */
        public Builder replayWindow(final int size)
        {
            replayWindow = size;
            return this;
        }

        /**
         * Master key lifetime in packets (RFC 3711 §9.2, SDES {@code |2^31}), applied to SRTP and SRTCP counts
         * separately; the index limits (2^48, 2^31) apply regardless.
         *
         * @param packets a positive count.
         * @return this.
         */
        public Builder keyLifetime(final long packets)
        {
            keyLifetime = packets;
            return this;
        }

        /**
         * Most SSRCs per context (each direction of a session has its own): the default stream lookup, an
         * {@link SsrcIndexStreamLookup}, is allocated for this many at once, and a packet of one more new SSRC is
         * refused with {@link SrtpResult#STREAM_LIMIT}.
         *
         * @param streams most SSRCs; default {@value #MAX_STREAMS_DEFAULT}.
         * @return this.
         */
        public Builder maxStreams(final int streams)
        {
            maxStreams = streams;
            return this;
        }

        /**
         * Whether SSRCs not added explicitly get a stream on first use (default true).
         *
         * @param accept false to require {@link SrtpContext#addStream(int)}.
         * @return this.
         */
        public Builder acceptAnySsrc(final boolean accept)
        {
            acceptAnySsrc = accept;
            return this;
        }

        /**
         * Crypto backend; default {@link SrtpBackend#defaultBackend()}.
         *
         * @param backend the backend.
         * @return this.
         */
        public Builder backend(final SrtpBackend backend)
        {
            this.backend = backend;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @return the policy.
         * @throws IllegalArgumentException when a length or value does not fit the suite.
         */
        public SrtpPolicy build()
        {
            if (null == masterKey || masterKey.length != suite.keyLength())
            {
                throw new IllegalArgumentException(suite + " needs a " + suite.keyLength() + "-octet master key");
            }
            if (null == masterSalt || masterSalt.length != suite.saltLength())
            {
                throw new IllegalArgumentException(suite + " needs a " + suite.saltLength() + "-octet master salt");
            }
            if (null != mki && (mki.length < 1 || mki.length > 128))
            {
                throw new IllegalArgumentException("MKI must be 1 to 128 octets: " + mki.length);
            }
            if (keyDerivationRate < 0 || keyDerivationRate > (1 << 24) || Integer.bitCount(keyDerivationRate) > 1)
            {
                throw new IllegalArgumentException("key derivation rate must be 0 or 2^n, n <= 24: " +
                    keyDerivationRate);
            }
            if (replayWindow < 64 || replayWindow > SrtpReplayWindow.MAX_SIZE || 0 != (replayWindow & 63))
            {
                throw new IllegalArgumentException("replay window must be a multiple of 64 in [64, 32768]: " +
                    replayWindow);
            }
            if (keyLifetime < 1)
            {
                throw new IllegalArgumentException("key lifetime must be positive: " + keyLifetime);
            }
            if (maxStreams < 1)
            {
                throw new IllegalArgumentException("maxStreams must be positive: " + maxStreams);
            }
            return new SrtpPolicy(this);
        }
    }
}
