package io.sipline.media.dtls;

import java.security.SecureRandom;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Settings shared by the {@link DtlsEndpoint}s of a server: the handshake timeout, the first retransmission delay,
 * the largest datagram we send, the SRTP profiles we offer or accept in order of preference, the clock of the
 * timeout and the source of randomness. The defaults: a 10 s handshake, a first resend after 1 s
 * (RFC 6347 §4.2.4.1), 1,200-octet datagrams (the path MTU WebRTC assumes), and AES-CM-80, AES-CM-32 then
 * AES-128-GCM (the AES-CM suites first because their SRTP path allocates nothing per packet).
 *
 * <p>Immutable once built; thread-safe.
 */
public final class DtlsEndpointConfig
{
    /** Default handshake timeout. */
    public static final long HANDSHAKE_TIMEOUT_MS_DEFAULT = 10_000;
    /** Default first retransmission delay (RFC 6347 §4.2.4.1); each resend doubles it, up to 60 s. */
    public static final int INITIAL_RESEND_MS_DEFAULT = 1_000;
    /** Default largest UDP payload we send. */
    public static final int MAX_DATAGRAM_BYTES_DEFAULT = 1_200;
    /** Default depth of the queue between the media thread and a handshake. */
    public static final int INBOUND_QUEUE_CAPACITY_DEFAULT = 32;

    private final long handshakeTimeoutMs;
    private final int initialResendMs;
    private final int maxDatagramBytes;
    private final int inboundQueueCapacity;
    private final List<DtlsSrtpProfile> profiles;
    private final LongSupplier clockMs;
    private final SecureRandom random;

    private DtlsEndpointConfig(final Builder builder)
    {
        handshakeTimeoutMs = builder.handshakeTimeoutMs;
        initialResendMs = builder.initialResendMs;
        maxDatagramBytes = builder.maxDatagramBytes;
        inboundQueueCapacity = builder.inboundQueueCapacity;
        profiles = builder.profiles;
        clockMs = builder.clockMs;
        random = builder.random;
    }

    /** @return a builder with the defaults. */
    public static Builder builder()
    {
        return new Builder();
    }

    /** @return the defaults. */
    public static DtlsEndpointConfig defaults()
    {
        return builder().build();
    }

    /** @return time from the endpoint's start until an unfinished handshake fails with a timeout. */
    public long handshakeTimeoutMs()
    {
        return handshakeTimeoutMs;
    }

    /** @return the first retransmission delay of a flight. */
    public int initialResendMs()
    {
        return initialResendMs;
    }

    /** @return the largest UDP payload an endpoint sends; handshake messages are fragmented to fit. */
    public int maxDatagramBytes()
    {
        return maxDatagramBytes;
    }

    /** @return datagrams that may wait for a handshake thread before more are dropped. */
    public int inboundQueueCapacity()
    {
        return inboundQueueCapacity;
    }

    /** @return the SRTP profiles, most preferred first. */
    public List<DtlsSrtpProfile> profiles()
    {
        return profiles;
    }

    /** @return the clock of the handshake timeout, in milliseconds of any origin. */
    public LongSupplier clockMs()
    {
        return clockMs;
    }

    /** @return the randomness of the handshakes. */
    public SecureRandom random()
    {
        return random;
    }

    /** Builds a {@link DtlsEndpointConfig}. Not thread-safe. */
    public static final class Builder
    {
        private long handshakeTimeoutMs = HANDSHAKE_TIMEOUT_MS_DEFAULT;
        private int initialResendMs = INITIAL_RESEND_MS_DEFAULT;
        private int maxDatagramBytes = MAX_DATAGRAM_BYTES_DEFAULT;
        private int inboundQueueCapacity = INBOUND_QUEUE_CAPACITY_DEFAULT;
        private List<DtlsSrtpProfile> profiles = List.of(DtlsSrtpProfile.SRTP_AES128_CM_HMAC_SHA1_80,
            DtlsSrtpProfile.SRTP_AES128_CM_HMAC_SHA1_32, DtlsSrtpProfile.SRTP_AEAD_AES_128_GCM);
        private LongSupplier clockMs = () -> System.nanoTime() / 1_000_000L;
        private SecureRandom random;

        private Builder()
        {
        }

        /**
         * @param timeoutMs a positive time from start until an unfinished handshake fails.
         * @return this.
         */
        public Builder handshakeTimeoutMs(final long timeoutMs)
        {
            if (timeoutMs <= 0)
            {
                throw new IllegalArgumentException("handshake timeout must be positive: " + timeoutMs);
            }
            handshakeTimeoutMs = timeoutMs;
            return this;
        }

        /**
         * @param resendMs the first retransmission delay, 1 ms to 60 s.
         * @return this.
         */
        public Builder initialResendMs(final int resendMs)
        {
            if (resendMs < 1 || resendMs > 60_000)
            {
                throw new IllegalArgumentException("initial resend must be 1 ms to 60 s: " + resendMs);
            }
            initialResendMs = resendMs;
            return this;
        }

        /**
         * @param bytes the largest UDP payload to send, 256 to 65,507.
         * @return this.
         */
        public Builder maxDatagramBytes(final int bytes)
        {
            if (bytes < 256 || bytes > 65_507)
            {
                throw new IllegalArgumentException("max datagram must be 256 to 65507 octets: " + bytes);
            }
            maxDatagramBytes = bytes;
            return this;
        }

        /**
         * @param capacity datagrams waiting for a handshake thread, at least 4.
         * @return this.
         */
        public Builder inboundQueueCapacity(final int capacity)
        {
            if (capacity < 4)
            {
                throw new IllegalArgumentException("inbound queue needs at least 4 slots: " + capacity);
            }
            inboundQueueCapacity = capacity;
            return this;
        }

        /**
         * @param preferred the SRTP profiles, most preferred first; at least one.
         * @return this.
         */
        public Builder profiles(final List<DtlsSrtpProfile> preferred)
        {
            if (preferred.isEmpty())
            {
                throw new IllegalArgumentException("at least one SRTP profile is needed");
            }
            profiles = List.copyOf(preferred);
            return this;
        }

        /**
         * @param clock milliseconds of any origin; tests pass a clock they advance.
         * @return this.
         */
        public Builder clockMs(final LongSupplier clock)
        {
            clockMs = clock;
            return this;
        }

        /**
         * @param secureRandom randomness for the handshakes; a new {@link SecureRandom} by default.
         * @return this.
         */
        public Builder random(final SecureRandom secureRandom)
        {
            random = secureRandom;
            return this;
        }

        /** @return the config. */
        public DtlsEndpointConfig build()
        {
            if (null == random)
            {
                random = new SecureRandom();
            }
            return new DtlsEndpointConfig(this);
        }
    }
}
