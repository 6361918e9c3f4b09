package io.sipline.media.webrtc;

import io.sipline.media.dtls.DtlsCertificate;
import io.sipline.media.dtls.DtlsEndpointConfig;
import io.sipline.media.ice.IceCandidateType;
import io.sipline.media.ice.IcePriority;
import io.sipline.media.relay.DtlsLeg;
import io.sipline.media.service.WebRtcLegs;

import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The {@link WebRtcLegs} of a server: ICE-lite (RFC 8445 §2.5) and DTLS-SRTP (RFC 5763, RFC 5764) per leg, with one
 * ECDSA P-256 certificate for the server's life (its fingerprint in every offer and answer), the DTLS settings and
 * clock of {@link DtlsEndpointConfig}, and one timer thread that, each second, queues every open leg's consent and
 * handshake check to that leg's media thread (a task made once per leg; nothing is done on the timer thread itself).
 *
 * <p>Each leg writes one host candidate: the relay's advertised address and the leg's RTP port (rtcp-mux, so one
 * component), with the highest host priority (RFC 8445 §5.1.2.1).
 *
 * <p>Lifecycle: {@link #start} starts the timer thread; {@link #close()} stops it. Thread-safe.
 */
public final class DtlsWebRtcLegs implements WebRtcLegs, AutoCloseable
{
    /** Default consent timeout (RFC 7675 §5.1: 30 s without a valid check). */
    public static final long CONSENT_TIMEOUT_MS_DEFAULT = 30_000;
    private static final long TICK_MS = 1_000;
    private static final char[] ICE_CHARS =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".toCharArray();

    private final InetAddress advertised;
    private final DtlsCertificate certificate;
    private final DtlsEndpointConfig dtlsConfig;
    private final long consentTimeoutMs;
    private final SecureRandom random = new SecureRandom();
    private final Set<WebRtcLeg> open = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
        Thread.ofPlatform().daemon().name("sipline-webrtc-timer").factory());

    private DtlsWebRtcLegs(final InetAddress advertised, final DtlsCertificate certificate,
        final DtlsEndpointConfig dtlsConfig, final long consentTimeoutMs)
    {
        this.advertised = advertised;
        this.certificate = certificate;
        this.dtlsConfig = dtlsConfig;
        this.consentTimeoutMs = consentTimeoutMs;
    }

    /**
     * Starts the WebRTC side with a new certificate, the default DTLS settings and a 30 s consent timeout.
     *
     * @param advertised the relay's advertised address, written in every leg's host candidate.
     * @return the running factory.
     */
    public static DtlsWebRtcLegs start(final InetAddress advertised)
    {
        return start(advertised, DtlsCertificate.generate(new SecureRandom()), DtlsEndpointConfig.defaults(),
            CONSENT_TIMEOUT_MS_DEFAULT);
    }

    /**
     * Starts the WebRTC side.
     *
     * @param advertised       the relay's advertised address, written in every leg's host candidate.
     * @param certificate      the server's certificate, kept for its life.
     * @param dtlsConfig       handshake settings; its clock also times ICE consent.
     * @param consentTimeoutMs how long without a valid ICE check until a leg's consent expires.
     * @return the running factory.
     */
    public static DtlsWebRtcLegs start(final InetAddress advertised, final DtlsCertificate certificate,
        final DtlsEndpointConfig dtlsConfig, final long consentTimeoutMs)
    {
        if (consentTimeoutMs <= 0)
        {
            throw new IllegalArgumentException("consent timeout must be positive: " + consentTimeoutMs);
        }
        final DtlsWebRtcLegs legs = new DtlsWebRtcLegs(advertised, certificate, dtlsConfig, consentTimeoutMs);
        legs.timer.scheduleAtFixedRate(legs::tick, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
        return legs;
    }

    @Override
    public Leg open()
    {
        // RFC 8445 §5.3: a ufrag of at least 24 bits and a password of at least 128 bits of randomness.
        return new WebRtcLeg(this, iceChars(8), iceChars(24));
    }

    /** @return the server's certificate. */
    public DtlsCertificate certificate()
    {
        return certificate;
    }

    /** @return legs open on a media thread now. */
    public int openLegs()
    {
        return open.size();
    }

    /** Stops the timer thread; legs still open stop checking consent. */
    @Override
    public void close()
    {
        timer.shutdownNow();
    }

    DtlsEndpointConfig dtlsConfig()
    {
        return dtlsConfig;
    }

    long consentTimeoutMs()
    {
        return consentTimeoutMs;
    }

    long nowMs()
    {
        return dtlsConfig.clockMs().getAsLong();
    }

    String hostCandidate(final int port)
    {
        final int priority = IcePriority.candidate(IceCandidateType.HOST, IcePriority.DEFAULT_LOCAL_PREFERENCE, 1);
        return "1 1 udp " + Integer.toUnsignedLong(priority) + ' ' + advertised.getHostAddress() + ' ' + port +
            " typ host";
    }

    void register(final WebRtcLeg leg)
    {
        open.add(leg);
    }

    void unregister(final WebRtcLeg leg)
    {
        open.remove(leg);
    }

    /** Timer thread: queues each open leg's check to its media thread. */
    void tick()
    {
        for (final WebRtcLeg leg : open)
        {
            final DtlsLeg relay = leg.relayLeg();
            if (null != relay)
            {
                relay.execute(leg.tickTask());
            }
        }
    }

    /** @return {@code n} random ICE characters (RFC 8839 §5.4), for a ufrag or a password. */
    String iceChars(final int n)
    {
        final char[] chars = new char[n];
        for (int i = 0; i < n; i++)
        {
            chars[i] = ICE_CHARS[random.nextInt(ICE_CHARS.length)];
        }
        return new String(chars);
    }
}
