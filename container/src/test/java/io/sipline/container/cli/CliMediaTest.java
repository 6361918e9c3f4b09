package io.sipline.container.cli;

import java.net.InetAddress;

import io.sipline.container.media.ContainerMedia;
import io.sipline.media.relay.MediaRelaySettings;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The media relay flags: what they become in {@link RunOptions#media()}, and what is refused with which line. */
class CliMediaTest extends CliCase
{
    @Test
    void shouldDefaultToTheRangeOnTheFirstBindAddress()
    {
        assertEquals(Cli.SERVING, run("run", "--bind", "127.0.0.1"));
        final RunOptions.Media media = started.media();
        assertEquals(20000, media.portMin());
        assertEquals(29999, media.portMax());
        assertNull(media.bind());
        assertNull(media.advertise());
        assertEquals(30_000, media.idleTimeoutMs());
        final MediaRelaySettings settings = ContainerMedia.settings(media, InetAddress.getLoopbackAddress());
        assertEquals(InetAddress.getLoopbackAddress(), settings.bind());
        assertEquals(InetAddress.getLoopbackAddress(), settings.advertised());
        assertTrue(settings.threads() >= 1);
    }

    @Test
    void shouldTakeTheRangeBindAdvertiseThreadsAndIdleTime() throws Exception
    {
        assertEquals(Cli.SERVING, run("run", "--media-ports", "30000-30999", "--media-bind", "0.0.0.0",
            "--media-advertise", "203.0.113.5", "--media-threads", "2", "--media-idle", "0"));
        final RunOptions.Media media = started.media();
        assertEquals(30000, media.portMin());
        assertEquals(30999, media.portMax());
        assertEquals(InetAddress.getByName("0.0.0.0"), media.bind());
        assertEquals(InetAddress.getByName("203.0.113.5"), media.advertise());
        final MediaRelaySettings settings = ContainerMedia.settings(media, InetAddress.getLoopbackAddress());
        assertEquals("203.0.113.5", settings.advertised().getHostAddress());
        assertEquals(2, settings.threads());
        assertEquals(0, settings.idleTimeoutMs());
    }

    @Test
    void shouldSayWhereTheRelayIsAndThatItsIndexScansWithoutSimdInAJvmWithoutTheVectorModule() throws Exception
    {
        // the container's tests run without --add-modules jdk.incubator.vector; DistributionTest sees the vector line
        final MediaRelaySettings settings = new MediaRelaySettings(30000, 30999, InetAddress.getByName("127.0.0.1"),
            null, 1, 0);
        assertEquals("sipline: media on udp 127.0.0.1 ports 30000-30999 (1 media thread; SSRC index: scalar: the JVM "
            + "was started without --add-modules jdk.incubator.vector)", ContainerMedia.describe(settings));
    }

    @Test
    void shouldRefuseABadRange()
    {
        assertEquals(Cli.USAGE, run("run", "--media-ports", "20000"));
        assertEquals("sipline: --media-ports: '20000' is not a range like 20000-29999", errorLine());
    }

    @Test
    void shouldRefuseAnInvertedOrPrivilegedRange()
    {
        assertEquals(Cli.USAGE, run("run", "--media-ports", "29999-20000"));
        assertTrue(errorLine().contains("with the lower port first"));
        err.getBuffer().setLength(0);
        assertEquals(Cli.USAGE, run("run", "--media-ports", "80-90"));
        assertTrue(errorLine().contains("within 1024-65535"));
    }

    @Test
    void shouldRefuseARangeWithoutAPair()
    {
        assertEquals(Cli.USAGE, run("run", "--media-ports", "20001-20002"));
        assertTrue(errorLine().contains("no even/odd port pair"));
    }

    @Test
    void shouldRefuseANameForAnAddress()
    {
        assertEquals(Cli.USAGE, run("run", "--media-bind", "media.example.com"));
        assertEquals("sipline: --media-bind: 'media.example.com' is not an IP address", errorLine());
    }

    @Test
    void shouldRefuseAWildcardWithoutAnAdvertisedAddress()
    {
        assertEquals(Cli.USAGE, run("run", "--media-bind", "0.0.0.0"));
        assertTrue(errorLine().contains("give --media-advertise"));
        err.getBuffer().setLength(0);
        assertEquals(Cli.USAGE, run("run", "--media-advertise", "0.0.0.0"));
        assertTrue(errorLine().contains("is a wildcard"));
    }

    @Test
    void shouldRefuseMixedAddressFamilies()
    {
        assertEquals(Cli.USAGE, run("run", "--media-bind", "127.0.0.1", "--media-advertise", "2001:db8::1"));
        assertEquals("sipline: --media-bind and --media-advertise must both be IPv4 or both IPv6", errorLine());
    }
}
