package io.sipline.container.dispatch;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import javax.servlet.ServletException;
import javax.servlet.sip.SipServlet;

import io.sipline.container.media.ContainerMedia;
import io.sipline.media.relay.MediaRelaySettings;
import io.sipline.media.service.MediaAnchor;
import io.sipline.media.service.MediaProfile;
import io.sipline.media.service.MediaService;
import io.sipline.media.service.RelayMediaService;
import io.sipline.sip.stack.SipStackConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The media service reaches every application as the {@code ServletContext} attribute
 * {@value MediaService#ATTRIBUTE}, already during its servlets' {@code init}, and anchors a call from there.
 */
class MediaServiceAttributeTest
{
    /** Records what its {@code init} finds in the context. */
    public static final class MediaApp extends SipServlet
    {
        private static final long serialVersionUID = 1L;
        static final AtomicReference<Object> FOUND_AT_INIT = new AtomicReference<>();

        @Override
        public void init() throws ServletException
        {
            FOUND_AT_INIT.set(getServletContext().getAttribute(MediaService.ATTRIBUTE));
        }
    }

    @Test
    void shouldPublishTheMediaServiceToEveryApplicationBeforeInit() throws Exception
    {
        final SipStackConfig config = new SipStackConfig().addresses(List.of(TestApps.LOOPBACK)).ports(0).shards(1);
        try (ContainerServer server = TestApps.server(config);
            RelayMediaService media = ContainerMedia.start(new MediaRelaySettings(45000, 45999,
                InetAddress.getLoopbackAddress(), null, 1, 0)))
        {
            ContainerMedia.publish(server.registry(), media);
            server.registry().onDeployed(TestApps.application("media-app", new MediaApp(), Map.of()));
            assertSame(media, MediaApp.FOUND_AT_INIT.get(), "found by the servlet's init");
            final MediaService found = (MediaService)server.registry().application("media-app").servletContext()
                .getAttribute(MediaService.ATTRIBUTE);
            assertSame(media, found);
            final MediaAnchor anchor = found.anchor("v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\n" +
                "t=0 0\r\nm=audio 30000 RTP/AVP 0\r\n", MediaProfile.RTP_SAVP, null);
            assertTrue(anchor.offer().matches("(?s).*\r\nm=audio 45\\d{3} RTP/SAVP 0\r\n.*"), anchor.offer());
            anchor.end();
            assertEquals(0, found.activeAnchors());
        }
    }
}
