package io.sipline.media.service;

import io.sipline.media.relay.MediaRelay;
import io.sipline.media.relay.MediaRelaySettings;
import io.sipline.media.sdp.SdpException;
import io.sipline.media.webrtc.DtlsWebRtcLegs;

import java.io.IOException;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@link MediaService} over the server's {@link MediaRelay}: every anchor's streams are relay streams, and
 * listeners are called on virtual threads of the service's own. WebRTC legs get ICE-lite and DTLS-SRTP from
 * {@link DtlsWebRtcLegs} by default (another {@link WebRtcLegs} may be installed with {@link #webRtcLegs(WebRtcLegs)});
 * a service started without one refuses an offer or a profile asking for them with a clear error.
 *
 * <p>Lifecycle: {@link #start} starts the relay's media threads; {@link #close()} ends every anchor, then stops
 * them. Thread-safe.
 */
public final class RelayMediaService implements MediaService, AutoCloseable
{
    private final MediaRelay relay;
    private final ExecutorService events = Executors.newThreadPerTaskExecutor(
        Thread.ofVirtual().name("sipline-media-event-", 0).factory());
    private final Set<AnchoredCall> anchors = ConcurrentHashMap.newKeySet();
    private final SecureRandom random = new SecureRandom();
    private final AtomicLong sessionIds = new AtomicLong(Math.abs(new SecureRandom().nextInt()) + 1L);
    private volatile WebRtcLegs webRtcLegs;
    private volatile boolean closed;

    private RelayMediaService(final MediaRelay relay)
    {
        this.relay = relay;
    }

    /**
     * Starts the relay's media threads and the service over them, with ICE-lite and DTLS-SRTP for WebRTC legs
     * ({@link DtlsWebRtcLegs}: a new certificate for the service's life, the default DTLS settings).
     *
     * @param settings port range, addresses, media threads, idle time.
     * @return the service.
     * @throws IOException when the relay cannot start.
     */
    public static RelayMediaService start(final MediaRelaySettings settings) throws IOException
    {
        final MediaRelay relay = MediaRelay.start(settings);
        return new RelayMediaService(relay).webRtcLegs(DtlsWebRtcLegs.start(relay.advertisedAddress()));
    }

    /**
     * Starts the relay's media threads and the service over them, with no WebRTC side until
     * {@link #webRtcLegs(WebRtcLegs)} installs one.
     *
     * @param settings port range, addresses, media threads, idle time.
     * @return the service.
     * @throws IOException when the relay cannot start.
     */
    public static RelayMediaService startWithoutWebRtc(final MediaRelaySettings settings) throws IOException
    {
        return new RelayMediaService(MediaRelay.start(settings));
    }

    /**
     * Installs the DTLS-SRTP side of WebRTC legs, in place of the one there was; the service closes the one it
     * replaces and, on {@link #close()}, the one it has, when they are {@link AutoCloseable}.
     *
     * @param legs the WebRTC leg factory.
     * @return this.
     */
    public RelayMediaService webRtcLegs(final WebRtcLegs legs)
    {
        final WebRtcLegs before = this.webRtcLegs;
        this.webRtcLegs = legs;
        if (before != legs)
        {
            closeQuietly(before);
        }
        return this;
    }

    /** @return the installed WebRTC side, or null. */
    public WebRtcLegs webRtcLegs()
    {
        return webRtcLegs;
    }

    private static void closeQuietly(final WebRtcLegs legs)
    {
        if (legs instanceof AutoCloseable closeable)
        {
            try
            {
                closeable.close();
            }
            catch (final Exception ignored)
            {
                // Stopping the timer of a factory cannot fail in a way the caller could act on.
            }
        }
    }

    @Override
    public MediaAnchor anchor(final String offer, final MediaProfile profile, final MediaListener listener)
    {
        if (null == profile)
        {
            throw new IllegalArgumentException("the profile wanted on the other leg is missing");
        }
        if (closed)
        {
            throw new IllegalStateException("the media service is stopped");
        }
        final AnchoredCall call = new AnchoredCall(this, listener, profile);
        call.start(offer);
        anchors.add(call);
        if (closed)
        {
            call.end();
            throw new IllegalStateException("the media service is stopped");
        }
        return call;
    }

    @Override
    public int activeAnchors()
    {
        return anchors.size();
    }

    /** @return the relay under the service. */
    public MediaRelay relay()
    {
        return relay;
    }

    /** Ends every anchor, then stops the media threads. */
    @Override
    public void close()
    {
        closed = true;
        for (final AnchoredCall call : anchors)
        {
            call.end();
        }
        relay.close();
        closeQuietly(webRtcLegs);
        events.shutdown();
    }

    InetAddress advertised()
    {
        return relay.advertisedAddress();
    }

    SecureRandom random()
    {
        return random;
    }

    long nextSessionId()
    {
        return sessionIds.getAndIncrement();
    }

    ExecutorService events()
    {
        return events;
    }

    WebRtcLegs.Leg webRtcLeg()
    {
        final WebRtcLegs legs = webRtcLegs;
        if (null == legs)
        {
            throw new SdpException("WebRTC (UDP/TLS/RTP/SAVPF) media needs the DTLS-SRTP side, which this server " +
                "does not have installed");
        }
        return legs.open();
    }

    void ended(final AnchoredCall call)
    {
        anchors.remove(call);
    }
}
