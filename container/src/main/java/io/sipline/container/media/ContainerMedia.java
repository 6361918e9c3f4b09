package io.sipline.container.media;

import io.sipline.container.cli.RunOptions;
import io.sipline.container.dispatch.ApplicationRegistry;
import io.sipline.media.relay.MediaRelaySettings;
import io.sipline.media.service.MediaService;
import io.sipline.media.service.RelayMediaService;
import io.sipline.media.ssrc.SsrcIndex;

import java.io.IOException;
import java.net.InetAddress;

/**
 * The media service in the container: started from the run command's media options, and published to every
 * application as the {@code ServletContext} attribute {@value MediaService#ATTRIBUTE} (set before the application's
 * listeners and servlets are initialised, so that {@code init} finds it).
 *
 * <p>The relay's SSRC index scans with the JDK's Vector API when the JVM has {@code --add-modules
 * jdk.incubator.vector} (as {@code bin/sipline run} starts it), and with its scalar path otherwise;
 * {@link #describe} says which in the server's start-up line.
 *
 * <p>Threading: called once on the starting thread; the service itself is thread-safe.
 */
public final class ContainerMedia
{
    private ContainerMedia()
    {
    }

    /**
     * @param options     the media options, or null for the defaults.
     * @param defaultBind the address to bind when the options name none (the first SIP bind address).
     * @return the relay's settings.
     */
    public static MediaRelaySettings settings(final RunOptions.Media options, final InetAddress defaultBind)
    {
        if (null == options)
        {
            return MediaRelaySettings.defaults(defaultBind);
        }
        return new MediaRelaySettings(options.portMin(), options.portMax(),
            null == options.bind() ? defaultBind : options.bind(), options.advertise(),
            0 == options.threads() ? Runtime.getRuntime().availableProcessors() : options.threads(),
            options.idleTimeoutMs());
    }

    /**
     * Starts the media service.
     *
     * @param settings the relay's settings.
     * @return the running service.
     * @throws IOException when the media threads cannot start.
     */
    public static RelayMediaService start(final MediaRelaySettings settings) throws IOException
    {
        return RelayMediaService.start(settings);
    }

    /**
     * The start-up line of a running relay: where its sockets are, its threads, and how its SSRC index scans.
     *
     * @param settings the relay's settings.
     * @return e.g. {@code sipline: media on udp 127.0.0.1 ports 20000-29999 (2 media threads; SSRC index: vector,
     *         8 int lanes)}.
     */
    public static String describe(final MediaRelaySettings settings)
    {
        return "sipline: media on udp " + settings.bind().getHostAddress() + " ports " + settings.portMin() + "-"
            + settings.portMax() + " (" + settings.threads() + (1 == settings.threads() ? " media thread" :
            " media threads") + "; SSRC index: " + SsrcIndex.autoScan() + ")";
    }

    /**
     * Publishes the service to every application deployed from now on.
     *
     * @param registry the container's applications.
     * @param service  the media service.
     */
    public static void publish(final ApplicationRegistry registry, final MediaService service)
    {
        registry.contextAttribute(MediaService.ATTRIBUTE, service);
    }
}
